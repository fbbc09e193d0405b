"""A trailing stop's resize against a real `xtui sim` process frozen (SIGSTOP) as the position grows: the trail
cannot read the exchange, places nothing, and says the position is not covered (``uncovered()``); thawed
(SIGCONT), it covers the whole position with one stop."""

from __future__ import annotations

import signal
from decimal import Decimal

import msgspec
import pytest

from tests.feed.sim_process import SimProcess
from tests.trading.trail_support import ALICE, SIZE, Market, Said, StopWatch, go_long, position, retried, runner
from tui.api.client import Client
from tui.api.wire import order_item
from tui.trading.trail_plan import TrailSpec

D = Decimal
TIMEOUT_S = 0.5  # the trader's HTTP timeout: a frozen exchange is given up on quickly
SPEC = TrailSpec("BTC-PERP", "sell", D(500))


@pytest.mark.long
async def test_a_resize_while_the_exchange_is_frozen_says_not_covered_then_covers(exchange: SimProcess) -> None:
    """Alice long 0.1 with a trail; she buys 0.2 more (the feed has not shown it yet), then the exchange is frozen
    and the feed shows 0.3: the trail says "not covered: the stop covers 0.1 of 0.3", uncovered() reports it, its
    row shouts it. Thawed: one stop rests, SELL 0.3 at the same trigger, and nothing is uncovered."""
    ctx = await go_long(exchange.url)
    market, said = Market(ctx, D(95_000)), Said()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        trails = runner(alice, market, said)
        trail = trails.start(SPEC, D(94_500))
        await said.until(lambda: trail.stop is not None)
        async with Client(exchange.url, signer=ALICE, testnet=True) as other:
            await retried(lambda: other.place_order([order_item(1, "b", "100100", "0.2", tif="IOC")]))
        assert await position(exchange.url) == D("0.3")
        exchange.signal(signal.SIGSTOP)
        try:
            market.ctx = msgspec.structs.replace(market.ctx, position=D("0.3"))  # the feed catches up
            await said.until(lambda: bool(trails.uncovered()))
            assert trails.uncovered() == {"BTC-PERP": "not covered: the stop covers 0.1 of 0.3 BTC-PERP"}
            assert trail.label()[1] == "NOT COVERED: the stop covers 0.1 of 0.3 BTC-PERP"
            assert trail.stop is not None and trail.stop.size == SIZE and trail.active
            assert said.any("not covered: the stop covers 0.1 of 0.3 BTC-PERP (")
        finally:
            exchange.signal(signal.SIGCONT)
        await said.until(lambda: trail.stop is not None and trail.stop.size == D("0.3") and trail.old is None)
        assert trails.uncovered() == {}
        stops, held = await StopWatch(exchange.url).read()
        await trails.stop_all()
    assert stops == [D(94_500)] and held == D("0.3")
    async with Client(exchange.url, testnet=True) as reader:
        [stop] = [o for o in (await reader.open_orders(ALICE.address)).data if o.trigger_px]
    assert stop.size == D("0.3") and stop.reduce_only and stop.side == "s"
