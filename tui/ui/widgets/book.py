"""Order book: asks above, bids below, cumulative size with depth bars, spread and mid between.

Rows are fixed slots (``a0`` is the best ask, ``b0`` the best bid), so the cursor stays on its slot.
Moving the cursor (or clicking) while the book has focus picks that price for the next order form.
Prices group to 1x, 10x or 100x the tick. The rows are drawn by ``BookLines``, which redraws only the
lines whose text changed. ``d`` shows the book as a depth chart instead (``DepthChart``), and back.
"""

from __future__ import annotations

from decimal import Decimal
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.events import Resize

from tui.feed.state import BookState, FeedState
from tui.ui.messages import PricePicked

from .book_lines import BookLines, Column, Row
from .depth_chart import DEPTH_LEVELS, DepthChart, DepthColours
from .display import fmt_pct, fmt_price, fmt_size
from .pane import FeedPane

__all__ = ["GROUPINGS", "OrderBookPane", "depth_bar"]

GROUPINGS = (1, 10, 100)
BAR_WIDTH = 12
COLUMNS = (Column("Price", 11), Column("Size", 10), Column("Total", 10))  # then the depth bar
_EIGHTHS = " ▏▎▍▌▋▊▉"
_BLANK: Row = (("", ""), ("", ""), ("", ""), ("", ""))


def depth_bar(value: Decimal, scale: Decimal, width: int = BAR_WIDTH) -> str:
    """A bar of block characters ``value / scale`` of ``width`` long, in eighths of a cell."""
    if scale <= 0 or value <= 0:
        return ""
    eighths = int(min(Decimal(1), value / scale) * width * 8)
    full, part = divmod(max(1, eighths), 8)
    return "█" * full + (_EIGHTHS[part] if part else "")


def _columns(bar_width: int) -> tuple[Column, ...]:
    return (*COLUMNS, Column("", bar_width + 1, right=False))


