"""What every live pane shares: the feed state it reads, the topics it follows, and a dirty flag.

The screen tells a pane which topics changed; the pane re-reads the state when the screen next draws (on
the feed's coalesced news, as the terminal's byte budget allows), never once per WebSocket frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content, Span
from textual.dom import NoScreen
from textual.events import Resize
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import DataTable, Static

from tui.feed.state import FeedState
from tui.ui.render.cell_table import CellTable

from .palette import Palette
from .table_rows import Cell, TableRows

__all__ = ["FeedLine", "FeedPane", "TablePane"]


class FollowsFeed:
    """The refresh contract of live widgets: the screen marks the topics that changed, and on its next
    tick ``flush`` re-reads the state (``refresh_state``) of the widgets that follow one of them."""

    TOPICS: ClassVar[frozenset[str]] = frozenset()
    AGE_TOPIC: ClassVar[str | None] = None  # its data's topic: dimmed when old while the connection is down
    # redraw on at most every PACE-th refresh tick: an overview need not keep the book's pace, and every
    # redraw of changing figures is bytes to the terminal (issue 14)
    PACE: ClassVar[int] = 1
    # or at most once in PACE_S seconds, whatever the tick (``set_tick``): figures that move with every mark
    PACE_S: ClassVar[float | None] = None
    _ticks_since_drawn: int = 1 << 30
    _tick_s: float = 0.1
    _stretch: float = 1.0
    dirty: bool
    is_mounted: bool
    display: bool

    def feed_changed(self, topics: frozenset[str]) -> None:
        if topics & self.TOPICS:
            self.dirty = True

    def set_tick(self, tick_s: float, stretch: float = 1.0) -> None:
        """The screen's refresh tick comes every ``tick_s`` seconds (``PACE_S`` is counted in ticks); ``stretch``
        lengthens ``PACE_S`` (a slow link: the figures that move with every mark redraw half as often)."""
        self._tick_s = tick_s
        self._stretch = stretch

    def pace(self) -> int:
        """How many refresh ticks at least between two redraws (``PACE``; a pane may hurry for a while)."""
        return self.PACE if self.PACE_S is None else max(1, round(self.PACE_S * self._stretch / self._tick_s))

    def redraw_soon(self) -> None:
        """Redraw on the next tick whatever the pace: the user changed what it shows."""
        self.dirty = True
        self._ticks_since_drawn = self.pace()

    def refit(self) -> None:
        """Its size changed: read the state into it now, whatever its pace and the byte budget. A resize repaints
        the whole screen anyway; waiting for the pace (and the budget the repaint spent) left a line cut at the
        edge for up to 3 s."""
        self.dirty = True
        self._ticks_since_drawn = self.pace()
        self.flush(tick=False)

    def count_tick(self) -> None:
        """A refresh tick passed with no redraw (the byte budget was spent): it still counts for the pace."""
        self._ticks_since_drawn += 1

    def flush(self, tick: bool = True) -> None:
        """Re-read the state if it changed since the last time (and the widget is shown), at its pace: a paced
        pane counts the screen's refresh ticks (``tick``), not the flushes news brings at once."""
        if tick:
            self._ticks_since_drawn += 1
        pace = self.pace()
        if self.dirty and self.is_mounted and self.display and (pace <= 1 or self._ticks_since_drawn >= pace):
            self.dirty = False
            self._ticks_since_drawn = 0
            self.refresh_state()

    def refresh_state(self) -> None:
        """Read ``self.state`` into the widget; every subclass overrides it."""


