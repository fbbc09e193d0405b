"""Trade tape: the selected instrument's recent trades, newest on top, coloured by side; large ones stand out.

Where the socket was lost a line crosses the tape ("reconnected 12:03:04 (5.2s)"): the trades above it
came after the reconnect, so trades from before and after a gap are never read as one stream. The trader's
own trades (the account is the maker or the taker, or a fill of it has the trade's id) carry a ``●`` after
their time, which reads in every theme, the monochrome one included.
"""

from __future__ import annotations

import statistics
from decimal import Decimal
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.events import Resize
from textual.widgets import DataTable

from tui.api.models import Trade, to_datetime
from tui.feed.state import TapeMark

from .display import DOWN, UP, fmt_age, fmt_price, fmt_size
from .pane import FeedPane
from .table_rows import TableRows

__all__ = ["OWN_MARK", "TradeTapePane", "large_threshold", "mark_cells", "own_trade", "with_marks"]

COLUMNS = (("time", "Time", 9), ("side", "", 1), ("price", "Price", 10), ("size", "Size", 8))
LARGE_FLOOR = Decimal(1_000)  # USDC: never call a trade below this large
LARGE_FACTOR = 3  # x the median notional of the trades on the tape
OWN_MARK = "●"  # after the time (8 characters in a column of 9) of the trader's own trades


def own_trade(t: Trade, account: str | None, fill_ids: set[int]) -> bool:
    """The account took part in ``t``: as its maker or taker, or by a fill with its trade id."""
    if t.trade_id in fill_ids:
        return True
    who = (account or "").lower()
    return bool(who) and who in (t.maker.lower(), t.taker.lower())


def large_threshold(trades: list[Trade]) -> Decimal:
    """The notional from which a trade is highlighted: 3x the median, at least 1,000 USDC."""
    if not trades:
        return LARGE_FLOOR
    median = statistics.median(t.price * t.size for t in trades)
    return max(LARGE_FLOOR, median * LARGE_FACTOR)


def _clock(ts: str | int) -> str:
    try:
        return to_datetime(ts).strftime("%H:%M:%S")
    except (ValueError, OverflowError, OSError):
        return "--:--:--"


def _gap(seconds: float) -> str:
    return f"{seconds:.1f}s" if seconds < 10 else fmt_age(seconds)


def mark_cells(mark: TapeMark) -> list[str]:
    """A mark as one line across the tape's columns: "reconnected 12:03:04 (5.2s)", ruled out to the width."""
    width = sum(w for _, _, w in COLUMNS)
    line = f"reconnected {_clock(mark.at_ms)} ({_gap(mark.gap_s)})"[:width]
    line = f"{line:─<{width}}"
    cells, start = [], 0
    for _, _, w in COLUMNS:
        cells.append(line[start : start + w])
        start += w
    return cells


def with_marks(trades: list[Trade], marks: list[TapeMark], slots: int) -> list[Trade | TapeMark]:
    """Trades newest first with each mark above the newest trade it came after; ``slots`` rows at most.
    A mark below every trade shown has scrolled away with its trades."""
    pending = sorted(marks, key=lambda m: m.after_trade_id, reverse=True)
    rows: list[Trade | TapeMark] = []
    for t in trades:
        while pending and t.trade_id <= pending[0].after_trade_id:
            rows.append(pending.pop(0))
        rows.append(t)
    return rows[:slots]


class TradeTapePane(FeedPane):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"trades", "fills"})
    AGE_TOPIC: ClassVar[str | None] = "trades"

    def __init__(self, state: Any, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.border_title = "Trades"
        self.slots = 12
        self._rows: TableRows | None = None

    def compose(self) -> ComposeResult:
        table: DataTable[Any] = DataTable(cursor_type="none", cell_padding=0, id="tape-table")
        for key, label, width in COLUMNS:
            table.add_column(Text(label, justify="left" if key == "time" else "right"), width=width, key=key)
        yield table

    def on_mount(self) -> None:
        super().on_mount()
        self._rows = TableRows(self.query_one(DataTable), [c[0] for c in COLUMNS])

    def on_resize(self, event: Resize) -> None:
        slots = max(1, event.size.height - 3)
        if slots != self.slots:
            self.slots = slots
            self.dirty = True

    def restyle(self) -> None:
        if self._rows is not None:
            self._rows.forget()

    def refresh_state(self) -> None:
        if self._rows is None:
            return
        market = self.state.market
        info = market.instruments.get(market.selected)
        tick = info.tick_size if info else None
        lot = info.lot_size if info else None
        trades = [t for t in market.trades if t.instrument == market.selected][: self.slots]
        big = large_threshold(trades)
        c = self.colours
        account = self.state.account
        fill_ids = {f.trade_id for f in account.fills if f.instrument == market.selected}
        mine_shown = False
        rows: list[tuple[str, list[str | Text]]] = []
        for i, t in enumerate(with_marks(trades, list(market.tape_marks), self.slots)):
            if isinstance(t, TapeMark):
                rows.append((f"t{i}", [Text(cell, style=f"bold {c.warning}") for cell in mark_cells(t)]))
                continue
            buy = t.side == "b"
            colour = c.move(buy)
            large = t.price * t.size >= big
            style = f"bold reverse {colour}" if large else colour
            mine = own_trade(t, account.address, fill_ids)
            mine_shown = mine_shown or mine
            when = Text(_clock(t.timestamp), style=c.accent if mine else c.muted)
            if mine:
                when.append(OWN_MARK, style=f"bold {c.accent}")
            rows.append(
                (
                    f"t{i}",
                    [
                        when,
                        Text(UP if buy else DOWN, style=colour),
                        Text(fmt_price(t.price, tick), style=style, justify="right"),
                        Text(fmt_size(t.size, lot), style="bold" if large else "", justify="right"),
                    ],
                )
            )
        self._rows.sync(rows)
        self.show_titles(f"Trades {market.selected}", f"{OWN_MARK} yours" if mine_shown else "")
