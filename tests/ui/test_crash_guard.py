"""The crash guard on a small app of its own: a handler that raises in a dialog is told in a notification and
logged with its traceback, the dialog (whose message loop ended with the error) is closed and the app answers
keys. An error in the app's own loop, or a storm of errors (something failing on every frame), still ends the
app as Textual does: a dead app loop would not even answer q."""

from __future__ import annotations

import logging
from typing import ClassVar

import pytest
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from tests.ui.conftest import Notes
from tests.ui.screen_steps import until
from tui.ui.render.crash_guard import BURST, guard_app


class Failing(ModalScreen[None]):
    def compose(self) -> ComposeResult:
        yield Input(id="typed")

    @on(Input.Submitted)
    def _submitted(self) -> None:
        raise ZeroDivisionError("a handler that fails")


class Small(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "failing", "Failing dialog"),
        Binding("r", "raise_now", "Raise in an action"),
        Binding("l", "raise_later", "Raise in a callback of the app's own loop"),
    ]

    def __init__(self) -> None:
        super().__init__()
        guard_app(self)
        self.dialogs = 0

    def compose(self) -> ComposeResult:
        yield Label("the app")

    def action_failing(self) -> None:
        self.dialogs += 1
        self.push_screen(Failing())

    def action_raise_now(self) -> None:
        raise KeyError("an action that fails")

    def action_raise_later(self) -> None:
        self.call_later(self._fails_later)

    def _fails_later(self) -> None:
        raise LookupError("a callback that fails")


async def test_a_failing_dialog_is_told_logged_and_closed(caplog: pytest.LogCaptureFixture) -> None:
    app = Small()
    notes = Notes()
    reached: list[str] = []  # asserted after: run_test re-raises the first error at its end, hiding a failed assert
    with caplog.at_level(logging.ERROR, logger="tui.ui"), pytest.raises(ZeroDivisionError):
        async with app.run_test(message_hook=notes) as pilot:
            for n in (1, 2):  # a second dialog after the first failed: the app still opens and closes them
                await pilot.press("f")
                await until(pilot, lambda: isinstance(app.screen, Failing), "the dialog")
                await pilot.press("x", "enter")
                await until(pilot, lambda n=n: len(notes.messages) == n, "the notification")
                await until(pilot, lambda: not isinstance(app.screen, Failing), "the dialog closed")
                reached.append("closed")
            await pilot.press("r")  # a key binding's action runs in the app's loop: caught before it ends it
            await until(pilot, lambda: len(notes.messages) == 3, "the third notification")
            await pilot.press("f")
            await until(pilot, lambda: app.dialogs == 3 and isinstance(app.screen, Failing), "a third dialog")
            reached.append("running" if app.is_running else "ended")
    assert reached == ["closed", "closed", "running"]
    assert "ZeroDivisionError: a handler that fails" in notes.messages[0] and "Failing" in notes.messages[0]
    assert "raise_now failed: KeyError" in notes.messages[2]
    logged = [r.exc_info[0] for r in caplog.records if r.name == "tui.ui" and r.exc_info]
    assert logged == [ZeroDivisionError, ZeroDivisionError, KeyError]


async def test_an_error_in_the_apps_own_loop_ends_it_as_textual_does(caplog: pytest.LogCaptureFixture) -> None:
    """Not an action, not a dialog's answer: a callback of the app's loop. That loop has ended, so the app would no
    longer answer a key, not even q: it ends (logged first) rather than hang."""
    app = Small()
    with caplog.at_level(logging.ERROR, logger="tui.ui"), pytest.raises(LookupError):
        async with app.run_test() as pilot:
            await pilot.press("l")
            await until(pilot, lambda: not app.is_running, "the app to end")
    assert app.return_code == 1
    assert [r.exc_info[0] for r in caplog.records if r.name == "tui.ui" and r.exc_info] == [LookupError]


def ended(app: App[None]) -> bool:
    return app.return_code is not None  # set at once by Textual's exit on an error


async def test_a_storm_of_errors_ends_the_app() -> None:
    """``BURST`` dialogs fail within ``BURST_S``: each is closed and told; the next one ends the app."""
    app = Small()
    closed: list[int] = []
    with pytest.raises(ZeroDivisionError):
        async with app.run_test() as pilot:
            for n in range(BURST + 1):
                await pilot.press("f")
                await until(pilot, lambda: isinstance(app.screen, Failing), "the dialog")
                # Enter as the Input posts it: Pilot's press would wait for the failed dialog to answer (30 s)
                await app.screen.query_one(Input).action_submit()
                await until(pilot, lambda: not isinstance(app.screen, Failing) or ended(app), "closed or ended")
                if ended(app):
                    break
                closed.append(n)
    assert closed == list(range(BURST)) and app.return_code == 1
