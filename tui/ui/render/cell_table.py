"""A DataTable whose ``update_cell`` repaints that cell only, and whose render caches hold only live entries."""

from __future__ import annotations

from typing import Any

from textual.coordinate import Coordinate
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist, ColumnKey, RowKey

from . import plain

__all__ = ["CellTable"]
_PLAIN = plain("cell_table")  # measured without (xtui bench): DataTable's own update_cell


class CellTable(DataTable[Any]):
    """A DataTable whose ``update_cell`` repaints that cell only.

    DataTable's own ``update_cell`` refreshes the whole widget, so one changed figure would rewrite every line
    of the table to the terminal. Here the cell's data is replaced as
    DataTable does (its caches are keyed by ``_update_count``, bumped here too, so no stale line is drawn),
    but only the cell's region is marked for repaint: the compositor writes just those cells.

    Every bump of ``_update_count`` (here and in DataTable's own changes) makes every render cached so far
    unreachable, yet DataTable keeps them until 10,000 cells, 1,000 rows and 1,000 lines have piled up: a
    busy table grew the dashboard by megabytes over its first minutes. They are dropped at the bump instead.
    """

    _bumps = 0

    @property  # DataTable's plain attribute, observed
    def _update_count(self) -> int:
        return self._bumps

    @_update_count.setter
    def _update_count(self, value: int) -> None:
        self._bumps = value
        for cache in (self._cell_render_cache, self._row_render_cache, self._row_renderable_cache, self._line_cache):
            cache.clear()

    def update_cell(
        self, row_key: RowKey | str, column_key: ColumnKey | str, value: Any, *, update_width: bool = False
    ) -> None:
        if update_width or _PLAIN:
            super().update_cell(row_key, column_key, value, update_width=True)
            return
        row = RowKey(row_key) if isinstance(row_key, str) else row_key
        column = ColumnKey(column_key) if isinstance(column_key, str) else column_key
        y, x = self._row_locations.get(row), self._column_locations.get(column)
        if y is None or x is None:
            raise CellDoesNotExist(f"No cell exists for row_key={row!r}, column_key={column!r}.")
        self._data[row][column] = value
        self._update_count += 1
        self.refresh_coordinate(Coordinate(y, x))
