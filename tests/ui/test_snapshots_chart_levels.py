"""Snapshots of the chart with every kind of line: a short with its TP and SL (position exits), a resting sell,
a stop buy, the fills' ▼ marks, and the liquidation price far above said at the top edge (↑ liq). At 160x48 and,
with the chart shown by v, at 80x24 (labels shortened to their first word and price).

Built as ``test_snapshots`` builds its pictures: a seeded exchange, a frozen clock, a pinned budget, no polls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from tests.ui.conftest import seeded_market, settle
from tests.ui.test_snapshots import ALICE, MINUTES, frozen, snapshot_app
from tests.ui.test_snapshots_chart import chart_in_view
from tui.api.client import Client
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.widgets.chart import CandleChart

__all__ = ["frozen"]  # the fixture, shared

TICK = Decimal("0.1")


@pytest.fixture
def short_with_lines(frozen: FrozenClock) -> Iterator[EmbeddedExchange]:
    with seeded_market(frozen, MINUTES) as ex:

        async def trade() -> None:
            async with Client(ex.url, signer=ALICE, clock_ms=frozen.now_ms, testnet=True) as c:
                await c.cancel_all()  # the faucet
                book = await c.orderbook("BTC-PERP", depth=5)
                bid, ask = book.bids[0].price, book.asks[0].price
                await c.place_order([order_item(1, "s", (book.bids[-1].price * Decimal("0.99")).quantize(TICK), "0.5",
                                                tif="IOC")])  # fmt: skip
                for kind, trigger in (("tp", bid - 150), ("sl", ask + 150)):
                    await c.place_order([order_item(1, "b", "0", "0.5", tif="IOC", trigger_px=trigger, is_market=True,
                                                    tpsl=kind, grouping="position", reduce_only=True)])  # fmt: skip
                await c.place_order([order_item(1, "s", ask + 60, "0.05", cloid="snap-ask")])
                await c.place_order([order_item(1, "b", "0", "0.1", tif="IOC", trigger_px=ask + 100, is_market=True)])

        asyncio.run(trade())
        yield ex


async def lines_drawn(pilot: Any) -> None:
    await chart_in_view(pilot)
    plot = pilot.app.main.query_one(CandleChart)
    await settle(pilot, lambda: all(w in "".join(plot.text()) for w in ("↑ ", "liq", "SL")), what="the lines")
    await pilot.pause()


@pytest.mark.parametrize("size", [(160, 48), (80, 24)], ids=["160x48", "80x24"])
def test_chart_with_every_kind_of_line(
    snap_compare: Any, short_with_lines: EmbeddedExchange, frozen: FrozenClock, size: tuple[int, int]
) -> None:
    assert snap_compare(snapshot_app(short_with_lines, frozen), terminal_size=size, run_before=lines_drawn)
