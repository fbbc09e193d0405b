"""Snapshots of the book as a depth chart (with its cursor) and of the diagnostics overlay, every figure pinned.

The dashboard is pinned as in ``test_snapshots``; the overlay's probes are pinned here: a clock the test steps,
and counters that hold set values before (the app's start) and after (the overlay opens), so each rate is a
known count over a known two seconds.
"""

from __future__ import annotations

from typing import Any

from tests.ui.conftest import settle
from tests.ui.test_snapshots import PinnedGovernor, exchange, frozen, loaded, snapshot_app  # noqa: F401 (fixtures)
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.diagnostics import FrameStats, Probes, ProcessUsage
from tui.ui.widgets.book import OrderBookPane
from tui.ui.widgets.diagnostics_overlay import DiagnosticsOverlay


class Pinned:
    """The probes' readings at the app's start (``opened`` False) and when the overlay opens (True)."""

    def __init__(self) -> None:
        self.opened = False

    def probes(self) -> Probes:
        return Probes(
            messages=lambda: {"orderbook": 220, "ticker": 78, "trades": 12, "chart": 2} if self.opened else {},
            rate=PinnedGovernor().status,
            frames=lambda: FrameStats(19, 0.0817, 0.0123) if self.opened else FrameStats(0, 0.0, 0.0),
            written=lambda: 18_432 if self.opened else 0,
            process=lambda: ProcessUsage(0.25 if self.opened else 0.1, 96 * 1_048_576),
            clock=lambda: 102.0 if self.opened else 100.0,
        )


def test_depth_chart(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock) -> None:  # noqa: F811
    async def depth(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("2", "d", "left", "left", "left")
        chart = pilot.app.main.query_one(OrderBookPane).chart
        await settle(pilot, lambda: chart.cursor is not None, what="the depth chart's cursor")

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=(120, 40), run_before=depth)


def test_diagnostics_overlay(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock) -> None:  # noqa: F811
    pinned = Pinned()
    app = snapshot_app(exchange, frozen)
    app.probes = pinned.probes()

    async def overlay(pilot: Any) -> None:
        await loaded(pilot)
        pinned.opened = True
        await pilot.press("f12")
        await settle(pilot, lambda: pilot.app.main.query(DiagnosticsOverlay), what="the overlay")

    assert snap_compare(app, terminal_size=(120, 40), run_before=overlay)
