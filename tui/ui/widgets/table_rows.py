"""Keep a DataTable in step with a list of rows, in place: changed cells only, rows added and removed by key.

Tables are never cleared and rebuilt per update, so the cursor and scroll stay put and nothing flickers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist, RowDoesNotExist

from tui.edges.safe_text import printable

__all__ = ["TableRows", "printable_cell"]

Cell = str | Text


def printable_cell(cell: Cell) -> Cell:
    """``cell`` with its control characters shown as escapes (``tui.edges.safe_text``): an instrument's name or a cloid
    is the server's text. A Text that needed it keeps its style, not its spans (they would no longer line up)."""
    if isinstance(cell, str):
        return printable(cell)
    safe = printable(cell.plain)
    return cell if safe == cell.plain else Text(safe, style=cell.style, justify=cell.justify)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Text) and isinstance(b, Text):
        return a.plain == b.plain and a.spans == b.spans and a.style == b.style
    return bool(a == b)


class TableRows:
    """Rows of ``table`` by key; ``columns`` are the column keys, in order."""

    def __init__(self, table: DataTable[Any], columns: Sequence[str]) -> None:
        self.table = table
        self.columns = tuple(columns)
        self.cells: dict[str, tuple[Cell, ...]] = {}

    def sync(self, rows: Sequence[tuple[str, Sequence[Cell]]]) -> bool:
        """Make the table show ``rows`` (key, cells); True when rows were added (order may need a sort)."""
        table = self.table
        wanted = {key for key, _ in rows}
        for key in [k for k in self.cells if k not in wanted]:
            del self.cells[key]
            with contextlib.suppress(RowDoesNotExist):
                table.remove_row(key)
        added = False
        for key, cells in rows:
            new = tuple(printable_cell(c) for c in cells)
            old = self.cells.get(key)
            if old is None:
                table.add_row(*new, key=key)
                added = True
            else:
                for col, a, b in zip(self.columns, old, new, strict=True):
                    if not _same(a, b):
                        with contextlib.suppress(CellDoesNotExist, RowDoesNotExist):
                            table.update_cell(key, col, b)
            self.cells[key] = new
        return added

    def forget(self) -> None:
        """Drop every row (a new instrument, a new layout): the next sync adds them afresh."""
        self.table.clear()
        self.cells.clear()

    @property
    def keys(self) -> list[str]:
        return list(self.cells)

    def cursor_key(self) -> str | None:
        """The key of the row under the cursor, if any."""
        table = self.table
        if not table.row_count:
            return None
        try:
            row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        except CellDoesNotExist:
            return None
        return None if row_key.value is None else str(row_key.value)
