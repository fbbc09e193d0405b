"""Snapshot of the dashboard armed: the red banner across the top (120x40), and the palette arming it."""

from __future__ import annotations

from typing import Any

from textual.command import CommandPalette

from tests.ui.conftest import palette_search, settle
from tests.ui.test_snapshots import exchange, frozen, loaded, snapshot_app
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.widgets.armed_banner import ArmedBanner

__all__ = ["exchange", "frozen"]  # the fixtures, used by name


def test_armed_banner(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock) -> None:
    """Armed from the command palette ("armed"): the banner shows, in the colour kept for danger."""

    async def arm(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(pilot.app.screen, CommandPalette), what="the palette")
        await palette_search(pilot, "armed mode", "Armed mode")
        await pilot.press("enter")
        banner = pilot.app.main.query_one(ArmedBanner)
        await settle(pilot, lambda: banner.display and pilot.app.screen is pilot.app.main, what="the banner")
        pilot.app.clear_notifications()  # the toast says it too; the picture is of the banner

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=(120, 40), run_before=arm)
