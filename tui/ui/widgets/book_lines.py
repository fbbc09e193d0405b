"""The order book's rows, drawn line by line: a header, then one line per slot (``a0``, ``spread``, ``b0``...).

A book change touches a few rows; a DataTable's ``update_cell`` clears its whole render cache, so every
row would be drawn again. Here each row's Strip is cached by what the row shows, and only
the lines whose content changed are refreshed. Rows that flip between two states (an order placed and
cancelled) find both looks in the cache.

It looks and behaves as the DataTable did (``cursor_type="row"``, no padding): the same component
styles, a cursor shown while focused, a hover highlight under the mouse, up/down, page up/down,
ctrl+home/ctrl+end and Enter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.strip import Strip

from .line_table import Column, LineTable

__all__ = ["BookLines", "Cell", "Column", "Row"]

Cell = tuple[str, str]  # text, Rich style ("" for none)
Row = tuple[Cell, ...]

_NO_CURSOR, _CURSOR, _HOVER = 0, 1, 2
_NULL = Style.null()


class BookLines(LineTable[Row], can_focus=True):
    """Rows of fixed-width cells by key. ``home`` is the row the cursor goes to when the widget gets focus."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"book-lines--cursor", "book-lines--hover"}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "pick", "Pick", show=False),
        Binding("up", "cursor(-1)", "Cursor up", show=False),
        Binding("down", "cursor(1)", "Cursor down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("ctrl+home", "cursor_to(0)", "Top", show=False),
        Binding("ctrl+end", "cursor_to(-1)", "Bottom", show=False),
    ]

    # DataTable's cursor and hover (its look otherwise is ``LineTable``'s)
    DEFAULT_CSS = """
    BookLines {
        &:focus > .book-lines--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
        & > .book-lines--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .book-lines--hover {
            background: $block-hover-background;
        }
    }
    """

    class RowPicked(Message):
        """The user moved the cursor to, clicked, or pressed Enter on the row ``key``."""

        def __init__(self, lines: BookLines, key: str) -> None:
            super().__init__()
            self.lines = lines
            self.key = key

        @property
        def control(self) -> BookLines:
            return self.lines

    def __init__(self, columns: Sequence[Column], *, home: str | None = None, id: str | None = None) -> None:
        super().__init__(columns, id=id)
        self.home = home
        self._keys: list[str] = []
        self._cursor = 0
        self._hover = -1  # row under the mouse, -1 for none
        self._show_hover = False  # the mouse moved since the last key: DataTable hides the hover on keys

    # ---- content --------------------------------------------------------------------------------

    def set_rows(self, rows: Sequence[tuple[str, Row]]) -> None:
        """Show ``rows`` (key, cells); only lines whose cells changed are drawn again."""
        keys = [key for key, _ in rows]
        new = [cells for _, cells in rows]
        if keys != self._keys or len(new) != len(self._rows):
            self._keys, self._rows = keys, new
            self._cursor = min(self._cursor, max(0, len(new) - 1))
            self._resized()
            return
        for index, (old, cells) in enumerate(zip(self._rows, new, strict=True)):
            if old != cells:
                self._rows[index] = cells
                self._refresh_cells(index, old, cells)

    def cell(self, key: str, column: int) -> str:
        """The text shown in row ``key``, ``column`` ("" when there is no such row)."""
        try:
            return self._rows[self._keys.index(key)][column][0].strip()
        except (ValueError, IndexError):
            return ""

    @property
    def cursor_key(self) -> str | None:
        return self._keys[self._cursor] if self._keys else None

    # ---- the cursor and the mouse ---------------------------------------------------------------

    def _set_cursor(self, index: int, *, pick: bool = False) -> None:
        if not self._rows:
            return
        index = max(0, min(index, len(self._rows) - 1))
        old, self._cursor = self._cursor, index
        if old != index:
            self._refresh_row(old)
            self._refresh_row(index)
            self._scroll_to_cursor()
        if pick:
            self.post_message(self.RowPicked(self, self._keys[index]))

    def _scroll_to_cursor(self) -> None:
        visible = max(1, self.size.height - 1)  # below the header
        top = round(self.scroll_y)
        if self._cursor < top:
            self.scroll_to(y=self._cursor, animate=False, force=True)
        elif self._cursor >= top + visible:
            self.scroll_to(y=self._cursor - visible + 1, animate=False, force=True)

    def _keyed(self) -> None:
        if self._show_hover:
            self._show_hover = False
            self._refresh_row(self._hover)

    def action_cursor(self, step: int) -> None:
        self._keyed()
        self._set_cursor(self._cursor + step, pick=True)

    def action_page(self, direction: int) -> None:
        self._keyed()
        self._set_cursor(self._cursor + direction * max(1, self.size.height - 2), pick=True)

    def action_cursor_to(self, index: int) -> None:
        self._keyed()
        self._set_cursor(index if index >= 0 else len(self._rows) + index, pick=True)

    def action_pick(self) -> None:
        self._set_cursor(self._cursor, pick=True)

    def on_focus(self, event: events.Focus) -> None:
        if self.home in self._keys:
            self._set_cursor(self._keys.index(self.home))
        self._refresh_row(self._cursor)

    def on_blur(self, event: events.Blur) -> None:
        self._refresh_row(self._cursor)

    def _row_at(self, event: events.MouseEvent) -> int:
        """The row index under the mouse, or -1 (the header, below the rows)."""
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return -1
        index = offset.y - 1 + round(self.scroll_y)
        return index if index < len(self._rows) else -1

    def _set_hover(self, index: int, show: bool) -> None:
        old = (self._hover, self._show_hover)
        self._hover, self._show_hover = index, show
        if old != (index, show):
            self._refresh_row(old[0])
            self._refresh_row(index)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._row_at(event), True)

    def on_leave(self, event: events.Leave) -> None:
        self._set_hover(self._hover, False)

    def on_click(self, event: events.Click) -> None:
        index = self._row_at(event)
        self._set_hover(self._hover, True)  # the row under the mouse came with its last move
        if index >= 0 and self.has_focus:
            event.stop()
            self._set_cursor(index, pick=True)

    # ---- drawing --------------------------------------------------------------------------------

    def _header_line(self) -> Strip:
        return self._strip(-1, tuple((c.label, "") for c in self._columns), _NO_CURSOR)

    def _row_line(self, index: int) -> Strip:
        state = _NO_CURSOR
        if self.has_focus:
            if index == self._cursor:
                state |= _CURSOR
            if index == self._hover and self._show_hover:
                state |= _HOVER
        return self._strip(index, self._rows[index], state)

    def _strip(self, index: int, cells: Row, state: int) -> Strip:
        key = (index, cells, state, self.size.width)
        return self._strips.drawn(key, lambda: self._draw(index, cells, state), self.size.height)

    def _draw(self, index: int, cells: Row, state: int) -> Strip:
        """One row as DataTable draws it: each cell ``row style + cursor/hover`` under the text's own style,
        the cursor's colour over the text's (its ``cursor_foreground_priority="css"``)."""
        if index < 0:
            row_style = self._header_style()
        else:
            row_style = self.rich_style
        overlay = Style()
        if state & _HOVER:
            overlay += self.get_component_rich_style("book-lines--hover")
        if state & _CURSOR:
            overlay += self.get_component_rich_style("book-lines--cursor")
        post = Style.from_color(color=overlay.color)
        get_style = self.app.console.get_style
        segments: list[Segment] = []
        for column_index, (column, (text, style)) in enumerate(zip(self._columns, cells, strict=False)):
            pre = row_style + Style.from_meta({"row": index, "column": column_index}) + overlay
            width = column.width
            shown = text.rstrip() if column.right else text
            if cell_len(shown) > width:
                shown = set_cell_size(shown, width)
            pad = width - cell_len(shown)
            # as Rich's Text does: a style it cannot parse (a colour with alpha) is no style
            own = pre + get_style(style, default=_NULL) + post if style else pre + post
            if column.right:
                segments.append(Segment(" " * pad + shown, own))
            else:
                if shown:
                    segments.append(Segment(shown, own))
                if pad:
                    segments.append(Segment(" " * pad, pre + post))
        meta = Style.from_meta({"row": index, "column": 0, "out_of_bounds": True})
        return self._finish(segments, row_style + overlay + meta)
