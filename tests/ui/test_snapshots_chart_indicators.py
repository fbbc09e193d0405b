"""Snapshots of the chart with each indicator (SMA 20/50, EMA 20/50, VWAP from 00:00 UTC, the volume profile beside
the axis, RSI 14 in its pane) and with all of them, at 160x48 and, with the chart shown by v, at 80x24: each line
in its colour and mark, named with its value in the one legend on the chart's last line.

Built as ``test_snapshots_chart`` builds its pictures: a seeded exchange, a frozen clock, a pinned budget.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.ui.conftest import settle
from tests.ui.test_snapshots import exchange, frozen, snapshot_app
from tests.ui.test_snapshots_chart import chart_in_view
from tui.feed.indicator_choice import IndicatorChoice
from tui.feed.indicators import INDICATORS
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.widgets.chart import CandleChart, ChartPane

__all__ = ["exchange", "frozen"]  # the fixtures, shared

CHOICES = [(name,) for name in INDICATORS] + [INDICATORS]
NAMES = {"sma": "SMA20", "ema": "EMA20", "vwap": "VWAP", "profile": "vol profile", "rsi": "RSI14"}


def with_indicators(chosen: tuple[str, ...]) -> Any:
    async def run_before(pilot: Any) -> None:
        await chart_in_view(pilot)
        pane = pilot.app.main.query_one(ChartPane)
        pane.set_indicators(IndicatorChoice(Path("not written"), chosen))  # the default periods
        pane.refresh_state()
        plot = pilot.app.main.query_one(CandleChart)
        await settle(pilot, lambda: NAMES[chosen[0]] in "\n".join(plot.text()), what="the indicator drawn")
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", [(160, 48), (80, 24)], ids=["160x48", "80x24"])
@pytest.mark.parametrize("chosen", CHOICES, ids=["-".join(c) if len(c) == 1 else "all" for c in CHOICES])
def test_chart_with_indicators(
    snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, chosen: tuple[str, ...], size: tuple[int, int]
) -> None:
    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=size, run_before=with_indicators(chosen))
