"""The price ladder: one line per price on a fixed axis, the trader's buy orders, the bid sizes, the price, the ask
sizes and the trader's sell orders, and the last trade's size on the level it traded at.

The axis (``tui.trading.ladder.LadderAxis``) stays put as the market moves, so only the lines whose sizes changed
are drawn again (``BookLines`` caches each line's strip and repaints the changed span): a ladder redrawn around a
moving mid would rewrite every line with every tick. The cursor is a price; it stays on its level.
"""

from __future__ import annotations

from decimal import Decimal
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.events import Resize

from tui.feed.state import FeedState
from tui.trading.ladder import LadderAxis, LadderLevel, bucket, ladder_levels

from .book import GROUPINGS
from .book_lines import BookLines, Column, Row
from .display import fmt_price, fmt_size
from .pane import FeedPane

__all__ = ["LADDER_COLUMNS", "LadderLines", "LadderPane"]

LADDER_COLUMNS = (
    Column("My bids", 11),
    Column("Bid", 11),
    Column("Price", 13),
    Column("Ask", 11),
    Column("My asks", 11),
    Column(" Last", 11, right=False),
)
LADDER_WIDTH = sum(c.width for c in LADDER_COLUMNS) + 2  # and the pane's borders
_NONE: tuple[str, str] = ("", "")


class LadderLines(BookLines):
    """``BookLines`` whose cursor the ladder places (on a price's row) rather than follows."""

    def place_cursor(self, index: int) -> None:
        self._set_cursor(index)
        if self.scroll_y and self.virtual_size.height <= self.size.height:
            # every level fits (the axis is as tall as the view): a scroll left from a taller axis before the
            # first layout would hide the top levels under the header and leave blank lines at the bottom
            self.scroll_to(y=0, animate=False, force=True)


