"""Steps the data-screen tests share: wait for a condition, open a screen, fill a form, read a table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from textual.widgets import Input

from tests.ui.conftest import Seen, feed_ready
from tui.ui.app import XtuiApp
from tui.ui.screens.catalogue import open_screen
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.data_screen import DataScreen
from tui.ui.screens.form import FormScreen
from tui.ui.widgets.record_table import RecordTable

S = TypeVar("S", bound=DataScreen)


async def until(pilot: Any, ready: Callable[[], object], what: str, timeout_s: float = 10.0) -> None:
    """Let the app run until ``ready()`` (no trailing pause: the tests read state, not pixels)."""
    for _ in range(int(timeout_s / 0.02)):
        if ready():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


async def show(pilot: Any, seen: Seen, key: str, kind: type[S], **options: Any) -> S:
    """Open a data screen with its key (or, with ``options``, as the app does) and wait for its first load
    (``seen`` is the app's ``message_hook``)."""
    app: XtuiApp = pilot.app
    await feed_ready(app)
    if options:  # opened on the app's loop, as a key would: the screen's messages then reach ``seen``
        app.call_later(open_screen, app, key, app.context, **options)
    else:
        await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, kind) and seen.loads[app.screen] >= 1, f"the {kind.__name__}")
    screen = app.screen
    assert isinstance(screen, kind)
    return screen


async def fill_form(pilot: Any, key: str, values: dict[str, str]) -> FormScreen[Any]:
    """Press ``key`` and set the fields of the form it opens."""
    await pilot.press(key)
    await until(pilot, lambda: isinstance(pilot.app.screen, FormScreen), f"the form of {key}")
    form = pilot.app.screen
    for name, value in values.items():
        form.query_one(f"#field-{name}", Input).value = value
    return form


def error_of(form: FormScreen[Any]) -> str:
    return str(form.query_one("#form-error").render())


async def confirm(pilot: Any) -> list[str]:
    """Enter in the form, wait for the confirmation, answer yes; the confirmation's lines."""
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), "the confirmation")
    lines = [str(s.render()) for s in pilot.app.screen.query(".reason")]
    await pilot.press("y")
    return lines


def result_of(screen: DataScreen) -> str:
    """The screen's result line, as the trader reads it."""
    return str(screen.query_one("#screen-result").render())


def tx_of(result: str) -> str:
    """The transaction hash a result line ends with (`` · tx 0x...``)."""
    return result.rsplit(" · tx ", 1)[-1]


def cells(table: RecordTable) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
