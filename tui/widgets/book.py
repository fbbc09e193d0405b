"""Order book: asks above, bids below, cumulative size with depth bars, spread and mid between.

Rows are fixed slots (``a0`` is the best ask, ``b0`` the best bid) updated cell by cell, so the cursor
stays on its slot. Moving the cursor (or clicking) while the book has focus picks that price for the next
order form. Prices group to 1x, 10x or 100x the tick.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.events import Resize
from textual.widgets import DataTable

from tui.messages import PricePicked

from .display import fmt_pct, fmt_price, fmt_size
from .pane import FeedPane
from .table_rows import TableRows

__all__ = ["GROUPINGS", "OrderBookPane", "depth_bar"]

GROUPINGS = (1, 10, 100)
BAR_WIDTH = 12
COLUMNS = (("price", "Price", 11), ("size", "Size", 10), ("total", "Total", 10))  # then the depth bar
_EIGHTHS = " ▏▎▍▌▋▊▉"


def depth_bar(value: Decimal, scale: Decimal, width: int = BAR_WIDTH) -> str:
    """A bar of block characters ``value / scale`` of ``width`` long, in eighths of a cell."""
    if scale <= 0 or value <= 0:
        return ""
    eighths = int(min(Decimal(1), value / scale) * width * 8)
    full, part = divmod(max(1, eighths), 8)
    return "█" * full + (_EIGHTHS[part] if part else "")


class OrderBookPane(FeedPane):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"book", "markets"})

    DEFAULT_CSS = """
    OrderBookPane > DataTable {
        scrollbar-size-vertical: 0;
        overflow-x: hidden;
    }
    """

    def __init__(self, state: Any, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.depth = 10
        self.grouping = 1
        self.picked: Decimal | None = None
        self._prices: dict[str, Decimal] = {}
        self._rows: TableRows | None = None
        self._symbol = ""
        self._bar_width = BAR_WIDTH
        self._armed = False  # cursor moves pick prices only once the user has the book focused

    def compose(self) -> ComposeResult:
        yield DataTable(cursor_type="row", show_cursor=False, cell_padding=0, id="book-table")

    def on_mount(self) -> None:
        super().on_mount()
        self._build_columns()

    def _build_columns(self) -> None:
        table = self.table
        table.clear(columns=True)
        for key, label, width in COLUMNS:
            table.add_column(Text(label, justify="right"), width=width, key=key)
        table.add_column(Text(""), width=self._bar_width + 1, key="depth")
        self._rows = TableRows(table, [*(c[0] for c in COLUMNS), "depth"])
        self.dirty = True

    @property
    def table(self) -> DataTable[Any]:
        return self.query_one("#book-table", DataTable)

    def on_resize(self, event: Resize) -> None:
        depth = max(2, (event.size.height - 4) // 2)  # borders, header and the spread row
        bar = max(4, event.size.width - 2 - sum(c[2] for c in COLUMNS) - 1)
        if bar != self._bar_width:
            self._bar_width = bar
            self.depth = depth
            self._build_columns()
        elif depth != self.depth:
            self.depth = depth
            self.restyle()
            self.dirty = True
        self.flush()

    def restyle(self) -> None:
        if self._rows is not None:
            self._rows.forget()

    # ---- grouping and picking --------------------------------------------------------------------

    def cycle_grouping(self) -> int:
        self.grouping = GROUPINGS[(GROUPINGS.index(self.grouping) + 1) % len(GROUPINGS)]
        self.dirty = True
        self.flush()
        return self.grouping

    def clear_pick(self) -> None:
        self.picked = None
        self._update_titles()

    def on_descendant_focus(self) -> None:
        """Focus shows the cursor on the spread row; moving it from there picks prices."""
        table = self.table
        table.show_cursor = True
        self._armed = False
        if "spread" in (self._rows.keys if self._rows else []):
            table.move_cursor(row=table.get_row_index("spread"), animate=False)
        self.call_after_refresh(self._arm)

    def _arm(self) -> None:
        self._armed = True

    def on_descendant_blur(self) -> None:
        self.table.show_cursor = False
        self._armed = False

    @on(DataTable.RowHighlighted, "#book-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if self._armed and self.table.has_focus and event.row_key.value is not None:
            self._pick(str(event.row_key.value))

    @on(DataTable.RowSelected, "#book-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self._pick(str(event.row_key.value))

    def _pick(self, key: str) -> None:
        price = self._prices.get(key)
        if price is not None:
            self.picked = price
            self._update_titles()
            self.post_message(PricePicked(price))

    def pick_slot(self, key: str) -> Decimal | None:
        """Pick the price in slot ``key`` (``a0`` best ask, ``b0`` best bid...); what was picked."""
        self._pick(key)
        return self._prices.get(key)

    # ---- rendering ------------------------------------------------------------------------------

    def _group(self) -> Decimal | None:
        info = self.state.market.instruments.get(self.state.market.selected)
        if info is None or self.grouping == 1:
            return None
        return info.tick_size * self.grouping

    def _update_titles(self) -> None:
        market = self.state.market
        group = f" ×{self.grouping}" if self.grouping != 1 else ""
        self.border_title = f"Book {market.selected}{group}"
        sub = []
        if market.book.stale:
            sub.append("resyncing")
        if self.picked is not None:
            info = market.instruments.get(market.selected)
            sub.append(f"picked {fmt_price(self.picked, info.tick_size if info else None)}")
        self.border_subtitle = " · ".join(sub)

    def refresh_state(self) -> None:
        if self._rows is None:
            return
        market = self.state.market
        if market.selected != self._symbol:
            self._symbol = market.selected
            self.picked = None
            self._rows.forget()
        book = market.book
        info = market.instruments.get(market.selected)
        tick = info.tick_size if info else None
        lot = info.lot_size if info else None
        group = self._group()
        asks = book.levels("asks", self.depth, group) if book.loaded else []
        bids = book.levels("bids", self.depth, group) if book.loaded else []
        ask_cum = _cumulative(asks)
        bid_cum = _cumulative(bids)
        scale = max([*ask_cum[-1:], *bid_cum[-1:], Decimal(0)])
        c = self.colours
        stale = book.stale
        rows: list[tuple[str, list[str | Text]]] = []
        self._prices = {}
        for i in reversed(range(self.depth)):
            rows.append(self._level("a", i, asks, ask_cum, scale, c.stale if stale else c.ask, tick, lot))
        rows.append(("spread", self._spread_cells(book.spread, book.mid, tick)))
        for i in range(self.depth):
            rows.append(self._level("b", i, bids, bid_cum, scale, c.stale if stale else c.bid, tick, lot))
        self._rows.sync(rows)
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
    ) -> tuple[str, list[str | Text]]:
        key = f"{side}{i}"
        if i >= len(levels):
            return key, [Text(""), Text(""), Text(""), Text("")]
        price, size = levels[i]
        self._prices[key] = price
        return key, [
            Text(fmt_price(price, tick), style=colour, justify="right"),
            Text(fmt_size(size, lot), justify="right"),
            Text(fmt_size(cum[i], lot), justify="right"),
            Text(" " + depth_bar(cum[i], scale, self._bar_width), style=colour),
        ]

    def _spread_cells(self, spread: Decimal | None, mid: Decimal | None, tick: Decimal | None) -> list[str | Text]:
        muted = self.colours.muted
        if spread is None or mid is None or not mid:
            return [Text("—", justify="right"), Text(""), Text(""), Text("")]
        return [
            Text(fmt_price(mid, (tick or Decimal("0.01")) / 10), style="bold", justify="right"),
            Text("spread", style=muted, justify="right"),
            Text(fmt_price(spread, tick), style=muted, justify="right"),
            Text(" " + fmt_pct(spread / mid, places=3, signed=False), style=muted),
        ]


def _cumulative(levels: list[tuple[Decimal, Decimal]]) -> list[Decimal]:
    out: list[Decimal] = []
    total = Decimal(0)
    for _, size in levels:
        total += size
        out.append(total)
    return out
