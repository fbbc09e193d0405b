"""The book heatmap: the selected instrument's book over the last minutes, time across (now at the right), price
down, the size resting in each price band as a shade (bids in the bid colour, asks in the ask colour), the trades
of each second over it (▲ a buyer took, ▼ a seller took), prices at the left, minutes along the bottom.

It draws when the history (``tui.feed.heatmap.DepthHistory``) takes a column, not on every book change: every
column moves one to the left each time, so each draw rewrites the picture, once a second (every five on a slow
link). The price axis follows the mid when it nears an edge; ``c`` recentres, ``g`` groups the bands, ``t`` shows a
column for 1, 2, 5 or 10 of the history's (more time on the screen, drawn as seldom).
"""

from __future__ import annotations

from array import array
from decimal import Decimal
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.app import ComposeResult
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from tui.feed.heatmap import DepthColumn, DepthHistory, HeatCell, heat_rows
from tui.feed.state import FeedState

from .display import fmt_price
from .pane import FeedPane

__all__ = ["EVERY", "GROUPINGS", "HeatmapPane", "HeatmapView"]

GROUPINGS = (1, 10, 100, 1000)
EVERY = (1, 2, 5, 10)  # history columns a shown column stands for (``t``)
AXIS = 12  # the price labels' width, and a tick mark
LABEL_EVERY = 4  # a price label every this many rows
SPAN_LEVELS = 8  # the grouping first chosen shows (at least) this many levels a side
EDGE = 0.15  # the axis recentres when the mid comes this close (a fraction of the rows) to its top or bottom


