"""What the panes that draw their tables line by line share (``BookLines``, ``TapeLines``): fixed-width columns
under a header line, the rows below it, each line's Strip kept by what it shows (``LineStrips``), and only the span
of a line whose cells changed repainted.

A subclass says how a row's cells are drawn (``_header_line``, ``_row_line``: strips it keeps in ``_strips``) and
ends each line with ``_finish``, which fills the width after the last column as DataTable does.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Hashable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

import msgspec
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from .line_strips import LineStrips

__all__ = ["Column", "LineTable", "column_starts", "set_virtual_size"]

R = TypeVar("R", bound=tuple[Any, ...])  # a row: one cell a column


class Column(msgspec.Struct, frozen=True):
    label: str
    width: int
    right: bool = True  # right-justified (text and header); else left


def column_starts(columns: Sequence[Column]) -> list[int]:
    """Where each column starts, and (last) where the last one ends."""
    starts = [0]
    for column in columns:
        starts.append(starts[-1] + column.width)
    return starts


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """``view.virtual_size = size``, without Textual's layout pass of the whole screen when the lines fit the
    view before and after (no scrollbar comes or goes, nothing can scroll): the tape filling up with its first
    trades, or the book with its first levels, laid out and repainted the whole screen for every one."""
    old, fits = view.virtual_size, view.scrollable_content_region.height
    if size.width == old.width and 0 < old.height <= fits and 0 < size.height <= fits:
        view.set_reactive(Widget.virtual_size, size)
    else:
        view.virtual_size = size


class LineTable(ScrollView, Generic[R]):
    """Rows (``R``: a tuple of cells, one a column) of fixed-width ``columns`` under a header line."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"line-table--header"}

    # DataTable's look, so that swapping one for the other changes no pixel
    DEFAULT_CSS = """
    LineTable {
        background: $surface;
        color: $foreground;
        &:focus {
            background-tint: $foreground 5%;
            & > .line-table--header {
                background-tint: $foreground 5%;
            }
        }
        & > .line-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        &:ansi > .line-table--header {
            background: ansi_bright_blue;
            color: ansi_default;
        }
    }
    """

    def __init__(self, columns: Sequence[Column], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._columns = tuple(columns)
        self._starts = column_starts(self._columns)
        self._rows: list[R] = []
        self._strips: LineStrips[Hashable] = LineStrips()

    @property
    def columns(self) -> tuple[Column, ...]:
        return self._columns

    @columns.setter
    def columns(self, columns: Sequence[Column]) -> None:
        self._columns = tuple(columns)
        self._starts = column_starts(self._columns)
        self._strips.clear()
        self._resized()

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def forget(self) -> None:
        """Draw every line afresh (the theme changed: every cached line may look different)."""
        self._strips.clear()
        self.refresh()

    def _resized(self) -> None:
        """The number of rows (or the columns) changed: the lines are laid out again."""
        set_virtual_size(self, Size(self._starts[-1], len(self._rows) + 1))
        self.refresh()

    # ---- repainting -----------------------------------------------------------------------------

    def _row_y(self, index: int) -> int | None:
        """The line row ``index`` is on in the view (below the header), or None when it is not in view."""
        y = index + 1 - round(self.scroll_y)
        return y if 1 <= y < self.size.height else None

    def _refresh_row(self, index: int) -> None:
        if 0 <= index < len(self._rows) and (y := self._row_y(index)) is not None:
            self.refresh(Region(0, y, self.size.width, 1))

    def _refresh_cells(self, index: int, old: R, new: R) -> None:
        """Repaint the span of row ``index`` from its first changed cell to its last: a size that changed
        rewrites that size, not the whole line (what is written to the terminal is what is repainted)."""
        y = self._row_y(index)
        if y is None:
            return
        if len(old) != len(new) or len(new) > len(self._columns):
            self.refresh(Region(0, y, self.size.width, 1))
            return
        changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
        if not changed:
            return
        first, last = changed[0], changed[-1]
        end = self.size.width if last == len(self._columns) - 1 else self._starts[last + 1]
        self.refresh(Region(self._starts[first], y, end - self._starts[first], 1))

    # ---- drawing --------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        # theme, focus (its tint and cursor colours), CSS: every cached line may look different now
        super().notify_style_update()
        self.forget()

    def render_line(self, y: int) -> Strip:
        if y == 0:
            return self._header_line()
        index = y - 1 + round(self.scroll_y)
        if index >= len(self._rows):
            return Strip.blank(self.size.width, self.rich_style)
        return self._row_line(index)

    def _header_style(self) -> Style:
        """The header line's style (``line-table--header``)."""
        return self.get_component_styles("line-table--header").rich_style

    @abstractmethod
    def _header_line(self) -> Strip:
        """The header row, as each table draws it."""

    @abstractmethod
    def _row_line(self, index: int) -> Strip:
        """Row ``index`` of the rows held, as each table draws it."""

    def _finish(self, segments: list[Segment], spare_style: Style) -> Strip:
        """A line of ``segments`` (the columns' cells) to the widget's width: the cells after the last column in
        ``spare_style``, even none (as DataTable: the same pictures)."""
        width = self.size.width
        segments.append(Segment(" " * max(0, width - self._starts[-1]), spare_style))
        return Strip(segments).adjust_cell_length(width, self.rich_style).simplify()