class FeedPane(FollowsFeed, Vertical):
    """A bordered pane showing part of ``state``; subclasses implement ``refresh_state``."""

    DEFAULT_CSS = """
    FeedPane {
        border: round $foreground 30%;
        border-title-color: $foreground;
        border-subtitle-color: $foreground-muted;
        height: 1fr;
        padding: 0;
    }
    FeedPane:focus-within {
        border: round $primary;
    }
    FeedPane.-stale > * {
        text-opacity: 55%;  /* the connection is down and these values are older than STALE_AFTER_S */
    }
    FeedPane > DataTable {
        height: 1fr;
        background: $surface;
        scrollbar-size-vertical: 1;
    }
    """
    ALLOW_MAXIMIZE = True  # z: the pane fills the screen (the dashboard's zoom_pane)

    def __init__(self, state: FeedState, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.state = state
        self.dirty = True
        self.palette: Palette | None = None
        self._titles: tuple[str | None, str | None] = (None, None)

    def on_mount(self) -> None:
        self.palette = Palette.of(self.app)
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, _theme: object) -> None:
        self.palette = Palette.of(self.app)
        self.restyle()
        self.dirty = True

    def restyle(self) -> None:
        """The theme changed: forget cached styled text so the next refresh rebuilds it."""

    def offers(self, action: str) -> bool:
        """Whether the screen offers ``action`` now (watch-only and read-only offer no trading keys), so a
        pane names only keys that do something."""
        try:
            return self.screen.check_action(action, ()) is not False
        except NoScreen:  # not on a screen yet
            return True

    def show_titles(self, title: str | None = None, subtitle: str | None = None) -> None:
        """Set the border's title and subtitle (None: leave it) only if it changed.

        Setting either repaints the whole pane, every widget inside it included: on each book change
        that was most of a frame's cost.
        """
        if title is not None and title != self._titles[0]:
            self._titles = (title, self._titles[1])
            self.border_title = title
        if subtitle is not None and subtitle != self._titles[1]:
            self._titles = (self._titles[0], subtitle)
            self.border_subtitle = subtitle

    @property
    def colours(self) -> Palette:
        if self.palette is None:
            self.palette = Palette.of(self.app)
        return self.palette

    def render_lines(self, crop: Region) -> list[Strip]:
        """The pane's own lines, under its children: its border, and between the top and the bottom one line
        drawn once and repeated. Textual would keep each of those alike lines, and every cut of it the screen
        made, for as long as the pane shows (~100 strips a pane)."""
        top, _, bottom, _ = self.styles.gutter
        inside = range(top, self.outer_size.height - bottom)
        if len(inside) < 2:
            return super().render_lines(crop)
        x, _, width, _ = crop
        middle: Strip | None = None
        lines: list[Strip] = []
        for y in crop.line_range:
            if y not in inside:
                lines += super().render_lines(Region(x, y, width, 1))
                continue
            if middle is None:
                middle = super().render_lines(Region(x, top, width, 1))[0]
            lines.append(middle)
        return lines