class LadderPane(FeedPane):
    """The ladder of the selected instrument. ``cursor`` is the price the order keys act at."""

    TOPICS: ClassVar[frozenset[str]] = frozenset({"book", "trades", "orders", "markets"})
    AGE_TOPIC: ClassVar[str | None] = "book"

    DEFAULT_CSS = """
    LadderPane {
        width: 70;
        max-width: 100%;
    }
    LadderPane > LadderLines {
        height: 1fr;
        scrollbar-size-vertical: 0;
        overflow-x: hidden;
    }
    """

    def __init__(self, state: FeedState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.grouping: int | None = None  # chosen when the ladder first has a book (``step``)
        self.axis: LadderAxis | None = None
        self.cursor: Decimal | None = None
        self.levels: list[LadderLevel] = []
        self._rows = 20
        self._symbol = ""

    def compose(self) -> ComposeResult:
        yield LadderLines(LADDER_COLUMNS, id="ladder-lines")

    @property
    def lines(self) -> LadderLines:
        return self.query_one("#ladder-lines", LadderLines)

    # ---- the axis and the cursor ----------------------------------------------------------------

    def step(self) -> Decimal | None:
        """The distance between two levels: the tick times the grouping (None: no instrument data yet). The first
        grouping is the finest that shows the spread in half the rows, so the best bid and ask are both on it."""
        info = self.state.market.instruments.get(self.state.market.selected)
        if info is None:
            return None
        if self.grouping is None:
            spread = self.state.market.book.spread
            fits = [g for g in GROUPINGS if spread is None or spread <= info.tick_size * g * (self._rows // 2)]
            self.grouping = fits[0] if fits else GROUPINGS[-1]
        return info.tick_size * self.grouping

    def recentre(self) -> bool:
        """The axis around the mid (the last trade when the book has one side only), the cursor on the mid's
        level; False when there is no price to centre on yet."""
        step = self.step()
        book = self.state.market.book
        trades = self.state.market.trades
        mid = book.mid or book.best_bid or book.best_ask or (trades[0].price if trades else None)
        if step is None or mid is None:
            return False
        self.axis = LadderAxis.centred(mid, step, self._rows)
        self.cursor = bucket(mid, step, "bids")
        self._redraw()
        return True

    def move_cursor(self, levels: int) -> None:
        """The cursor ``levels`` up (positive) or down; past an edge the axis follows it."""
        if self.axis is None or self.cursor is None:
            return
        self.set_cursor(self.cursor + levels * self.axis.step)

    def set_cursor(self, price: Decimal) -> None:
        """The cursor on the level of ``price`` (a price on the axis's grid), the axis moved to show it."""
        if self.axis is None:
            return
        self.cursor = price
        moved = self.axis.scrolled_to(price)
        if moved is not self.axis:
            self.axis = moved
            self._redraw()
        self._place_cursor()

    def cursor_to_best(self, side: str) -> Decimal | None:
        """The cursor on the best bid (``bids``) or best ask (``asks``) level; that price, or None (no such)."""
        book = self.state.market.book
        best = book.best_bid if side == "bids" else book.best_ask
        step = self.step()
        if best is None or step is None or self.axis is None:
            return None
        self.set_cursor(bucket(best, step, side))
        return self.cursor

    def cycle_grouping(self) -> int:
        """Levels 1x, 10x, 100x the tick apart, as the book groups; the axis recentres."""
        grouping = GROUPINGS[(GROUPINGS.index(self.grouping or 1) + 1) % len(GROUPINGS)]
        self.grouping = grouping
        self.recentre()
        return grouping

    def _place_cursor(self) -> None:
        if self.axis is not None and self.cursor is not None:
            row = self.axis.row_of(self.cursor)
            if row is not None:
                self.lines.place_cursor(row)
        self._update_titles()

    @on(BookLines.RowPicked, "#ladder-lines")
    def _row_picked(self, event: BookLines.RowPicked) -> None:
        """Up, down, page keys and clicks move the lines' own cursor: the ladder's cursor follows it."""
        event.stop()
        if self.axis is not None:
            self.cursor = self.axis.price(int(event.key[1:]))
            self._update_titles()

    def on_resize(self, event: Resize) -> None:
        rows = max(3, event.size.height - 3)  # borders and the column header
        if rows != self._rows:
            self._rows = rows
            if self.axis is not None:
                centre = self.cursor if self.cursor is not None else self.axis.price(self.axis.rows // 2)
                self.axis = LadderAxis(centre + (rows // 2) * self.axis.step, self.axis.step, rows)
                self._redraw()

    # ---- drawing --------------------------------------------------------------------------------

    def _redraw(self) -> None:
        self.dirty = True
        self.flush(tick=False)
        self._place_cursor()

    def _update_titles(self) -> None:
        market = self.state.market
        info = market.instruments.get(market.selected)
        tick = info.tick_size if info else None
        group = f" ×{self.grouping}" if self.grouping not in (None, 1) else ""
        sub = []
        if market.book.stale:
            sub.append("resyncing")
        mid = market.book.mid
        if self.axis is not None and mid is not None and not self.axis.bottom <= mid <= self.axis.top:
            sub.append(f"mid {'above' if mid > self.axis.top else 'below'} (c: recentre)")
        if self.cursor is not None:
            sub.append(f"cursor {fmt_price(self.cursor, tick)}")
        self.show_titles(f"Ladder {market.selected}{group}", " · ".join(sub))

    def refresh_state(self) -> None:
        market = self.state.market
        if market.selected != self._symbol or self.axis is None:
            self._symbol = market.selected
            self.grouping = None
            if not self.recentre():
                self.lines.set_rows([])
                self._update_titles()
                return
        axis = self.axis
        if axis is None:
            return
        book = market.book
        group = axis.step if self.grouping not in (None, 1) else None
        bids = book.levels("bids", axis.depth_for(book.best_bid), group) if book.loaded else []
        asks = book.levels("asks", axis.depth_for(book.best_ask), group) if book.loaded else []
        mine = [o for o in self.state.account.open_orders if o.instrument == market.selected]
        last = market.trades[0] if market.trades else None
        self.levels = ladder_levels(axis, bids, asks, mine, last)
        info = market.instruments.get(market.selected)
        tick, lot = (info.tick_size, info.lot_size) if info else (None, None)
        # the levels of the best prices, as they bucket (grouped, a best bid is on the level under it)
        best_bid = bucket(book.best_bid, axis.step, "bids") if book.best_bid is not None else None
        best_ask = bucket(book.best_ask, axis.step, "asks") if book.best_ask is not None else None
        rows = [(f"r{i}", self._row(level, tick, lot, best_bid, best_ask)) for i, level in enumerate(self.levels)]
        self.lines.set_rows(rows)
        self._place_cursor()

    def _row(
        self,
        level: LadderLevel,
        tick: Decimal | None,
        lot: Decimal | None,
        best_bid: Decimal | None,
        best_ask: Decimal | None,
    ) -> Row:
        c = self.colours
        stale = self.state.market.book.stale
        bid, ask = (c.stale, c.stale) if stale else (c.bid, c.ask)
        price = level.price
        if best_ask is not None and price >= best_ask:
            price_style = ask
        elif best_bid is not None and price <= best_bid:
            price_style = bid
        else:
            price_style = c.muted
        own = f"bold {c.accent}"
        count = f" ×{level.my_count}" if level.my_count > 1 else ""
        return (
            (fmt_size(level.my_bid, lot) + (count if level.my_bid else ""), own) if level.my_bid else _NONE,
            (fmt_size(level.bid, lot), bid) if level.bid else _NONE,
            (fmt_price(price, tick) + " ", f"bold {price_style}" if price in (best_bid, best_ask) else price_style),
            (fmt_size(level.ask, lot), ask) if level.ask else _NONE,
            (fmt_size(level.my_ask, lot) + (count if level.my_ask else ""), own) if level.my_ask else _NONE,
            (" ◀ " + fmt_size(level.last, lot), "bold") if level.last is not None else _NONE,
        )
