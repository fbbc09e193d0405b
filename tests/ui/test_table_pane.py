"""Table panes size columns from their cells, show the columns there is room for (most wanted first), cut a
figure too wide for its column with an ellipsis, never run two figures together and never scroll sideways."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult

from tests.ui.screen_steps import until
from tui.ui.widgets.pane import TablePane

NO_STATE: Any = None  # the pane's rows are its own


class Letters(TablePane):
    TABLE_ID = "letters"
    # (key, label, widest allowed); the cells below are 6, 8, 4, 10 and 7 characters wide
    COLUMNS = (("a", "A", 10), ("b", "B", 10), ("c", "C", 6), ("d", "D", 12), ("e", "E", 9))
    PRIORITY = ("a", "d", "b", "c", "e")
    LEFT = frozenset({"a"})
    DEFAULT_CSS = "Letters { width: 33; height: 8; }"  # 31 inside the border; the table 5 rows under its header
    count = 2
    d_text = "ddddddddd{i}"

    def refresh_state(self) -> None:
        self.sync(
            [
                (
                    str(i),
                    [
                        f"alph{i:02}",
                        f"bbbbbbb{i}",
                        f"ccc{i}",
                        Text(self.d_text.format(i=i), justify="right"),
                        f"eeeeee{i}",
                    ],
                )
                for i in range(self.count)
            ]
        )


class One(App[None]):
    def compose(self) -> ComposeResult:
        yield Letters(NO_STATE)


async def laid_out(app: One, pilot: Any) -> tuple[Any, Any]:
    """The pane and its table once its first two rows are drawn in its 31 characters (columns a to d)."""
    pane: Any = app.query_one(Letters)
    pane.flush()
    await until(pilot, lambda: pane.table.row_count == 2 and pane.columns == ("a", "b", "c", "d"), "the rows")
    return pane, pane.table


def _widths(table: Any) -> list[int]:
    """How wide each column of ``table`` is drawn."""
    return [c.get_render_width(table) for c in table.columns.values()]


def _plain(cells: Any) -> list[str]:
    return [c.plain if isinstance(c, Text) else str(c) for c in cells]


async def test_columns_by_priority_in_their_order() -> None:
    keys = lambda pane, width: [key for key, _, _ in pane.fitting(width)]  # noqa: E731
    app = One()
    async with app.run_test() as pilot:
        pane, _ = await laid_out(app, pilot)  # its rows' cells: 6, 8, 4, 10 and 7 characters wide
        # each column takes its widest cell and a space before it (not the first): 6 + 9 + 5 + 11 + 8 = 39
        assert keys(pane, 39) == ["a", "b", "c", "d", "e"]  # all fit
        assert keys(pane, 38) == ["a", "b", "c", "d"]  # e is the least wanted
        assert keys(pane, 25) == ["a", "c", "d"]  # b no longer fits after a and d; c (4 and its gap) still does
        assert keys(pane, 10) == ["a"] and keys(pane, 3) == ["a"]  # what fits; the first when nothing does
    # no rows yet: as wide as the labels, 1 + 4 * 2 characters
    assert keys(Letters(NO_STATE), 9) == ["a", "b", "c", "d", "e"]


async def test_columns_are_as_wide_as_their_cells_with_a_space_between() -> None:
    app = One()
    async with app.run_test(size=(80, 20)) as pilot:
        pane: Any = app.query_one(Letters)
        table = pane.table
        pane.flush()  # a dashboard screen does this on its refresh tick
        await until(pilot, lambda: table.row_count == 2 and pane.columns == ("a", "b", "c", "d"), "the rows")
        await until(pilot, lambda: _widths(table) == [6, 9, 5, 11], "the columns sized to the rows")
        await pilot.pause()  # idle, and the screen updated: the table laid out at that size
        assert _plain(table.get_row("1")) == ["alph01", " bbbbbbb1", " ccc1", " ddddddddd1"]
        assert _widths(table) == [6, 9, 5, 11] and table.max_scroll_x == 0

        pane.d_text = "1,234,567,890.1{i}"  # 16 characters, 12 allowed: cut, never spilled into the next column
        pane.dirty = True
        pane.flush()
        await until(pilot, lambda: _plain(table.get_row("1"))[-1] == " 1,234,567,8…", "the cut figure")
        assert pane.columns == ("a", "b", "d")  # d grew to 12 + 1: c (5) no longer fits in 31
        await pilot.pause()  # idle, and the screen updated: the table laid out at that size
        assert table.max_scroll_x == 0

        pane.d_text = "d{i}"  # shrinks back: the columns stay as they are until the pane is resized
        pane.dirty = True
        pane.flush()
        await until(pilot, lambda: _plain(table.get_row("1"))[-1] == " d1", "the short figure")
        assert pane.columns == ("a", "b", "d")


async def test_the_pane_drops_a_column_when_its_rows_need_a_scrollbar() -> None:
    app = One()
    async with app.run_test(size=(80, 20)) as pilot:
        pane, table = await laid_out(app, pilot)

        pane.count = 9  # more rows than shown: the vertical scrollbar takes a column, so c goes
        pane.dirty = True
        pane.flush()
        await until(pilot, lambda: pane.columns == ("a", "b", "d") and table.row_count == 9, "30 characters")
        await pilot.pause()  # idle, and the screen updated: the table laid out at that size
        assert table.max_scroll_x == 0 and table.max_scroll_y > 0
        assert _plain(table.get_row("3")) == ["alph03", " bbbbbbb3", " ddddddddd3"]  # each cell under its column

        pane.count = 1
        pane.dirty = True
        pane.flush()
        await until(pilot, lambda: pane.columns == ("a", "b", "c", "d"), "the scrollbar gone, the column back")


class EarlyLetters(Letters):
    """Rows synced as the pane mounts, before it has a size (the dashboard's first snapshot can come first)."""

    synced_at_width: int | None = None
    widths_before_layout: list[int] | None = None

    def on_mount(self) -> None:
        super().on_mount()
        self.call_next(self._early)

    def _early(self) -> None:
        self.synced_at_width = self.size.width
        self.refresh_state()  # what a flush does, once the pane counts as mounted (still without a size)
        self.widths_before_layout = [c.width for c in self.table.columns.values()]


class Early(App[None]):
    def compose(self) -> ComposeResult:
        yield EarlyLetters(NO_STATE)


async def test_rows_synced_before_the_pane_is_laid_out_get_their_widths_at_once() -> None:
    """The dashboard's first frame showed the markets table squeezed to its labels' widths ("BTC-PE 99,9 100,")
    until its next refresh: the rows came before the pane had a size, and the first resize forgot them."""
    app = Early()
    async with app.run_test(size=(80, 20)) as pilot:
        pane: Any = app.query_one(EarlyLetters)
        table = pane.table
        await until(pilot, lambda: pane.columns == ("a", "b", "c", "d"), "the columns fitted to the width laid out")
        assert pane.synced_at_width == 0  # the rows came before the pane was laid out
        assert pane.widths_before_layout == [6, 9, 5, 11, 8]  # as wide as their cells (not 1, 2, 2, 2, 2)
        pane.flush()  # laid out in its 31 characters since (e is dropped): the next refresh fills it
        await until(pilot, lambda: table.row_count == 2 and pane.columns == ("a", "b", "c", "d"), "the rows")
        assert _widths(table) == [6, 9, 5, 11]


async def test_a_resize_keeps_the_columns_as_wide_as_the_rows_shown() -> None:
    app = One()
    async with app.run_test(size=(80, 20)) as pilot:
        pane, table = await laid_out(app, pilot)
        pane.styles.width = 45  # room for e too
        await until(pilot, lambda: pane.columns == ("a", "b", "c", "d", "e"), "the wider pane")
        await pilot.pause()  # idle, and laid out; no refresh of the rows since: the widths come from the rows shown
        assert _widths(table) == [6, 9, 5, 11, 8]


async def test_a_resize_shows_the_rows_again_at_once() -> None:
    """A new layout empties the table; its rows waited for the pane's next redraw, and after a resize (a whole
    screen written: the byte budget spent for up to 3 s) the dashboard's markets pane stood empty that long (seen
    in tmux at 80x24 and 120x30). The rows shown are put back in the same step."""
    app = One()
    async with app.run_test(size=(80, 20)) as pilot:
        pane, table = await laid_out(app, pilot)
        pane.dirty = False
        pane.refresh_state = lambda: None  # no redraw of the pane's own from here: what shows is the relayout's
        pane.styles.width = 45  # room for e too
        await until(pilot, lambda: pane.columns == ("a", "b", "c", "d", "e"), "the wider pane")
        assert table.row_count == 2 and _plain(table.get_row("1")) == [
            "alph01",
            " bbbbbbb1",
            " ccc1",
            " ddddddddd1",
            " eeeeee1",
        ]
