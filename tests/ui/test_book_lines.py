"""The book's line-drawn rows: a change redraws only its own line; keys and clicks pick rows."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.strip import Strip

from tui.ui.widgets.book_lines import BookLines, Column, Row

COLUMNS = (Column("Price", 8), Column("Size", 6), Column("", 6, right=False))


def rows(sizes: list[str]) -> list[tuple[str, Row]]:
    out: list[tuple[str, Row]] = [
        (f"a{i}", ((f"{101 + i}.0", "red"), (size, ""), ("██", "red"))) for i, size in enumerate(sizes)
    ]
    return [*reversed(out), ("spread", (("100.5", "bold"), ("", ""), ("", "")))]


class CountingLines(BookLines):
    def __init__(self) -> None:
        super().__init__(COLUMNS, home="spread", id="lines")
        self.drawn: list[int] = []

    def render_line(self, y: int) -> Strip:
        self.drawn.append(y)
        return super().render_line(y)


class LinesApp(App[None]):
    AUTO_FOCUS = None  # as on the dashboard, the book has no focus until the user gives it

    def __init__(self) -> None:
        super().__init__()
        self.picked: list[str] = []

    def compose(self) -> ComposeResult:
        yield CountingLines()

    def on_book_lines_row_picked(self, event: BookLines.RowPicked) -> None:
        self.picked.append(event.key)


async def test_a_change_redraws_only_its_line() -> None:
    app = LinesApp()
    async with app.run_test(size=(30, 8)) as pilot:
        lines = app.query_one(CountingLines)
        lines.set_rows(rows(["1.0", "2.0", "3.0"]))
        await pilot.pause()
        assert lines.cell("a1", 1) == "2.0" and lines.cell("spread", 0) == "100.5"
        lines.drawn.clear()
        lines.set_rows(rows(["1.0", "2.5", "3.0"]))  # a1 is the second line below the header
        await pilot.pause()
        assert lines.drawn == [2]
        lines.drawn.clear()
        lines.set_rows(rows(["1.0", "2.5", "3.0"]))  # nothing changed: nothing drawn
        await pilot.pause()
        assert lines.drawn == []


async def test_keys_and_clicks_pick_rows() -> None:
    app = LinesApp()
    async with app.run_test(size=(30, 8)) as pilot:
        lines = app.query_one(CountingLines)
        lines.set_rows(rows(["1.0", "2.0", "3.0"]))
        lines.focus()
        await pilot.pause()
        assert lines.cursor_key == "spread" and app.picked == []  # focus alone picks nothing
        await pilot.press("up", "up")
        assert app.picked == ["a0", "a1"]
        await pilot.press("ctrl+home", "enter")
        assert app.picked[-2:] == ["a2", "a2"]
        await pilot.click("#lines", offset=(2, 2))  # the second row below the header
        assert lines.cursor_key == "a1" and app.picked[-1] == "a1"