class OrderBookPane(FeedPane):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"book", "markets"})
    AGE_TOPIC: ClassVar[str | None] = "book"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "toggle_depth", "Depth", id="book_depth",
                tooltip="The order book as a depth chart (cumulative size by price; ←/→ or mouse: a price) or back"),
    ]  # fmt: skip

    DEFAULT_CSS = """
    OrderBookPane > BookLines, OrderBookPane > DepthChart {
        height: 1fr;
        scrollbar-size-vertical: 0;
        overflow-x: hidden;
    }
    OrderBookPane > DepthChart, OrderBookPane.-depth > BookLines {
        display: none;
    }
    OrderBookPane.-depth > DepthChart {
        display: block;
    }
    """

    def __init__(self, state: FeedState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.depth = 10
        self.grouping = 1
        self.picked: Decimal | None = None
        self._prices: dict[str, Decimal] = {}
        self._symbol = ""
        self._bar_width = BAR_WIDTH
        self.bars = True  # depth bars; off on a slow link (--low-bandwidth): they change with every size

    def compose(self) -> ComposeResult:
        yield BookLines(_columns(self._bar_width), home="spread", id="book-table")
        yield DepthChart(id="book-depth")

    @property
    def lines(self) -> BookLines:
        return self.query_one("#book-table", BookLines)

    @property
    def chart(self) -> DepthChart:
        return self.query_one("#book-depth", DepthChart)

    @property
    def depth_shown(self) -> bool:
        return self.has_class("-depth")

    @property
    def view(self) -> BookLines | DepthChart:
        """What shows the book now (the ladder or the depth chart): what focus goes to."""
        return self.chart if self.depth_shown else self.lines

    def action_toggle_depth(self) -> None:
        """The ladder or the depth chart: focus follows when it was on the other one."""
        had_focus = self.lines.has_focus or self.chart.has_focus
        self.set_class(not self.depth_shown, "-depth")
        self.dirty = True
        self.flush()
        if had_focus:
            self.view.focus()

    def on_resize(self, event: Resize) -> None:
        depth = max(2, (event.size.height - 4) // 2)  # borders, header and the spread row
        bar = max(4, event.size.width - 2 - sum(c.width for c in COLUMNS) - 1)
        if bar != self._bar_width:
            self._bar_width = bar
            self.lines.columns = _columns(bar)
            self.dirty = True
        if depth != self.depth:
            self.depth = depth
            self.dirty = True
        self.flush()

    # ---- grouping and picking --------------------------------------------------------------------

    def cycle_grouping(self) -> int:
        self.grouping = GROUPINGS[(GROUPINGS.index(self.grouping) + 1) % len(GROUPINGS)]
        self.dirty = True
        self.flush()
        return self.grouping

    @on(BookLines.RowPicked, "#book-table")
    def _row_picked(self, event: BookLines.RowPicked) -> None:
        event.stop()
        self._pick(event.key)

    def _pick(self, key: str) -> None:
        price = self._prices.get(key)
        if price is not None:
            self.picked = price
            self._update_titles()
            self.post_message(PricePicked(price))

    # ---- rendering ------------------------------------------------------------------------------

    def _group(self) -> Decimal | None:
        info = self.state.market.instruments.get(self.state.market.selected)
        if info is None or self.grouping == 1:
            return None
        return info.tick_size * self.grouping

    def _update_titles(self) -> None:
        market = self.state.market
        group = f" ×{self.grouping}" if self.grouping != 1 else ""
        sub = []
        if market.book.stale:
            sub.append("resyncing")
        if self.picked is not None:
            info = market.instruments.get(market.selected)
            sub.append(f"picked {fmt_price(self.picked, info.tick_size if info else None)}")
        depth = " depth" if self.depth_shown else ""
        self.show_titles(f"Book {market.selected}{group}{depth}", " · ".join(sub))

    def refresh_state(self) -> None:
        market = self.state.market
        if market.selected != self._symbol:
            self._symbol = market.selected
            self.picked = None
        book = market.book
        info = market.instruments.get(market.selected)
        tick = info.tick_size if info else None
        lot = info.lot_size if info else None
        group = self._group()
        if self.depth_shown:
            self._show_depth(book, tick, lot, group)
            return
        asks = book.levels("asks", self.depth, group) if book.loaded else []
        bids = book.levels("bids", self.depth, group) if book.loaded else []
        ask_cum = _cumulative(asks)
        bid_cum = _cumulative(bids)
        scale = max([*ask_cum[-1:], *bid_cum[-1:], Decimal(0)])
        c = self.colours
        stale = book.stale
        rows: list[tuple[str, Row]] = []
        self._prices = {}
        for i in reversed(range(self.depth)):
            rows.append(self._level("a", i, asks, ask_cum, scale, c.stale if stale else c.ask, tick, lot))
        rows.append(("spread", self._spread_cells(book.spread, book.mid, tick)))
        for i in range(self.depth):
            rows.append(self._level("b", i, bids, bid_cum, scale, c.stale if stale else c.bid, tick, lot))
        self.lines.set_rows(rows)
        self._update_titles()

    def _show_depth(self, book: BookState, tick: Decimal | None, lot: Decimal | None, group: Decimal | None) -> None:
        c = self.colours
        bid, ask = (c.stale, c.stale) if book.stale else (c.bid, c.ask)
        bids = book.levels("bids", DEPTH_LEVELS, group) if book.loaded else []
        asks = book.levels("asks", DEPTH_LEVELS, group) if book.loaded else []
        self.chart.show(bids, asks, tick, lot, DepthColours(bid, ask, c.muted, c.accent))
        self._update_titles()

    def _level(
        self,
        side: str,
        i: int,
        levels: list[tuple[Decimal, Decimal]],
        cum: list[Decimal],
        scale: Decimal,
        colour: str,
        tick: Decimal | None,
        lot: Decimal | None,
    ) -> tuple[str, Row]:
        key = f"{side}{i}"
        if i >= len(levels):
            return key, _BLANK
        price, size = levels[i]
        self._prices[key] = price
        return key, (
            (fmt_price(price, tick), colour),
            (fmt_size(size, lot), ""),
            (fmt_size(cum[i], lot), ""),
            (" " + depth_bar(cum[i], scale, self._bar_width) if self.bars else "", colour),
        )

    def _spread_cells(self, spread: Decimal | None, mid: Decimal | None, tick: Decimal | None) -> Row:
        muted = self.colours.muted
        if spread is None or mid is None or not mid:
            return ("—", ""), ("", ""), ("", ""), ("", "")
        return (
            (fmt_price(mid, (tick or Decimal("0.01")) / 10), "bold"),
            ("spread", muted),
            (fmt_price(spread, tick), muted),
            (" " + fmt_pct(spread / mid, places=3, signed=False), muted),
        )


def _cumulative(levels: list[tuple[Decimal, Decimal]]) -> list[Decimal]:
    out: list[Decimal] = []
    total = Decimal(0)
    for _, size in levels:
        total += size
        out.append(total)
    return out
