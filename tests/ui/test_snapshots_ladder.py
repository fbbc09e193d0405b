"""Snapshots of the price ladder and the book heatmap at 160x48, 120x30 and 80x24, every figure pinned.

The dashboard is pinned as in ``test_snapshots`` (seeded exchange, frozen clock; Alice has a resting bid and a
0.02 long). The ladder shows that book as it is. The heatmap's history is not sampled in real time here: the
dashboard's sampling is stopped and the history is made of the frozen book, moved a band up or down in a fixed
pattern from one column to the next, with a trade every seventh column.
"""

from __future__ import annotations

import math
from array import array
from typing import Any

import pytest

from tests.ui.conftest import settle
from tests.ui.test_snapshots import exchange, frozen, loaded, snapshot_app  # noqa: F401 (fixtures)
from tui.feed.heatmap import DepthColumn
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.screens.heatmap import HeatmapScreen
from tui.ui.screens.ladder import LadderScreen
from tui.ui.widgets.heatmap import HeatmapPane
from tui.ui.widgets.ladder import LadderPane

SIZES = [(160, 48), (120, 30), (80, 24)]
IDS = ["160x48", "120x30", "80x24"]
COLUMNS = 150


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_ladder(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, size: tuple[int, int]) -> None:  # noqa: F811
    async def ladder(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("D")
        await settle(pilot, lambda: isinstance(pilot.app.screen, LadderScreen), what="the ladder")
        pane = pilot.app.screen.query_one(LadderPane)
        await settle(pilot, lambda: pane.levels and any(level.my_bid for level in pane.levels), what="your bid")

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=size, run_before=ladder)


def pinned_history(app: Any) -> None:
    """The heatmap's history, made of the frozen book moved a band at a time in a fixed pattern."""
    main = app.main
    main.sampling = False
    book = app.feed.state.market.book
    bids = [(float(p), float(s)) for p, s in book.levels("bids", 40)]
    asks = [(float(p), float(s)) for p, s in book.levels("asks", 40)]
    history = main.depth_history
    history.ring.clear()
    history.symbol = book.symbol
    for i in range(COLUMNS):
        shift = 10.0 * round(3 * math.sin(i / 12))
        trades = [asks[0][0] + shift, 0.05, 1.0] if i % 7 == 3 else []
        trades += [bids[0][0] + shift, 0.02, 0.0] if i % 7 == 5 else []
        history.ring.append(
            DepthColumn(
                float(i),
                array("d", [v for p, s in bids for v in (p + shift, s * (1 + (i % 5) / 4))]),
                array("d", [v for p, s in asks for v in (p + shift, s)]),
                array("d", trades),
            )
        )
    history.samples += 1


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_heatmap(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, size: tuple[int, int]) -> None:  # noqa: F811
    async def heatmap(pilot: Any) -> None:
        await loaded(pilot)
        pinned_history(pilot.app)
        await pilot.press("h")
        await settle(pilot, lambda: isinstance(pilot.app.screen, HeatmapScreen), what="the heatmap")
        pane = pilot.app.screen.query_one(HeatmapPane)
        await settle(pilot, lambda: pane.grid, what="the picture")

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=size, run_before=heatmap)
