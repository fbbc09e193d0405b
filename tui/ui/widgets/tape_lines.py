"""The trade tape's rows, drawn line by line: a header, then one line per row, newest first.

A new trade goes on top and every row moves down a line. A DataTable drew every cell of every row again
through its per-cell pipeline (a quarter of the process at 1,000 messages a second). Here a row's Strip is
cached by what it shows (its cells' text and style: time, side, price, size, large, mine and the theme's
colours), not by its place, so a row that moved down finds its Strip in the cache; and only the part of a
line whose cells changed is refreshed (a shift in a burst of same-second, same-price trades rewrites little).

It looks as the DataTable did (``cursor_type="none"``, no padding): the same component styles, no cursor.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from .line_table import Column, LineTable

__all__ = ["Cell", "Part", "Row", "TapeLines"]

Part = tuple[str, str]  # text, Rich style ("" for none)
Cell = tuple[Part, ...]  # a cell's text in parts; the first part's style is the cell's own (its padding's)
Row = tuple[Cell, ...]

_NULL = Style.null()


class TapeLines(LineTable[Row], can_focus=True):
    """Rows of fixed-width cells, each cell of styled parts; ``set_rows`` shows new rows, top first."""

    def __init__(self, columns: Sequence[Column], *, id: str | None = None) -> None:
        super().__init__(columns, id=id)
        self._header: Row = tuple(((c.label, ""),) for c in self._columns)

    # ---- content --------------------------------------------------------------------------------

    def set_rows(self, rows: Sequence[Row]) -> None:
        """Show ``rows``; only the lines (the span of cells) whose content changed are drawn again."""
        new = list(rows)
        if len(new) != len(self._rows):
            self._rows = new
            self._resized()
            return
        old, self._rows = self._rows, new
        for index, (was, now) in enumerate(zip(old, new, strict=True)):
            if was != now:
                self._refresh_cells(index, was, now)

    def cell(self, index: int, column: int) -> str:
        """The text shown in row ``index``, ``column`` ("" when there is no such row)."""
        try:
            return "".join(text for text, _ in self._rows[index][column]).strip()
        except IndexError:
            return ""

    # ---- drawing --------------------------------------------------------------------------------

    def _header_line(self) -> Strip:
        return self._strip(True, self._header)

    def _row_line(self, index: int) -> Strip:
        return self._strip(False, self._rows[index])

    def _strip(self, header: bool, cells: Row) -> Strip:
        key = (header, cells, self.size.width)
        return self._strips.drawn(key, lambda: self._draw(header, cells), self.size.height)

    def _draw(self, header: bool, cells: Row) -> Strip:
        """One row as DataTable draws a row of Rich Texts: each part ``row style + its style``; a right-justified
        cell padded in its own style (Text's ``pad_left``), a left one in the row's."""
        row_style = self._header_style() if header else self.rich_style
        get_style = self.app.console.get_style
        segments: list[Segment] = []
        for column, cell in zip(self._columns, cells, strict=False):
            width = column.width
            parts = [
                (text, row_style + get_style(style, default=_NULL) if style else row_style) for text, style in cell
            ]
            if column.right and parts:
                parts[-1] = (parts[-1][0].rstrip(), parts[-1][1])
            shown = _cut(parts, width)
            pad = width - sum(cell_len(text) for text, _ in shown)
            if column.right:
                own = parts[0][1] if parts else row_style
                segments.append(Segment(" " * pad, own))
                segments.extend(Segment(text, style) for text, style in shown if text)
            else:
                segments.extend(Segment(text, style) for text, style in shown if text)
                segments.append(Segment(" " * pad, row_style))
        return self._finish(segments, row_style)


def _cut(parts: list[tuple[str, Style]], width: int) -> list[tuple[str, Style]]:
    """``parts`` up to ``width`` cells: the part that crosses it is cut, the ones after it dropped."""
    out: list[tuple[str, Style]] = []
    room = width
    for text, style in parts:
        if room <= 0:
            break
        if cell_len(text) > room:
            text = set_cell_size(text, room)
        out.append((text, style))
        room -= cell_len(text)
    return out
