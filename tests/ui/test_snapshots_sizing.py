"""Snapshots of the order form's sizing parts: a preset's words, and a size from risk with its loss at the stop and
the stop placed with the order (160x48 and 80x24), and of the reverse question."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Checkbox, Input

from tests.ui.conftest import settle
from tests.ui.test_snapshots import exchange, frozen, loaded, open_form, snapshot_app
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.screens.confirm import ConfirmScreen

__all__ = ["exchange", "frozen"]  # the fixtures, used by name


@pytest.mark.parametrize("size", [(160, 48), (80, 24)], ids=["160x48", "80x24"])
def test_order_form_sized_from_risk(
    snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, size: tuple[int, int]
) -> None:
    """The sell form at 99,860 with 1% of equity at risk and the stop at 100,860, placed with it: the size the risk
    gives (locked), the budget, the loss at the stop with fees and at the stop's 1% bound."""

    async def typed(pilot: Any) -> None:
        await open_form(pilot)
        form = pilot.app.screen
        form.query_one("#risk_pct", Input).value = "1"
        form.query_one("#stop", Input).value = "100860"
        form.query_one("#with_stop", Checkbox).value = True
        await settle(pilot, lambda: form.query_one("#size", Input).disabled, what="the size from risk")
        await pilot.pause()

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=size, run_before=typed)


def test_order_form_preset(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock) -> None:
    """ctrl+o in the sell form while long 0.02: 25% of the position, and the line saying so (80x24)."""

    async def preset(pilot: Any) -> None:
        await open_form(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot, lambda: pilot.app.screen.query_one("#size", Input).value == "0.005", what="the preset")
        await pilot.pause()

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=(80, 24), run_before=preset)


def test_reverse_question(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock) -> None:
    """ctrl+r on the long 0.02: the question, with the order, the reversal, the estimate and the liquidation price."""

    async def ask(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("3", "ctrl+r")
        await settle(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the question")
        await pilot.pause()

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=(120, 40), run_before=ask)