class HeatmapView(Widget):
    """Lines drawn once per column taken (``show``) and served as they are until the next."""

    DEFAULT_CSS = """
    HeatmapView {
        height: 1fr;
        background: $surface;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.strips: list[Strip] = []
        self._keys: list[tuple[str, ...]] = []

    def show(self, strips: list[Strip], keys: list[tuple[str, ...]]) -> None:
        """Show ``strips``, repainting only what changed: ``keys`` says what each cell of each line shows, and a
        line is repainted from its first changed cell to its last. The bands away from the book stay blank from
        one column to the next, and a band whose size held still looks the same moved one to the left."""
        old, self.strips, self._keys = self._keys, strips, keys
        if len(old) != len(keys):
            self.refresh()
            return
        width = self.size.width
        for y, (was, now) in enumerate(zip(old, keys, strict=True)):
            if was == now:
                continue
            if len(was) != len(now):
                self.refresh(Region(0, y, width, 1))
                continue
            changed = [x for x, (a, b) in enumerate(zip(was, now, strict=True)) if a != b]
            self.refresh(Region(changed[0], y, changed[-1] - changed[0] + 1, 1))

    def notify_style_update(self) -> None:
        super().notify_style_update()  # the theme changed: the lines are drawn again, whatever their keys
        self._keys = []

    def render_line(self, y: int) -> Strip:
        if y < len(self.strips):
            return self.strips[y]
        return Strip.blank(self.size.width, self.rich_style)


class HeatmapPane(FeedPane):
    """The heatmap of ``history`` (which the dashboard samples); it draws when a column was taken."""

    TOPICS: ClassVar[frozenset[str]] = frozenset()

    DEFAULT_CSS = """
    HeatmapPane {
        height: 1fr;
    }
    """

    def __init__(self, state: FeedState, history: DepthHistory, *, period_s: float, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.history = history
        self.period_s = period_s  # how often the history takes a column
        self.every = 1  # a column shown for every this many taken: a longer time a column, drawn as seldom
        self.grouping: int | None = None  # chosen from the book's spread of levels the first time
        self.top: Decimal | None = None
        self.step: Decimal | None = None
        self.rows = 0
        self.grid: list[list[HeatCell]] = []  # what was drawn last: rows of cells, oldest column first
        self._drawn = -1  # the history's sample count when last drawn
        self._symbol = ""

    def compose(self) -> ComposeResult:
        yield HeatmapView(id="heatmap-view")

    @property
    def view(self) -> HeatmapView:
        return self.query_one(HeatmapView)

    def flush(self, tick: bool = True) -> None:
        """Drawn when the history has a new column (or the size, the axis or the grouping changed)."""
        fresh = self.history.samples // self.every != self._drawn // self.every
        if (fresh or self.dirty) and self.is_mounted and self.display:
            self.dirty = False
            self._drawn = self.history.samples
            self.refresh_state()

    def on_resize(self) -> None:
        self.refit()

    # ---- the axis -------------------------------------------------------------------------------

    def _tick(self) -> Decimal | None:
        info = self.state.market.instruments.get(self.history.symbol)
        return info.tick_size if info is not None else None

    def _mid_now(self) -> float | None:
        """The book's mid now when it is of the history's instrument, else the latest column's; None before a
        column (the picture needs one)."""
        if not self.history.ring:
            return None
        book = self.state.market.book
        live = book.mid if book.symbol == self.history.symbol and book.loaded and not book.stale else None
        return float(live) if live is not None else _mid(self.history.ring[-1])

    def recentre(self) -> bool:
        """The price axis around the mid the book has now (the latest column's when the book is not of the history's
        instrument): a column can be seconds old (five with --low-bandwidth), and the heatmap opens on the price the
        trader sees. False when there is no column yet."""
        mid = self._mid_now()
        tick = self._tick()
        if mid is None or tick is None or self.rows < 1:
            return False
        if self.grouping is None:
            self.grouping = _grouping_for(self.history.ring[-1], tick, self.rows)
        step = tick * self.grouping
        centre = (Decimal(repr(mid)) / step).to_integral_value() * step
        self.step, self.top = step, centre + (self.rows // 2) * step
        self.dirty = True
        return True

    def cycle_every(self) -> float:
        """A column for 1, 2, 5 or 10 of the history's: a longer stretch of time on the screen, drawn as seldom
        (bytes to the terminal: each draw rewrites the lines that moved). The seconds a column now shows."""
        self.every = EVERY[(EVERY.index(self.every) + 1) % len(EVERY)] if self.every in EVERY else 1
        self.dirty = True
        self.flush()
        return self.every * self.period_s

    def cycle_grouping(self) -> int:
        self.grouping = GROUPINGS[(GROUPINGS.index(self.grouping or 1) + 1) % len(GROUPINGS)]
        self.recentre()
        self.flush()
        return self.grouping

    def _follow(self) -> None:
        """Recentre when the mid nears an edge (or the instrument or the size changed)."""
        symbol = self.history.symbol
        if symbol != self._symbol:
            self._symbol, self.grouping, self.top = symbol, None, None
        if self.top is None or self.step is None or not self.history.ring:
            self.recentre()
            return
        mid = self._mid_now()
        if mid is not None:
            row = (float(self.top) - mid) / float(self.step)
            if not EDGE * self.rows <= row <= (1 - EDGE) * self.rows:
                self.recentre()

    # ---- drawing --------------------------------------------------------------------------------

    def _update_titles(self) -> None:
        group = f" ×{self.grouping}" if self.grouping not in (None, 1) else ""
        every = f"a column every {self.every * self.period_s:g} s"
        kept = len(self.history.ring) * self.period_s / 60
        most = (self.history.ring.maxlen or 0) * self.period_s / 60
        sub = f"{every} · {kept:.1f} of {most:g} min kept · c recentre · g group · t time"
        self.show_titles(f"Heatmap {self.history.symbol or self.state.market.selected}{group}", sub)

    def refresh_state(self) -> None:
        width, height = self.view.size
        rows = max(0, height - 1)  # the time axis under the rows
        if rows != self.rows:
            self.rows, self.top = rows, None
        self._follow()
        self._update_titles()
        if self.top is None or self.step is None or width <= AXIS or rows < 1:
            self.view.show([], [])
            return
        columns = self._shown(width - AXIS)
        self.grid = heat_rows(columns, float(self.top), float(self.step), rows)
        pad = (" ",) * (width - AXIS - len(columns))
        keys = [(*self._label(y).rjust(AXIS), *pad, *(c.text + c.kind for c in row)) for y, row in enumerate(self.grid)]
        keys.append(tuple(self._time_axis(len(columns), width)))
        self.view.show(self._strips(columns, width), keys)

    def _label(self, y: int) -> str:
        """The price axis at row ``y``: a price every ``LABEL_EVERY`` rows."""
        assert self.top is not None and self.step is not None
        return fmt_price(self.top - y * self.step, self._tick()) + " ┤" if y % LABEL_EVERY == 0 else "│"

    def _shown(self, count: int) -> list[DepthColumn]:
        """The last ``count`` columns to show, oldest first: each the newest of ``every`` taken, with their trades."""
        newest_first = list(self.history.ring)[::-1][: count * self.every]
        if self.every == 1:
            return newest_first[::-1]
        shown = []
        for i in range(0, len(newest_first), self.every):
            chunk = newest_first[i : i + self.every]
            shown.append(chunk[0]._replace(trades=array("d", [v for c in chunk for v in c.trades])))
        return shown[::-1]

    def _strips(self, columns: list[DepthColumn], width: int) -> list[Strip]:
        c = self.colours
        base = self.view.rich_style
        styles = {
            "": base,
            "bid": base + Style(color=c.bid),
            "ask": base + Style(color=c.ask),
            "buy": base + Style(color=c.accent, bold=True),
            "sell": base + Style(color=c.accent, bold=True),
        }
        muted = base + Style(color=c.muted)
        pad = width - AXIS - len(columns)  # the history is shorter than the width: it fills from the right
        out = []
        for y, row in enumerate(self.grid):
            segments = [Segment(self._label(y).rjust(AXIS), muted), Segment(" " * pad, base)]
            run: list[str] = []
            kind = ""
            for cell in row:
                if cell.kind != kind and run:
                    segments.append(Segment("".join(run), styles[kind]))
                    run = []
                kind = cell.kind
                run.append(cell.text)
            if run:
                segments.append(Segment("".join(run), styles[kind]))
            out.append(Strip(segments).adjust_cell_length(width, base))
        out.append(Strip([Segment(self._time_axis(len(columns), width), muted)]).adjust_cell_length(width, base))
        return out

    def _time_axis(self, count: int, width: int) -> str:
        """Minutes back from now under the columns: ``-1m`` over the column a minute old, and so on."""
        line = [" "] * width
        per_minute = max(1, round(60 / (self.period_s * self.every)))
        for back in range(0, count, per_minute):
            text = f"-{back // per_minute}m" if back else "now"
            x = width - 1 - back - len(text) + 1
            if x > AXIS:
                line[x : x + len(text)] = text
        return "".join(line)


def _mid(column: DepthColumn) -> float | None:
    if column.bids and column.asks:
        return (column.bids[0] + column.asks[0]) / 2
    if column.bids or column.asks:
        return (column.bids or column.asks)[0]
    return None


def _grouping_for(column: DepthColumn, tick: Decimal, rows: int) -> int:
    """The finest grouping whose bands put the book's first ``SPAN_LEVELS`` levels a side within the rows."""
    near = 2 * SPAN_LEVELS
    lows = [column.bids[i] for i in range(0, min(near, len(column.bids)), 2)] or [_mid(column) or 0.0]
    highs = [column.asks[i] for i in range(0, min(near, len(column.asks)), 2)] or [_mid(column) or 0.0]
    span = max(highs) - min(lows)
    for grouping in GROUPINGS:
        if span / (float(tick) * grouping) <= rows - 2:
            return grouping
    return GROUPINGS[-1]