class TablePane(FeedPane):
    """A pane whose records are rows of one DataTable, kept by key and updated in place (``TableRows``).

    Subclasses give ``COLUMNS`` and a row's cells for all of them. A column is as wide as its widest cell
    (its label included) and at most the width ``COLUMNS`` gives it: a longer cell is cut with ``…``, so a
    figure never runs into its neighbour, and one space separates every two columns. When the pane is too
    narrow for every column, it shows those it has room for, taken in ``PRIORITY`` order (laid out in
    ``COLUMNS`` order). Widths are the widest seen since the last resize, so a figure that grows by a digit
    and shrinks back does not make columns come and go.
    """

    DEFAULT_CSS = """
    TablePane > DataTable {
        overflow-x: hidden;  /* the columns are fitted to the width: a scrollbar could only flash while laying out */
    }
    """

    TABLE_ID: ClassVar[str] = ""
    COLUMNS: ClassVar[Sequence[tuple[str, str, int]]] = ()  # (key, label, widest allowed)
    PRIORITY: ClassVar[Sequence[str]] = ()  # column keys, most wanted first; empty: all columns, always
    LEFT: ClassVar[frozenset[str]] = frozenset()  # columns aligned left; the others are figures, aligned right
    GAP: ClassVar[int] = 1  # spaces between two columns

    def __init__(self, state: FeedState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.rows: TableRows | None = None  # once the columns are set
        self.columns: tuple[str, ...] = ()  # the keys of the columns shown
        self._pick: list[int] | None = None  # where they are in COLUMNS (None: all of them)
        self._widest: dict[str, int] = {}  # each column's widest cell since the last resize, label included
        self._laid: tuple[tuple[str, int], ...] = ()  # (key, width) of the columns as laid out
        self._cursor_to: str | None = None  # the row to put the cursor back on after a new layout
        self._shown_rows: Sequence[tuple[str, Sequence[Cell]]] = ()  # what ``sync`` last showed, every column

    def compose(self) -> ComposeResult:
        yield self.make_table()

    def on_mount(self) -> None:
        super().on_mount()
        self.set_columns(self.COLUMNS)

    def on_resize(self, _event: Resize) -> None:
        # measured again from the rows shown: the columns fit them at once (the first resize comes after the
        # first rows; columns back at their labels' widths until the next refresh drew a squeezed table and
        # cost another layout of the screen)
        self._widest = {}
        self._measure(self._shown_rows)
        self.call_after_refresh(self._fit)  # once the table has its new size too

    def _fit(self, row_count: int | None = None) -> None:
        """Show the columns there is room for: the pane's width, less a column for the vertical
        scrollbar when the rows overflow (a cut-off figure would be a wrong figure)."""
        if self.rows is None:  # no columns set yet (they are as the pane mounts)
            return
        table = self.table
        if self.size.width <= 0:  # not laid out yet: the columns shown, as wide as their cells (the first
            wanted = [c for c in self.COLUMNS if c[0] in self.columns]  # resize fits them to the width)
        else:
            rows = table.row_count if row_count is None else row_count
            width = self.size.width - (1 if rows > table.size.height - 1 else 0)  # the header takes a line
            wanted = self.fitting(width)
        if self._layout(wanted) != self._laid:
            self.set_columns(wanted)

    def _layout(self, columns: Sequence[tuple[str, str, int]]) -> tuple[tuple[str, int], ...]:
        return tuple(
            (key, self.column_width(key, label, cap) + (self.GAP if i else 0))
            for i, (key, label, cap) in enumerate(columns)
        )

    def column_width(self, key: str, label: str, cap: int) -> int:
        """How wide column ``key`` is drawn, without the gap: its widest cell so far, at most ``cap``."""
        return min(cap, max(len(label), self._widest.get(key, 0)))

    def fitting(self, width: int) -> list[tuple[str, str, int]]:
        """The columns shown in ``width`` characters: by priority while they fit, in their order (the
        first by priority even if it does not fit: a table needs a column)."""
        need = {key: self.column_width(key, label, cap) + self.GAP for key, label, cap in self.COLUMNS}
        width += self.GAP  # the first column shown has no gap before it
        if not self.PRIORITY or sum(need.values()) <= width:
            return list(self.COLUMNS)
        kept: set[str] = set()
        for key in self.PRIORITY:
            if need[key] <= width:
                kept.add(key)
                width -= need[key]
        return [c for c in self.COLUMNS if c[0] in kept or (not kept and c[0] == self.PRIORITY[0])]

    def make_table(self) -> DataTable[Any]:
        return CellTable(cursor_type="row", cell_padding=0, id=self.TABLE_ID)

    @property
    def table(self) -> DataTable[Any]:
        return self.query_one(f"#{self.TABLE_ID}", DataTable)

    def set_columns(self, columns: Sequence[tuple[str, str, int]]) -> None:
        """Lay the table out with ``columns`` (of ``COLUMNS``), with the rows it showed: the next redraw may wait
        seconds for the byte budget (after a resize, which writes the whole screen), and the table stood empty.

        Each column is as wide as its widest cell so far (``column_width``) and the gap before it;
        ``sync`` cuts a cell to its column's widest allowed and puts the gap before it. The cursor goes
        back to its row once the rows are back.
        """
        table = self.table
        self._cursor_to = self.cursor_key() or self._cursor_to
        table.clear(columns=True)
        self._laid = self._layout(columns)
        for i, ((key, label, _cap), (_, width)) in enumerate(zip(columns, self._laid, strict=True)):
            text = Text(" " * (self.GAP if i else 0) + label, justify="left" if key in self.LEFT else "right")
            table.add_column(text, width=width, key=key)
        self.columns = tuple(key for key, _, _ in columns)
        every = [key for key, _, _ in self.COLUMNS]
        self._pick = None if list(self.columns) == every else [every.index(key) for key in self.columns]
        self.rows = TableRows(table, self.columns)
        self.dirty = True
        if self._shown_rows:
            self.sync(self._shown_rows)

    def sync(self, rows: Sequence[tuple[str, Sequence[Cell]]]) -> bool:
        """Show ``rows`` (key, a cell per column of ``COLUMNS``); True when rows were added."""
        if self.rows is None:
            return False
        self._shown_rows = rows
        if self._measure(rows) or len(rows) != len(self.rows.cells):
            self._fit(len(rows))  # wider cells, or the vertical scrollbar may come or go
        pick = self._pick if self._pick is not None else range(len(self.COLUMNS))
        caps = [self.COLUMNS[i][2] for i in pick]
        shown = [
            (
                key,
                [
                    _fitted(cells[i], cap, self.GAP if n else 0)
                    for n, (i, cap) in enumerate(zip(pick, caps, strict=True))
                ],
            )
            for key, cells in rows
        ]
        added = self.rows.sync(shown)
        if self._cursor_to is not None and added:
            self._put_cursor(self._cursor_to)
        return added

    def _put_cursor(self, key: str) -> None:
        self._cursor_to = None
        keys = self.rows.keys if self.rows is not None else []
        if key in keys:
            self.table.move_cursor(row=self.table.get_row_index(key), animate=False)

    def _measure(self, rows: Sequence[tuple[str, Sequence[Cell]]]) -> bool:
        """Note each column's widest cell; True when a column shown grew past what the layout was made for."""
        grew = False
        widest = self._widest
        for n, (key, _label, cap) in enumerate(self.COLUMNS):
            old = widest.get(key, 0)
            if old >= cap:
                continue
            new = max((_length(cells[n]) for _, cells in rows), default=0)
            if new > old:
                widest[key] = new
                grew = grew or key in self.columns  # a hidden column growing stays hidden
        return grew

    def restyle(self) -> None:
        if self.rows is not None:
            self.rows.forget()

    def cursor_key(self) -> str | None:
        """The key of the row under the cursor."""
        return self.rows.cursor_key() if self.rows is not None else None

    def show_account_titles(self, name: str, count: int, keys: str) -> None:
        """``name (count)``; below, the row ``keys`` when there are rows, or why there are none yet."""
        account = self.state.account
        if account.address is None:
            subtitle = "no account"
        elif not account.loaded:
            subtitle = "loading…"
        else:
            subtitle = keys if count else ""
        self.show_titles(f"{name} ({count})" if count else name, subtitle)


def _length(cell: Cell) -> int:
    return cell.cell_len if isinstance(cell, Text) else len(cell)


def _fitted(cell: Cell, cap: int, gap: int) -> Cell:
    """``cell`` cut to ``cap`` characters (the last one ``…``), with ``gap`` spaces before it."""
    if not gap and _length(cell) <= cap:
        return cell
    text = cell.copy() if isinstance(cell, Text) else Text(cell)
    if text.cell_len > cap:
        text.truncate(cap, overflow="ellipsis")
    if gap:
        text.pad_left(gap)
    return text


class FeedLine(FollowsFeed, Static):
    """A one-line live widget (header, account bar, status bar) with the same refresh contract."""

    def __init__(self, state: FeedState, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.state = state
        self.dirty = True
        self._shown: tuple[str, list[Span]] | None = None

    def shows(self, content: Content) -> bool:
        """Whether ``content`` is what is shown."""
        return (content.plain, list(content.spans)) == self._shown

    def show(self, content: Content) -> None:
        """Show ``content`` if it differs from what is shown, without a layout pass.

        A one-line widget never changes size, and a layout pass re-lays out and redraws the whole screen:
        on every book change that cost ~40 ms of CPU.
        """
        key = (content.plain, list(content.spans))
        if key != self._shown:
            self._shown = key
            self.update(content, layout=False)
