"""The heatmap opens centred on the mid: its first picture has the book's mid in its middle rows, whether it is
opened as soon as the dashboard is up (a column or none yet) or after the market has moved away from the first
columns the history took."""

from __future__ import annotations

from array import array
from decimal import Decimal

import pytest

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.heatmap import HeatmapScreen
from tui.ui.widgets.heatmap import HeatmapPane, HeatmapView

ALICE = Signer(ALICE_KEY)


def mid_row(pane: HeatmapPane, mid: Decimal) -> float:
    assert pane.top is not None and pane.step is not None
    return float((pane.top - mid) / pane.step)


@pytest.mark.parametrize(("size", "stale"), [((160, 48), False), ((80, 24), False), ((120, 30), True)])
async def test_the_first_picture_has_the_mid_in_its_middle_rows(
    sim: LocalExchange,
    clock: FrozenClock,
    trader: Client,
    size: tuple[int, int],
    stale: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Opened once the dashboard is up; or (stale) with the history's latest column taken at a price 0.5% away
    (a column is a second old, five with --low-bandwidth, and the market moves meanwhile): the first picture has
    the mid the book has now in its middle rows, not the old column's."""
    firsts: list[tuple[float, int]] = []  # (the mid's row, the rows) of each picture with price rows
    shown = HeatmapView.show
    app = dashboard(trader, sim, clock, ALICE)

    def show(view: HeatmapView, strips: list[object], keys: list[tuple[str, ...]]) -> None:
        pane = view.parent
        mid = app.feed.state.market.book.mid
        if strips and isinstance(pane, HeatmapPane) and mid is not None:
            firsts.append((mid_row(pane, mid), pane.rows))
        shown(view, strips, keys)  # type: ignore[arg-type]

    monkeypatch.setattr(HeatmapView, "show", show)
    async with app.run_test(size=size) as pilot:
        await feed_ready(app)
        if stale:
            history = app.main.depth_history
            await settle(pilot, lambda: history.samples >= 1, what="a column of the book")
            app.main.sampling = False
            last = history.ring[-1]
            moved = [v * 1.005 if i % 2 == 0 else v for i, v in enumerate(last.bids)]
            history.ring.append(last._replace(bids=array("d", moved), asks=array("d", [])))
            history.samples += 1
        await pilot.press("h")
        await settle(pilot, lambda: isinstance(app.screen, HeatmapScreen), what="the heatmap")
        pane = app.screen.query_one(HeatmapPane)
        await settle(pilot, lambda: pane.grid and firsts, what="the first picture")
        row, rows = firsts[0]
        assert abs(row - (rows - 1) / 2) <= max(1.5, rows / 10), f"the mid on row {row:.1f} of {rows}"
