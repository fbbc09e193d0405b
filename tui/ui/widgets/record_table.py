"""A DataTable of records by key, updated in place, and a grid of label/value facts.

``RecordTable.show`` keeps the rows in the order given: changed cells are updated where they are, and
the table is rebuilt only when the order of the keys changes (new rows at the top of a newest-first
list); the cursor stays on the same record either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual.widgets import DataTable, Static

from tui.edges.safe_text import printable

from .table_rows import Cell, TableRows

__all__ = ["Facts", "RecordTable"]


class RecordTable(DataTable[Any]):
    """Rows of records; ``columns`` are (key, label) pairs."""

    DEFAULT_CSS = """
    RecordTable {
        height: 1fr;
        background: $surface;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(
        self, columns: Sequence[tuple[str, str]], *, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=True)
        for key, label in columns:
            self.add_column(label, key=key)
        self.rows_kept = TableRows(self, [key for key, _ in columns])

    def show(self, rows: Sequence[tuple[str, Sequence[Cell]]]) -> None:
        """Show ``rows`` (key, cells) in this order."""
        self._size_columns(rows)
        kept = self.rows_kept
        keys = [key for key, _ in rows]
        wanted = set(keys)
        held = [k for k in kept.keys if k in wanted]
        order = held + [k for k in keys if k not in set(held)]
        if order != keys:
            selected = kept.cursor_key()
            kept.forget()
            kept.sync(rows)
            if selected in wanted:
                self.move_cursor(row=keys.index(selected), animate=False)
            return
        kept.sync(rows)

    def _size_columns(self, rows: Sequence[tuple[str, Sequence[Cell]]]) -> None:
        """Each column as wide as its widest cell now. DataTable measures new rows on its next idle event,
        which on a busy machine can come after a frame (or a screenshot) showing columns as wide as their labels."""
        for i, column in enumerate(self.ordered_columns):
            widest = max((_width(cells[i]) for _, cells in rows if i < len(cells)), default=0)
            column.content_width = max(column.label.cell_len, widest)

    def selected_key(self) -> str | None:
        """The key of the row under the cursor."""
        return self.rows_kept.cursor_key()


def _width(cell: Cell) -> int:
    return cell.cell_len if isinstance(cell, Text) else cell_len(str(cell))


class Facts(Static):
    """Label/value pairs laid out in ``columns`` columns of pairs."""

    DEFAULT_CSS = """
    Facts {
        height: auto;
        padding: 0 1;
    }
    """

    def __init__(self, *, columns: int = 3, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._columns = columns
        self.pairs: list[tuple[str, str]] = []

    @property
    def text(self) -> str:
        """The facts shown, one ``label: value`` a line."""
        return "\n".join(f"{label}: {value}" for label, value in self.pairs)

    def show(self, pairs: Sequence[tuple[str, str]]) -> None:
        if list(pairs) == self.pairs:
            return
        self.pairs = list(pairs)
        grid = Table.grid(padding=(0, 1), expand=True)
        for _ in range(self._columns):
            grid.add_column(style="dim", no_wrap=True)
            grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        cells: list[Text] = []
        for label, value in pairs:
            cells += [Text(label), Text(printable(value))]  # a value may quote the exchange (a margin mode, a hash)
        width = 2 * self._columns
        for i in range(0, len(cells), width):
            row = cells[i : i + width]
            grid.add_row(*row, *[Text("")] * (width - len(row)))
        self.update(grid)
