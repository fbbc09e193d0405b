"""Markets: every perp and spot instrument with its ticker; `/` filters (Enter takes the first match), Enter selects."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Input

from tui.feed.state import FeedState, InstrumentInfo
from tui.ui.messages import InstrumentChosen, WatchToggled

from .display import DOWN, UNKNOWN, UP, fmt_compact, fmt_pct, fmt_price
from .funding import FundingView
from .pane import TablePane

__all__ = ["MarketsPane"]

# (key, label, width); a narrow pane drops what matters least (PRIORITY).
COLUMNS = (
    ("market", "Market", 10),
    ("last", "Last", 11),
    ("mark", "Mark", 11),
    ("change", "24h", 8),
    ("volume", "Volume", 9),
    ("funding", "Funding", 12),  # per period (0.0013%/1h), per 8 h or APR: F cycles
    ("oi", "OI", 9),
)
MAX_EXTRA = 6  # the most room a figure's column is given beyond its widest figure (a very wide pane keeps the rest)


class MarketsPane(TablePane):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"markets"})
    PACE: ClassVar[int] = 5  # twice a second at the dashboard's 10: an overview, not the book
    AGE_TOPIC: ClassVar[str | None] = "markets"
    TABLE_ID = "markets-table"
    COLUMNS = COLUMNS
    PRIORITY = ("market", "last", "change", "funding", "mark", "volume", "oi")
    LEFT = frozenset({"market"})

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear_filter", "Clear filter", show=False, id="markets.clear_filter"),
        Binding(
            "asterisk",
            "watch",
            "Watch",
            show=False,
            id="markets.watch",
            tooltip="Add the selected market to the watchlist (or take it off)",
        ),
    ]

    DEFAULT_CSS = """
    MarketsPane > Input {
        display: none;
    }
    MarketsPane.-filtering > Input {
        display: block;
    }
    """

    def __init__(self, state: FeedState, *, funding: FundingView | None = None, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.border_title = "Markets"
        self.funding = funding or FundingView()
        self._extra: dict[str, int] = {}  # the room shared out to each figure's column (``fitting``)

    # ---- the columns' room ------------------------------------------------------------------------

    def fitting(self, width: int) -> list[tuple[str, str, int]]:
        """The columns there is room for (``TablePane.fitting``), then the room left shared among the figures'
        columns, up to ``MAX_EXTRA`` each: the figures spaced out across the pane, not ~20 blank columns at its
        right (160x48)."""
        self._extra = {}
        columns = super().fitting(width)
        used = sum(self.column_width(key, label, cap) for key, label, cap in columns) + self.GAP * (len(columns) - 1)
        figures = [key for key, _, _ in columns if key not in self.LEFT]
        if width > used and figures:
            share, rest = divmod(width - used, len(figures))
            for i, key in enumerate(figures):
                self._extra[key] = min(MAX_EXTRA, share + (1 if i < rest else 0))
        return columns

    def column_width(self, key: str, label: str, cap: int) -> int:
        return super().column_width(key, label, cap) + self._extra.get(key, 0)

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter markets… (enter: to the list, esc: clear)", id="market-filter", compact=True)
        yield self.make_table()

    # ---- filtering ------------------------------------------------------------------------------

    def start_filter(self) -> None:
        self.add_class("-filtering")
        self.query_one(Input).focus()

    def action_clear_filter(self) -> None:
        box = self.query_one(Input)
        box.value = ""
        self.remove_class("-filtering")
        self.table.focus()

    @on(Input.Changed, "#market-filter")
    def _filter_changed(self, _event: Input.Changed) -> None:
        self.redraw_soon()
        self.flush()

    @on(Input.Submitted, "#market-filter")
    def _filter_done(self, _event: Input.Submitted) -> None:
        """Enter takes the first match, as the list shows it; with none, the filter stays to be corrected."""
        matches = self.matches()
        if not matches:
            return
        self.table.focus()
        self.table.move_cursor(row=0)
        self.post_message(InstrumentChosen(matches[0]))

    @property
    def filter_text(self) -> str:
        return self.query_one(Input).value.strip().lower()

    # ---- selection ------------------------------------------------------------------------------

    @on(DataTable.RowSelected, "#markets-table")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(InstrumentChosen(str(event.row_key.value)))

    def action_watch(self) -> None:
        symbol = self.cursor_key()
        if symbol is not None:
            self.post_message(WatchToggled(symbol))

    # ---- rendering ------------------------------------------------------------------------------

    def matches(self) -> list[str]:
        """The markets the filter lets through, in the list's order (every one with no filter)."""
        words = self.filter_text.split()
        instruments = self.state.market.instruments.items()
        return [name for name, info in instruments if all(w in f"{name} {info.kind}".lower() for w in words)]

    def refresh_state(self) -> None:
        market = self.state.market
        names = self.matches()
        rows = [(name, self._cells(name, market.instruments[name], name == market.selected)) for name in names]
        if self.sync(rows):
            order = {name: i for i, name in enumerate(market.instruments)}
            self.table.sort("market", key=lambda cell: order.get(_plain(cell), 0))
        filtered = f"{len(rows)}/{len(market.instruments)}" if rows else "no match"
        self.show_titles(subtitle=filtered if self.filter_text else "")

    def _cells(self, name: str, info: InstrumentInfo, selected: bool) -> list[str | Text]:
        """A market's cells. Perp or spot is the instrument's kind: a pushed ticker carries no ``type``."""
        tick, perp = info.tick_size, info.kind == "perp"
        c = self.colours
        t = self.state.market.tickers.get(name)
        period = self.state.market.funding_period_s
        label = Text(name, style=f"bold {c.accent}" if selected else "")
        if t is None:  # nothing heard of it yet: every figure unknown
            cells: dict[str, str | Text] = {"market": label} if perp else {"market": label, "funding": "-", "oi": "-"}
        else:
            up = t.change_24h >= 0
            change = Text(f"{UP if up else DOWN}{fmt_pct(abs(t.change_24h), signed=False)}", style=c.move(up))
            traded = t.last_price > 0  # a last price of 0: no trade known yet, so no volume or interest either
            cells = {
                "market": label,
                "last": fmt_price(t.last_price, tick) if traded else UNKNOWN,
                "mark": fmt_price(t.mark_price, tick) if t.mark_price > 0 else UNKNOWN,
                "change": change,
                "volume": fmt_compact(t.volume_24h) if traded else UNKNOWN,
                "funding": self.funding.text(t.funding_rate, period) if perp else "-",
                "oi": (fmt_compact(t.open_interest) if traded else UNKNOWN) if perp else "-",
            }
        keys = [k for k, _, _ in COLUMNS]
        return [_right(cells.get(k, UNKNOWN)) if k != "market" else cells[k] for k in keys]


def _plain(cell: object) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def _right(cell: str | Text) -> Text:
    text = cell if isinstance(cell, Text) else Text(cell)
    text.justify = "right"
    return text
