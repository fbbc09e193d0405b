"""The footer shows the focused widget's keys, and is rebuilt only when they change."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button
from textual.widgets._footer import FooterKey

from tests.ui.screen_steps import until
from tui.ui.widgets.footer import Footer


class Keyed(Button):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("k", "press", "Keyed")]


class Plain(Button):
    pass


class Two(App[None]):
    def compose(self) -> ComposeResult:
        yield Keyed("one", id="keyed")
        yield Plain("two", id="plain")
        yield Plain("three", id="plain2")
        yield Footer()


def shown(app: App[None]) -> list[str]:
    return [str(k.description) for k in app.screen.query(FooterKey)]


async def test_footer_follows_focus_and_is_not_rebuilt_for_the_same_keys() -> None:
    app = Two()
    async with app.run_test() as pilot:
        app.query_one("#keyed").focus()
        await until(pilot, lambda: "Keyed" in shown(app), "the focused widget's key")

        app.query_one("#plain").focus()
        # the footer's keys for the new focus, not the empty moment between the old ones going and these coming
        await until(pilot, lambda: bool(shown(app)) and "Keyed" not in shown(app), "the key gone with the focus")
        keys = list(app.screen.query(FooterKey))

        app.query_one("#plain2").focus()  # the same keys: the footer keeps its widgets
        await pilot.pause(0.1)
        assert list(app.screen.query(FooterKey)) == keys and all(k.is_attached for k in keys)
