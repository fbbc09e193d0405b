"""Trade tape: the selected instrument's recent trades, newest on top, coloured by side; large ones stand out.

Where the socket was lost a line crosses the tape ("reconnected 12:03:04 (5.2s)"): the trades above it
came after the reconnect, so trades from before and after a gap are never read as one stream. The trader's
own trades (the account is the maker or the taker, or a fill of it has the trade's id) carry a ``●`` after
their time, which reads in every theme, the monochrome one included.
"""

from __future__ import annotations

import statistics
from decimal import Decimal
from typing import ClassVar

from textual.app import ComposeResult
from textual.events import Resize

from tui.api.models import Trade, to_datetime
from tui.feed.state import FeedState, TapeMark

from .book_lines import Column
from .display import DOWN, UP, fmt_age, fmt_price, fmt_size
from .pane import FeedPane
from .tape_lines import Cell, Row, TapeLines

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

    DEFAULT_CSS = """
    TradeTapePane > TapeLines {
        height: 1fr;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, state: FeedState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.border_title = "Trades"
        self.slots = 12

    def compose(self) -> ComposeResult:
        yield TapeLines([Column(label, width, right=key != "time") for key, label, width in COLUMNS], id="tape-table")

    @property
    def lines(self) -> TapeLines:
        return self.query_one("#tape-table", TapeLines)

    def on_resize(self, event: Resize) -> None:
        slots = max(1, event.size.height - 3)
        if slots != self.slots:
            self.slots = slots
            self.dirty = True

    def restyle(self) -> None:
        if self.is_mounted:
            self.lines.forget()

    def refresh_state(self) -> None:
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
        rows: list[Row] = []
        for t in with_marks(trades, list(market.tape_marks), self.slots):
            if isinstance(t, TapeMark):
                rows.append(tuple(((cell, f"bold {c.warning}"),) for cell in mark_cells(t)))
                continue
            buy = t.side == "b"
            colour = c.move(buy)
            large = t.price * t.size >= big
            mine = own_trade(t, account.address, fill_ids)
            mine_shown = mine_shown or mine
            clock = _clock(t.timestamp)
            when: Cell = ((clock, c.accent), (OWN_MARK, f"bold {c.accent}")) if mine else ((clock, c.muted),)
            rows.append(
                (
                    when,
                    ((UP if buy else DOWN, colour),),
                    ((fmt_price(t.price, tick), f"bold reverse {colour}" if large else colour),),
                    ((fmt_size(t.size, lot), "bold" if large else ""),),
                )
            )
        self.lines.set_rows(rows)
        self.show_titles(f"Trades {market.selected}", f"{OWN_MARK} yours" if mine_shown else "")
