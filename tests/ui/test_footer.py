"""The footer: one line of the keys the focused widget and its screen offer. It follows focus, is not
repainted when the keys stay the same, presses the key clicked, and leaves out whole keys that do not fit."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button

from tests.ui.screen_steps import until
from tui.ui.widgets.footer import Footer


class Keyed(Button):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("k", "app.pressed('k')", "Keyed")]


class Plain(Button):
    pass


class CountingFooter(Footer):
    renders = 0

    def render(self) -> Text:
        self.renders += 1
        return super().render()


class Two(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "pressed('q')", "Quit"),
        Binding("w", "pressed('w')", "Wide key with a long description"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.pressed: list[str] = []

    def compose(self) -> ComposeResult:
        yield Keyed("one", id="keyed")
        yield Plain("two", id="plain")
        yield Plain("three", id="plain2")
        yield CountingFooter()

    def action_pressed(self, key: str) -> None:
        self.pressed.append(key)


def shown(app: App[None]) -> str:
    return app.query_one(Footer).text()


async def test_footer_follows_focus_and_is_not_repainted_for_the_same_keys() -> None:
    app = Two()
    async with app.run_test() as pilot:
        app.query_one("#keyed").focus()
        await until(pilot, lambda: "k Keyed" in shown(app), "the focused widget's key")
        assert shown(app).startswith("k Keyed q Quit")  # the focused widget's keys first, then the app's

        app.query_one("#plain").focus()
        await until(pilot, lambda: "Keyed" not in shown(app), "the key gone with the focus")
        assert "q Quit" in shown(app)
        footer = app.query_one(CountingFooter)
        await pilot.pause()  # the app idle and its screen updated: whatever was to be drawn is
        drawn = footer.renders

        app.query_one("#plain2").focus()  # the same keys: nothing to draw
        await pilot.pause()  # the focus handled, the bindings' signal sent and the screen updated
        assert footer.renders == drawn


async def test_a_click_on_a_key_presses_it_and_the_palette_s_key_stays_at_the_right() -> None:
    app = Two()
    async with app.run_test(size=(100, 10)) as pilot:
        app.query_one("#keyed").focus()
        await until(pilot, lambda: "k Keyed" in shown(app), "the focused widget's key")
        line = app.query_one(Footer).render().plain
        assert line.endswith("▏^p palette ") and len(line) == 100
        await pilot.click(Footer, offset=(line.index("Quit"), 0))
        await pilot.click(Footer, offset=(line.index("k Keyed"), 0))
        await pilot.click(Footer, offset=(len("k Keyed"), 0))  # the space between two keys: nothing
        assert app.pressed == ["q", "k"]


async def test_a_key_that_does_not_fit_is_left_out_whole() -> None:
    app = Two()
    async with app.run_test(size=(40, 10)) as pilot:
        app.query_one("#plain").focus()
        await until(pilot, lambda: "Keyed" not in shown(app), "the key gone with the focus")
        line = app.query_one(Footer).render().plain
        assert line.startswith("q Quit ") and "Wide" not in line, line  # not "w Wide key wi"
        assert line.endswith("▏^p palette ") and len(line) == 40
