"""The markets pane gives its columns the pane's room at every size: the figures are spaced across it, not followed
by ~20 blank columns at 160x48 (``MarketsPane.fitting``)."""

from __future__ import annotations

import pytest

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.widgets.markets import MarketsPane

ALICE = Signer(ALICE_KEY)


@pytest.mark.parametrize(("size", "shown"), [((160, 48), 7), ((120, 30), 7), ((80, 24), 4)])
async def test_the_markets_columns_take_the_panes_width(
    sim: LocalExchange, clock: FrozenClock, trader: Client, size: tuple[int, int], shown: int
) -> None:
    """At 160x48 and 120x30 every column (volume and open interest among them), at 80x24 the four that matter
    most; together as wide as the pane inside its border, give or take the vertical scrollbar's column."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=size) as pilot:
        await feed_ready(app)
        pane = app.main.query_one(MarketsPane)
        await settle(pilot, lambda: pane.rows is not None and len(pane.rows.keys) > 3, what="the markets")
        await pilot.pause()
        widths = [column.width for column in pane.table.columns.values()]
        assert len(widths) == shown, pane.columns
        assert pane.size.width - 1 <= sum(widths) <= pane.size.width, (widths, pane.size.width)
