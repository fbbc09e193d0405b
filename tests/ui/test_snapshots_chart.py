"""Snapshots of the dashboard with its chart in view at first open: at 160x48 (always shown), at 120x30 and
80x24 (where it shares a place with the book and the tape: v twice), and in every theme shipped.

Built as ``test_snapshots`` builds its pictures (a seeded exchange, a frozen clock, a pinned budget).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.ui.conftest import settle
from tests.ui.test_snapshots import exchange, frozen, loaded, snapshot_app
from tui.config.launch import DashboardOptions
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.widgets.chart import ChartPane

__all__ = ["exchange", "frozen"]  # the fixtures, shared

THEMES = sorted(p.stem for p in (Path(__file__).parents[2] / "themes").glob("*.toml"))


async def chart_in_view(pilot: Any) -> None:
    await loaded(pilot)
    main = pilot.app.main
    while not main.query_one(ChartPane).display:
        await pilot.press("v")
        await pilot.pause()
    pilot.app.clear_notifications()  # "Showing the chart" would cover it
    pane = main.query_one(ChartPane)
    await settle(pilot, lambda: pane.picture is not None and pane.picture.shown > 1, what="the chart drawn")
    await pilot.pause()


@pytest.mark.parametrize("size", [(160, 48), (120, 30), (80, 24)], ids=["160x48", "120x30", "80x24"])
def test_chart_at_first_open(
    snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, size: tuple[int, int]
) -> None:
    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=size, run_before=chart_in_view)


def test_every_theme_is_listed() -> None:
    assert THEMES == ["xtui", "xtui-colorblind", "xtui-light", "xtui-mono"]


@pytest.mark.parametrize("theme", THEMES)
def test_chart_in_each_theme(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, theme: str) -> None:
    app = snapshot_app(exchange, frozen, options=DashboardOptions(theme=theme))
    assert snap_compare(app, terminal_size=(120, 30), run_before=chart_in_view)
