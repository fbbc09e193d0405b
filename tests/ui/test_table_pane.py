"""Table panes show the columns there is room for, most wanted first, and never scroll sideways."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from tests.ui.screen_steps import until
from tui.ui.widgets.pane import TablePane

NO_STATE: Any = None  # the pane's rows are its own


class Letters(TablePane):
    TABLE_ID = "letters"
    COLUMNS = (("a", "A", 10), ("b", "B", 10), ("c", "C", 6), ("d", "D", 12), ("e", "E", 9))
    PRIORITY = ("a", "d", "b", "c", "e")
    LEFT = frozenset({"a"})
    DEFAULT_CSS = "Letters { width: 40; height: 8; }"  # 38 inside the border; the table 5 rows under its header
    count = 2

    def refresh_state(self) -> None:
        self.sync([(str(i), [f"a{i}", f"b{i}", f"c{i}", f"d{i}", f"e{i}"]) for i in range(self.count)])


class One(App[None]):
    def compose(self) -> ComposeResult:
        yield Letters(NO_STATE)


def test_columns_by_priority_in_their_order() -> None:
    pane = Letters(NO_STATE)
    keys = lambda width: [key for key, _, _ in pane.fitting(width)]  # noqa: E731
    assert keys(47) == ["a", "b", "c", "d", "e"]  # all fit
    assert keys(38) == ["a", "b", "c", "d"]  # e is the least wanted
    assert keys(31) == ["a", "c", "d"]  # b no longer fits after a and d; c (6) still does
    assert keys(11) == ["a"] and keys(5) == ["a"]  # what fits; the first when nothing does


async def test_the_pane_drops_a_column_when_its_rows_need_a_scrollbar() -> None:
    app = One()
    async with app.run_test(size=(80, 20)) as pilot:
        pane: Any = app.query_one(Letters)
        table = pane.table
        await until(pilot, lambda: pane.columns == ("a", "b", "c", "d"), "the columns of 38 characters")
        pane.flush()  # a dashboard screen does this on its refresh tick
        await until(pilot, lambda: table.row_count == 2, "the rows")
        assert table.max_scroll_x == 0

        pane.count = 9  # more rows than the pane shows: the vertical scrollbar takes a column
        pane.dirty = True
        pane.flush()
        await until(pilot, lambda: pane.columns == ("a", "b", "d") and table.row_count == 9, "37 characters")
        await pilot.pause(0.1)
        assert table.max_scroll_x == 0 and table.max_scroll_y > 0
        assert [str(c) for c in table.get_row("3")] == ["a3", "b3", "d3"]  # each cell under its column

        pane.count = 1
        pane.dirty = True
        pane.flush()
        await until(pilot, lambda: pane.columns == ("a", "b", "c", "d"), "the scrollbar gone, the column back")
