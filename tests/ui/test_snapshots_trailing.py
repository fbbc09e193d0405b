"""Snapshots of the trailing stop's form on the 0.02 BTC long, "1%" typed (the first stop previewed), at 160x48 and
80x24: what it does, that the last stop stays on the exchange if xtui stops, what Enter does."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input

from tests.ui.conftest import settle
from tests.ui.test_snapshots import exchange, frozen, loaded, snapshot_app
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.screens.form import FormScreen

__all__ = ["exchange", "frozen"]  # the fixtures, shared with the dashboard's snapshots


async def trailing_form(pilot: Any) -> None:
    await loaded(pilot)
    await pilot.press("3", "l")
    await settle(pilot, lambda: isinstance(pilot.app.screen, FormScreen), what="the form")
    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False  # a blinking cursor would be on or off at random in the picture
    pilot.app.screen.query_one("#field-distance", Input).value = "1%"
    await pilot.pause()


@pytest.mark.parametrize("size", [(160, 48), (80, 24)], ids=["160x48", "80x24"])
def test_trailing_stop_form(
    snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, size: tuple[int, int]
) -> None:
    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=size, run_before=trailing_form)
