"""The order book as a depth chart: cumulative bid size left of the mid, cumulative ask size right of it.

Each column is one price (``DepthCurve``): left of the mid, the bid size resting at that price or above it
(what a sell of that size would reach down to); right of it, the ask size at that price or below. Bids are
filled with ``█`` in ``$bid``, asks with ``▒`` in ``$ask``, so the two read apart in the monochrome theme;
the mid's column is a ``│``. A cursor (left/right while focused, or the mouse) names the price under it and
the cumulative size to that price on the last line.

Like ``BookLines``, it redraws only the lines whose content changed, from strips cached by content.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import ClassVar

import msgspec
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from .display import fmt_price, fmt_size
from .line_strips import LineStrips

__all__ = ["DEPTH_LEVELS", "DepthChart", "DepthColours", "DepthCurve", "depth_curve"]

DEPTH_LEVELS = 40  # levels of each side the chart spans
BID_FILL, ASK_FILL, MID_MARK, CURSOR_MARK = "█", "▒", "│", "┊"
Run = tuple[str, str]  # text, Rich style
Line = tuple[Run, ...]
Levels = Sequence[tuple[Decimal, Decimal]]  # (price, size), best first


class DepthCurve(msgspec.Struct, frozen=True):
    """Cumulative size at one price per column; ``sides`` says whose it is ("b", "a", or "" at the mid)."""

    low: Decimal
    high: Decimal
    mid: Decimal
    prices: tuple[Decimal, ...]
    sizes: tuple[Decimal, ...]
    sides: tuple[str, ...]

    @property
    def mid_column(self) -> int:
        return len(self.prices) // 2


def _cumulative(levels: Levels) -> list[Decimal]:
    out, total = [], Decimal(0)
    for _, size in levels:
        total += size
        out.append(total)
    return out


def depth_curve(bids: Levels, asks: Levels, width: int) -> DepthCurve | None:
    """The curve over ``width`` columns (made odd, so the mid has a column of its own), spanning the mid
    plus and minus the farther of the deepest bid and ask; None without both sides."""
    if not bids or not asks or width < 3:
        return None
    width -= 1 - width % 2
    mid = (bids[0][0] + asks[0][0]) / 2
    span = max(mid - bids[-1][0], asks[-1][0] - mid, (asks[0][0] - bids[0][0]) / 2)
    if span <= 0:
        return None
    bid_cum, ask_cum = _cumulative(bids), _cumulative(asks)
    centre = width // 2
    step = span / centre  # the edge columns are the mid plus and minus the span: each side's deepest level
    prices, sizes, sides = [], [], []
    for column in range(width):
        price = mid + (column - centre) * step
        if column < centre:  # the bids at this price or above it
            reached = sum(1 for p, _ in bids if p >= price)
            sizes.append(bid_cum[reached - 1] if reached else Decimal(0))
            sides.append("b")
        elif column > centre:  # the asks at this price or below it
            reached = sum(1 for p, _ in asks if p <= price)
            sizes.append(ask_cum[reached - 1] if reached else Decimal(0))
            sides.append("a")
        else:
            sizes.append(Decimal(0))
            sides.append("")
        prices.append(price)
    return DepthCurve(mid - span, mid + span, mid, tuple(prices), tuple(sizes), tuple(sides))


class DepthColours(msgspec.Struct, frozen=True):
    bid: str
    ask: str
    muted: str
    accent: str


class DepthChart(Widget, can_focus=True):
    """The depth chart of the levels ``show`` gives it; the cursor is a column (None: no cursor)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(-1)", "Cursor left", show=False),
        Binding("right", "cursor(1)", "Cursor right", show=False),
        Binding("shift+left", "cursor(-5)", "Cursor left 5", show=False),
        Binding("shift+right", "cursor(5)", "Cursor right 5", show=False),
        Binding("home", "cursor_mid", "Cursor to the mid", show=False),
    ]

    DEFAULT_CSS = """
    DepthChart {
        background: $surface;
        color: $foreground;
        &:focus {
            background-tint: $foreground 5%;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cursor: int | None = None
        self._book: tuple[Levels, Levels] = ((), ())
        self._tick: Decimal | None = None
        self._lot: Decimal | None = None
        self._colours = DepthColours("", "", "", "")
        self._curve: DepthCurve | None = None
        self._lines: list[Line] = []
        self._strips: LineStrips[tuple[Line, int]] = LineStrips()

    # ---- content --------------------------------------------------------------------------------

    def show(
        self, bids: Levels, asks: Levels, tick: Decimal | None, lot: Decimal | None, colours: DepthColours
    ) -> None:
        """Chart these levels (best first); only the lines that look different are drawn again."""
        self._book, self._tick, self._lot, self._colours = (bids, asks), tick, lot, colours
        self._redraw()

    @property
    def curve(self) -> DepthCurve | None:
        return self._curve

    def readout(self) -> str:
        """What the last line says: the price under the cursor and the size to it, or both sides' totals."""
        curve = self._curve
        if curve is None:
            return "no book"
        if self.cursor is None:
            bids = max((s for s, side in zip(curve.sizes, curve.sides, strict=True) if side == "b"), default=0)
            asks = max((s for s, side in zip(curve.sizes, curve.sides, strict=True) if side == "a"), default=0)
            return f"Σ bids {fmt_size(Decimal(bids), self._lot)} · Σ asks {fmt_size(Decimal(asks), self._lot)}"
        price, size, side = curve.prices[self.cursor], curve.sizes[self.cursor], curve.sides[self.cursor]
        if not side:
            return f"◆ mid {fmt_price(curve.mid, self._fine_tick())}"
        whose = "bids ≥" if side == "b" else "asks ≤"
        return f"◆ {fmt_price(price, self._tick)}  Σ {whose} it {fmt_size(size, self._lot)}"

    def _fine_tick(self) -> Decimal:
        return (self._tick or Decimal("0.01")) / 10

    def _redraw(self) -> None:
        width, height = self.size.width, self.size.height
        self._curve = depth_curve(*self._book, width) if width and height else None
        if self._curve is not None and self.cursor is not None:
            self.cursor = min(self.cursor, len(self._curve.prices) - 1)
        new = self._draw_lines(width, height)
        if len(new) != len(self._lines):
            self._lines = new
            self.refresh()
            return
        for y, (old, line) in enumerate(zip(self._lines, new, strict=True)):
            if old != line:
                self.refresh(Region(0, y, width, 1))
        self._lines = new

    def _draw_lines(self, width: int, height: int) -> list[Line]:
        curve, c = self._curve, self._colours
        if curve is None or height < 3:
            return [(("no book" if y == 0 else "", c.muted),) for y in range(height)]
        low, high = fmt_price(curve.low, self._tick), fmt_price(curve.high, self._tick)
        mid = f"mid {fmt_price(curve.mid, self._fine_tick())}"
        gap = max(1, width - len(low) - len(high) - len(mid))
        left, right = " " * (gap // 2), " " * (gap - gap // 2)
        header: Line = ((low, c.bid), (left, ""), (mid, "bold"), (right, ""), (high, c.ask))
        rows = height - 2
        scale = max(curve.sizes) or Decimal(1)
        filled = [0 if s <= 0 else max(1, round(s / scale * rows)) for s in curve.sizes]
        lines = [header]
        for y in range(rows):
            lines.append(self._row(curve, filled, rows - y))
        lines.append(((self.readout(), c.accent if self.cursor is not None else c.muted),))
        return lines

    def _row(self, curve: DepthCurve, filled: list[int], level: int) -> Line:
        """One line of the chart, ``level`` rows above the bottom (1: the bottom line), as runs of one style."""
        c = self._colours
        runs: list[Run] = []
        for column, (side, height) in enumerate(zip(curve.sides, filled, strict=True)):
            if height >= level:
                cell = (BID_FILL, c.bid) if side == "b" else (ASK_FILL, c.ask)
                if column == self.cursor:
                    cell = (cell[0], f"{cell[1]} reverse")
            elif column == self.cursor:
                cell = (CURSOR_MARK, c.accent)
            elif not side:
                cell = (MID_MARK, c.muted)
            else:
                cell = (" ", "")
            if runs and runs[-1][1] == cell[1]:
                runs[-1] = (runs[-1][0] + cell[0], cell[1])
            else:
                runs.append(cell)
        return tuple(runs)

    # ---- the cursor and the mouse ---------------------------------------------------------------

    def set_cursor(self, column: int | None) -> None:
        if self._curve is not None and column is not None:
            column = max(0, min(column, len(self._curve.prices) - 1))
        if column != self.cursor:
            self.cursor = column
            self._redraw()

    def action_cursor(self, step: int) -> None:
        if self._curve is None:
            return
        start = self._curve.mid_column if self.cursor is None else self.cursor
        self.set_cursor(start + step)

    def action_cursor_mid(self) -> None:
        if self._curve is not None:
            self.set_cursor(self._curve.mid_column)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and self._curve is not None and offset.x < len(self._curve.prices):
            self.set_cursor(offset.x)

    def on_resize(self, _event: events.Resize) -> None:
        self._redraw()

    # ---- drawing --------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y >= len(self._lines):
            return Strip.blank(width, self.rich_style)
        line = self._lines[y]
        return self._strips.drawn((line, width), lambda: self._draw(line, width), self.size.height)

    def _draw(self, line: Line, width: int) -> Strip:
        base = self.rich_style
        get_style = self.app.console.get_style
        null = Style.null()
        segments = [Segment(text, base + get_style(style, default=null) if style else base) for text, style in line]
        return Strip(segments).adjust_cell_length(width, base).simplify()
