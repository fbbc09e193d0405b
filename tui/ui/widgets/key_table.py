"""The help screen's table of keys, drawn line by line from lines laid out once.

A DataTable rendered every cell again each time the help screen came back (its caches go with every style
update, and a screen's return is one): ~100 ms to open help at 120x40. Here the rows are wrapped into lines
once per width, and each line's Strip is kept until the width or the theme's styles change, so opening help
composites lines already drawn.

It reads as the DataTable did: a bold header on the panel colour, cells padded one space each side, a long
description wrapped onto the lines below its key. It has no cursor: up, down, page up and page down scroll.
``filter`` keeps the rows whose any cell holds each word typed; the columns keep their widths as it narrows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

__all__ = ["KeyRow", "KeyTable"]

KeyRow = tuple[str, str, str, str]  # keys, what they do, the binding id, where they work
HEADER: KeyRow = ("Key", "Does", "Id (keymap)", "Where")
KEY_MAX = 16  # wider key lists are cut
DOES_MIN = 24
PADDING = 1  # each side of a cell


class KeyTable(ScrollView, can_focus=True):
    """``rows`` under a fixed header; the description column takes the width the others leave."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "scroll_up", "Up", show=False),
        Binding("down", "scroll_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown,space", "page_down", "Page down", show=False),
        Binding("home", "scroll_home", "Top", show=False),
        Binding("end", "scroll_end", "Bottom", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {"key-table--header"}

    DEFAULT_CSS = """
    KeyTable {
        background: $surface;
        color: $foreground;
        scrollbar-gutter: stable;  /* the lines are laid out for the width beside the scrollbar */
        overflow-x: hidden;
        & > .key-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
    }
    """

    def __init__(self, rows: Sequence[KeyRow], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows = list(rows)  # every row: the columns are as wide as they need, whatever the filter shows
        self.shown = self.rows  # the rows that match the filter
        self._lines: list[KeyRow] = []  # the rows wrapped to the width: a description goes on below its key
        self._laid_out_for = -1  # the width the lines are for
        self._widths = (0, 0, 0, 0)  # the columns' text widths at that width
        self._strips: dict[int, Strip] = {}  # by line (-1: the header), for the styles in ``_drawn_with``
        self._drawn_with: tuple[Style, ...] = ()

    def _column_widths(self, width: int) -> tuple[int, int, int, int]:
        """The columns' text widths at ``width`` cells: keys, what they do, id, where."""
        keys = min(KEY_MAX, max((cell_len(r[0]) for r in self.rows), default=3))
        ident = max(cell_len(HEADER[2]), *(cell_len(r[2]) for r in self.rows))
        scope = max(cell_len(HEADER[3]), *(cell_len(r[3]) for r in self.rows))
        does = max(DOES_MIN, width - keys - ident - scope - 8 * PADDING)
        return keys, does, ident, scope

    def filter(self, text: str) -> None:
        """Show only the rows that hold every word of ``text`` (any case) in some cell; all of them for none."""
        words = text.lower().split()
        self.shown = [r for r in self.rows if all(w in " ".join(r).lower() for w in words)]
        self._laid_out_for = -1
        self.scroll_home(animate=False)
        self._lay_out(self._width())

    def text_lines(self) -> list[str]:
        """What the table shows, line by line (the header first), without styles: for tests and screenshots."""
        self._lay_out(self._width())
        return ["".join(self._cells(line)).rstrip() for line in [HEADER, *self._lines]]

    def on_resize(self) -> None:
        self._lay_out(self._width())

    def _width(self) -> int:
        return self.scrollable_content_region.width

    def _lay_out(self, width: int) -> None:
        if width == self._laid_out_for:
            return
        self._widths = self._column_widths(width)
        does_w = self._widths[1]
        lines: list[KeyRow] = []
        for keys, does, ident, scope in self.shown:
            wrapped = Text(does).wrap(self.app.console, does_w) if does else [Text("")]
            lines.append((keys, wrapped[0].plain, ident, scope))
            lines.extend(("", part.plain, "", "") for part in wrapped[1:])
        if not lines:
            lines.append(("", "no match", "", ""))
        self._lines, self._laid_out_for = lines, width
        self._strips.clear()
        self.virtual_size = Size(width, len(lines) + 1)  # the header's line too
        self.refresh()

    def _cells(self, line: KeyRow) -> list[str]:
        """The four cells of ``line``, padded to their widths."""
        pad = " " * PADDING
        return [pad + set_cell_size(text, w) + pad for text, w in zip(line, self._widths, strict=True)]

    def render_line(self, y: int) -> Strip:
        width = self._width()
        base, header = self.rich_style, self.get_component_rich_style("key-table--header")
        styles = (base, header, base + Style(bold=True), base + Style(dim=True))
        if styles != self._drawn_with:  # the theme changed (or focus tinted the background)
            self._strips.clear()
            self._drawn_with = styles
        index = -1 if y == 0 else y - 1 + round(self.scroll_y)
        if index >= len(self._lines):
            return Strip.blank(width, base)
        strip = self._strips.get(index)
        if strip is None:
            strip = self._strips[index] = self._draw(index, styles, width)
        return strip

    def _draw(self, index: int, styles: tuple[Style, ...], width: int) -> Strip:
        base, header, bold, dim = styles
        cells = self._cells(HEADER if index < 0 else self._lines[index])
        looks = (header,) * 4 if index < 0 else (bold, base, dim, dim)
        segments = [Segment(text, style) for text, style in zip(cells, looks, strict=True)]
        return Strip(segments).adjust_cell_length(width, header if index < 0 else base).simplify()
