"""The watchlist: the instruments a trader picked, each with its last price, 24 h change, funding and a
sparkline of the last hours; Enter shows the instrument on the dashboard.

The list is the app's (``XtuiApp.watchlist``, a ``tui.feed.watchlist.Watchlist`` kept on disk per profile).
Prices and funding come from the feed's tickers (every instrument's ticker is held all the time), redrawn once
a second; the sparklines from 15-minute candles, loaded in the screen's worker and again when older than
``SPARK_REFRESH_S``. Nothing here is sent to the exchange, so read-only and watch-only can use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Label

from tui.feed.watchlist import Watchlist
from tui.trading.grammar import FieldError
from tui.ui.messages import InstrumentChosen
from tui.ui.widgets.display import DOWN, UNKNOWN, UP, fmt_pct, fmt_price
from tui.ui.widgets.funding import fmt_funding
from tui.ui.widgets.palette import Palette
from tui.ui.widgets.record_table import RecordTable

from .data_screen import DataScreen, ScreenContext
from .form import FormField, FormScreen

__all__ = ["SPARK_HOURS", "WatchlistScreen", "sparkline", "watched_symbol"]

SPARK_RESOLUTION = "15"  # 15-minute candles ...
SPARK_STEP_S = 900
SPARK_HOURS = 6  # ... over the last 6 hours: 24 characters
SPARK_REFRESH_S = 60  # a sparkline is loaded again when older than this (the exchange's time)
BLOCKS = "▁▂▃▄▅▆▇█"


def sparkline(closes: Sequence[Decimal]) -> str:
    """One block character a close, its height the close's place between the lowest and the highest."""
    if not closes:
        return ""
    low, high = min(closes), max(closes)
    if high == low:
        return BLOCKS[len(BLOCKS) // 2 - 1] * len(closes)
    top = len(BLOCKS) - 1
    return "".join(BLOCKS[int((c - low) / (high - low) * top + Decimal("0.5"))] for c in closes)


def watched_symbol(text: str, symbols: set[str], watched: Watchlist) -> str:
    """The instrument a form's text names (any case); ``FieldError`` when none or already watched."""
    symbol = text.strip().upper()
    if symbol not in symbols:
        known = ", ".join(sorted(symbols)[:8])
        raise FieldError("symbol", f"{symbol or 'nothing'} is not an instrument (e.g. {known})")
    if symbol in watched:
        raise FieldError("symbol", f"{symbol} is already in the watchlist")
    return symbol


class WatchlistScreen(DataScreen):
    SCREEN_TITLE = "Watchlist"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose", "Show", id="watchlist.choose",
                tooltip="Show the selected instrument on the dashboard (and close the watchlist)"),
        Binding("a", "add", "Add", id="watchlist.add", tooltip="Add an instrument to the watchlist"),
        Binding("d", "remove", "Remove", id="watchlist.remove", tooltip="Take the selected instrument off the list"),
        Binding("shift+up", "move(-1)", "Up", id="watchlist.up", tooltip="Move the selected instrument up"),
        Binding("shift+down", "move(1)", "Down", id="watchlist.down", tooltip="Move the selected instrument down"),
    ]  # fmt: skip

    DEFAULT_CSS = """
    WatchlistScreen #watchlist-note {
        width: 1fr;
    }
    WatchlistScreen RecordTable {
        height: 1fr;
    }
    """

    def __init__(self, ctx: ScreenContext) -> None:
        super().__init__(ctx)
        self.sparks: dict[str, tuple[int, list[Decimal]]] = {}  # symbol -> (loaded at, ms; closes)

    @property
    def watchlist(self) -> Watchlist:
        return self.ctx.watchlist

    def compose_body(self) -> ComposeResult:
        yield Label("", id="watchlist-note", classes="screen-note")
        columns = [("market", "Market"), ("last", "Last"), ("change", "24h"), ("funding", "Funding"),
                   ("spark", f"Last {SPARK_HOURS}h (15m)")]  # fmt: skip
        yield RecordTable(columns, id="watchlist-table")

    def on_mount(self) -> None:
        super().on_mount()
        self.show()
        self.set_interval(1.0, self.show)  # the tickers move on between loads

    async def fetch(self) -> None:
        """The sparklines that are missing or old (one chart call each), then the rows."""
        market = self.ctx.feed.state.market
        now_ms = self.ctx.now_ms()
        for symbol in list(self.watchlist.symbols):
            info = market.instruments.get(symbol)
            held = self.sparks.get(symbol)
            if info is None or (held is not None and now_ms - held[0] < SPARK_REFRESH_S * 1000):
                continue
            to_s = now_ms // 1000
            candles = await self.ctx.client.chart(
                info.id, "ltp", SPARK_RESOLUTION, to_s - SPARK_HOURS * 3600 + SPARK_STEP_S, to_s
            )
            self.sparks[symbol] = (now_ms, [c.close for c in candles][-SPARK_HOURS * 3600 // SPARK_STEP_S :])
        self.show()

    def show(self) -> None:
        if not self.is_mounted:
            return
        market = self.ctx.feed.state.market
        colours = Palette.of(self.app)
        rows = []
        for symbol in self.watchlist.symbols:
            t = market.tickers.get(symbol)
            info = market.instruments.get(symbol)
            closes = self.sparks.get(symbol, (0, []))[1]
            spark = Text(sparkline(closes), style=colours.move(closes[-1] >= closes[0]) if closes else "")
            if t is None or info is None:
                cells: list[str | Text] = [symbol, "not listed" if market.instruments else "…", "", "", spark]
            else:
                up = t.change_24h >= 0
                change = Text(f"{UP if up else DOWN}{fmt_pct(abs(t.change_24h), signed=False)}", style=colours.move(up))
                funding = fmt_funding(t.funding_rate, market.funding_period_s) if info.kind == "perp" else "-"
                cells = [
                    symbol,
                    _right(fmt_price(t.last_price, info.tick_size) if t.last_price > 0 else UNKNOWN),  # no trade yet
                    _right(change),
                    _right(funding),
                    spark,
                ]
            rows.append((symbol, cells))
        self.query_one("#watchlist-table", RecordTable).show(rows)
        note = (
            f"{len(rows)} instrument(s) ({self.watchlist.path.name}). "
            "enter show · a add · d remove · shift+↑↓ move · * in the markets adds"
        )
        if self.watchlist.problem:
            note = f"{self.watchlist.problem}\n{note}"
        self.query_one("#watchlist-note", Label).update(note)

    def _selected(self) -> str | None:
        return self.query_one("#watchlist-table", RecordTable).selected_key() if self.watchlist.symbols else None

    # ---- keys ---------------------------------------------------------------------------------------

    @on(DataTable.RowSelected, "#watchlist-table")
    def _row_chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_choose()

    def action_choose(self) -> None:
        symbol = self._selected()
        if symbol is None:
            return
        if symbol not in self.ctx.feed.state.market.instruments:
            self.notify(f"{symbol} is not listed on this exchange.", severity="warning", markup=False)
            return
        main = next((s for s in self.app.screen_stack if s.id == "main"), None)
        if main is not None:
            main.post_message(InstrumentChosen(symbol))
        self.app.pop_screen()

    def action_add(self) -> None:
        symbols = set(self.ctx.feed.state.market.instruments)
        field = FormField("symbol", "Instrument", placeholder="e.g. ETH-PERP")

        def added(symbol: str | None) -> None:
            if symbol is not None:
                self._change(lambda: self.watchlist.add(symbol), f"{symbol} added to the watchlist")

        form: FormScreen[str] = FormScreen(
            "Watch an instrument", [field], lambda values: watched_symbol(values["symbol"], symbols, self.watchlist)
        )
        self.app.push_screen(form, added)

    def action_remove(self) -> None:
        symbol = self._selected()
        if symbol is not None:
            self._change(lambda: self.watchlist.remove(symbol), f"{symbol} taken off the watchlist")

    def action_move(self, step: int) -> None:
        symbol = self._selected()
        if symbol is None:
            return
        table = self.query_one("#watchlist-table", RecordTable)
        if self._change(lambda: self.watchlist.move(symbol, step), ""):
            table.move_cursor(row=self.watchlist.symbols.index(symbol), animate=False)

    def _change(self, change: Any, told: str) -> bool:
        """Apply a change to the list (saved at once); say so, or why it could not be saved."""
        try:
            changed = bool(change())
        except (OSError, ValueError) as exc:
            self.notify(f"Watchlist not saved: {exc}", severity="error", markup=False)
            return False
        if changed:
            self.show()
            if told:
                self.notify(told, timeout=3, markup=False)
            self.reload()  # the new instrument's sparkline
        return changed


def _right(cell: str | Text) -> Text:
    text = cell if isinstance(cell, Text) else Text(cell)
    text.justify = "right"
    return text
