"""A trailing stop against a real `xtui sim` process, alone and under faults: the exchange frozen (SIGSTOP) mid-move,
killed and started again mid-move, every /info failing behind a proxy, a placeOrder's answer lost or the order
dropped, and `--faults brutal`. A watcher reads the open orders from the exchange all along: once the first stop
rests, at least one of the trail's reduce-only stops rests at every reading while the position is open, never more
than two, and one once the trail has settled."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal

import pytest

from tests.conftest import BOB_KEY
from tests.fault_proxy import FaultProxy
from tests.feed.sim_process import SimProcess, free_port
from tests.trading.trail_support import (
    ALICE,
    SIZE,
    Market,
    Said,
    StopWatch,
    go_long,
    position,
    runner,
)
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.trading.trail_plan import TrailSpec
from tui.trading.trailing import Trail, TrailRunner

D = Decimal
TIMEOUT_S = 0.5  # the trader's HTTP timeout: a frozen exchange is given up on quickly
SPEC = TrailSpec("BTC-PERP", "sell", D(500))  # 500 below the highest price seen


async def run_up(market: Market, said: Said, trail: Trail, prices: list[int]) -> None:
    """Move the price through ``prices``, each held until the trail has moved for it (or cannot)."""
    for p in prices:
        market.now = D(p)
        want = D(p) - SPEC.distance
        await said.until(lambda want=want: (trail.stop is not None and trail.stop.trigger >= want) or not trail.active)
        await said.until(lambda: trail.old is None or not trail.active)


async def test_the_stop_follows_the_price_up_and_never_down(exchange: SimProcess) -> None:
    """Alice long 0.1 BTC; a trail 500 below the highest price, from 95,000. The price runs to 95,200 (less than a
    step: no move), 95,600, 96,000, then falls to 95,000: the stop goes 94,500 -> 95,100 -> 95,500 and stays there.
    On the exchange: one stop at 95,500 at the end, for 0.1, never none, never more than two."""
    ctx = await go_long(exchange.url)
    market, said, watch = Market(ctx, D(95_000)), Said(), StopWatch(exchange.url)
    watch.start()
    async with Client(exchange.url, signer=ALICE, testnet=True) as alice:
        trails = runner(alice, market, said)
        trail = trails.start(SPEC, D(94_500))
        await said.until(lambda: trail.stop is not None)
        market.now = D(95_200)
        await run_up(market, said, trail, [95_600, 96_000])
        market.now = D(95_000)
        await said.until(lambda: trail.checked_at > 0)
        stops, held = await watch.read()
        await trails.stop_all()
    await watch.stop()
    assert [m for m in said.messages if m.startswith("moved")] == [
        "moved to 95,100 (peak 95,600)",
        "moved to 95,500 (peak 96,000)",
    ]
    assert stops == [D(95_500)] and held == SIZE
    watch.never_lost_or_doubled()
    assert trail.state == "stopped" and "stays on the exchange" in trail.reason
    assert (await watch.read())[0] == [D(95_500)]  # quitting left it there


async def test_closing_the_position_ends_the_trail_and_cancels_its_stop(exchange: SimProcess) -> None:
    """Alice long 0.1 BTC with a trail; she closes the position at market elsewhere. The trail sees it (the
    exchange's positions), ends, says so, and cancels its stop, which could only ever reduce: nothing rests."""
    ctx = await go_long(exchange.url)
    market, said = Market(ctx, D(95_000)), Said()
    async with Client(exchange.url, signer=ALICE, testnet=True) as alice:
        trails = runner(alice, market, said)
        trail = trails.start(SPEC, D(94_500))
        await said.until(lambda: trail.stop is not None)
        async with Client(exchange.url, signer=Signer(BOB_KEY), testnet=True) as bob:
            await bob.place_order([order_item(1, "b", "99000", "1")])
        async with Client(exchange.url, signer=ALICE, testnet=True) as other:
            await other.place_order([order_item(1, "s", "99000", str(SIZE), tif="IOC", reduce_only=True)])
        market.close()
        await said.until(lambda: not trail.active)
    assert trail.state == "ended"
    assert trail.reason == "the BTC-PERP long position is closed: trail ended; no stop of it rests"
    assert await StopWatch(exchange.url).read() == ([], D(0))


async def test_a_stop_cancelled_by_hand_ends_the_trail_and_says_so(exchange: SimProcess) -> None:
    """The trail's stop cancelled elsewhere (`x` on its row, another client) while the position stays: at its next
    look at the record the trail ends, saying the stop was cancelled and that no stop of it rests; it places
    nothing more however far the price then runs."""
    ctx = await go_long(exchange.url)
    market, said = Market(ctx, D(95_000)), Said()
    async with Client(exchange.url, signer=ALICE, testnet=True) as alice:
        trails = runner(alice, market, said)
        trail = trails.start(SPEC, D(94_500))
        await said.until(lambda: trail.stop is not None)
        assert trail.stop is not None
        await alice.cancel_by_cloid([(trail.stop.cloid, ctx.instrument_id)])
        market.now = D(99_000)
        await said.until(lambda: not trail.active)
    assert trail.state == "ended" and trail.moves == 0
    assert trail.reason == "the stop at 94,500 was cancelled, not by this trail: trail ended; no stop of it rests"
    assert await StopWatch(exchange.url).read() == ([], SIZE)


async def test_a_move_frozen_half_way_is_confirmed_before_the_next(exchange: SimProcess) -> None:
    """The exchange frozen (SIGSTOP) just after a move placed its new stop, so the old one's cancel times out;
    the price runs on while it is frozen. The trail places nothing more until the old stop's cancel is confirmed
    (thawed: the cancel is sent again or the record says it is gone), then moves on. Never none, never three."""
    ctx = await go_long(exchange.url)
    market, said, watch = Market(ctx, D(95_000)), Said(), StopWatch(exchange.url)
    frozen: list[bool] = []

    def freeze(what: str) -> None:
        if what.startswith("moved to") and not frozen:
            exchange.signal(signal.SIGSTOP)
            frozen.append(True)

    said.hooks.append(freeze)
    watch.start()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        trails = runner(alice, market, said)
        trail = trails.start(SPEC, D(94_500))
        await said.until(lambda: trail.stop is not None)
        market.now = D(95_600)
        try:
            await said.until(lambda: said.any("the cancel of the stop at 94,500 is unconfirmed"))
            market.now = D(97_000)
            await said.until(lambda: said.any("the cancel of the stop at 94,500 is unconfirmed (the exchange's"))
            assert trail.moves == 1 and trail.old is not None  # asked again, still frozen: nothing more placed
        finally:
            exchange.signal(signal.SIGCONT)
        await said.until(lambda: trail.stop is not None and trail.stop.trigger == D(96_500) and trail.old is None)
        await said.until(lambda: trail.checked_at > 0)
        stops, held = await watch.read()
        await trails.stop_all()
    await watch.stop()
    assert stops == [D(96_500)] and held == SIZE
    watch.never_lost_or_doubled()


async def test_an_exchange_killed_mid_move_and_started_again_ends_the_trail(exchange: SimProcess) -> None:
    """The exchange killed (SIGKILL) just after a move placed its new stop, and started again (empty: a fresh
    exchange remembers no position). The trail cannot confirm the old stop's cancel while it is down and places
    nothing; once it answers, the record has no position: the trail ends, says so, and the new exchange holds no
    order of it."""
    ctx = await go_long(exchange.url)
    market, said = Market(ctx, D(95_000)), Said()
    moved = asyncio.Event()
    said.hooks.append(lambda what: moved.set() if what.startswith("moved to") else None)
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        trails = runner(alice, market, said)
        trail = trails.start(SPEC, D(94_500))
        await said.until(lambda: trail.stop is not None)
        market.now = D(95_600)
        async with asyncio.timeout(60):
            await moved.wait()
        await exchange.kill()
        await said.until(lambda: trail.waiting)
        placed = trail.moves
        await exchange.start()
        await said.until(lambda: not trail.active)
    assert trail.moves == placed == 1
    assert trail.state == "ended" and trail.reason.startswith("the BTC-PERP long position is closed: trail ended")
    async with Client(exchange.url, testnet=True) as reader:
        assert (await reader.open_orders(ALICE.address)).data == []
        assert (await reader.order_history(ALICE.address)).data == []
    assert await position(exchange.url) == 0


@asynccontextmanager
async def trailing_behind_a_proxy(
    exchange: SimProcess,
) -> AsyncIterator[tuple[FaultProxy, Market, Said, TrailRunner, Trail, StopWatch]]:
    """Alice long, her trail from 95,000 run through a fault proxy, its first stop resting; the exchange's stops
    watched all along (the watcher, stopped at the end, is read after)."""
    ctx = await go_long(exchange.url)
    proxy = FaultProxy(exchange.url)
    await proxy.start()
    market, said, watch = Market(ctx, D(95_000)), Said(), StopWatch(exchange.url)
    watch.start()
    try:
        async with Client(proxy.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
            trails = runner(alice, market, said)
            trail = trails.start(SPEC, D(94_500))
            await said.until(lambda: trail.stop is not None)
            yield proxy, market, said, trails, trail, watch
    finally:
        await proxy.stop()
        await watch.stop()


@pytest.mark.parametrize("mode", ["500", "hang"])
async def test_a_trail_that_cannot_read_the_position_does_not_move(exchange: SimProcess, mode: str) -> None:
    """Every /info failing behind a proxy (500, or no answer) while /exchange answers: the price runs, but the
    trail cannot read the position, says so and places nothing; its stop stays. Once /info answers, it moves."""
    async with trailing_behind_a_proxy(exchange) as (proxy, market, said, trails, trail, watch):
        proxy.mode = mode  # type: ignore[assignment]
        market.now = D(96_000)
        await said.until(lambda: said.any("not readable"))
        await proxy.until_failed(6, 60)
        assert trail.moves == 0 and proxy.forwarded.count("/exchange") == 1
        proxy.mode = "pass"
        await said.until(lambda: trail.stop is not None and trail.stop.trigger == D(95_500) and trail.old is None)
        await trails.stop_all()
    assert (await watch.read())[0] == [D(95_500)]
    watch.never_lost_or_doubled()


@pytest.mark.parametrize("fault", ["lose_answer", "drop"])
@pytest.mark.long
async def test_a_new_stop_whose_answer_is_lost_is_settled_by_its_cloid(exchange: SimProcess, fault: str) -> None:
    """A move's placeOrder lost behind a proxy: done but unanswered ("lose_answer"), or never delivered ("drop").
    The trail says the new stop is unconfirmed and reads the record by its cloid before anything else: there, it
    is the stop and the old one is cancelled; absent once its expiry has passed, the old one still is and the next
    step moves again. One stop at the end, never none, never more than two."""
    async with trailing_behind_a_proxy(exchange) as (proxy, market, said, trails, trail, watch):
        proxy.place_fault = fault  # type: ignore[assignment]
        market.now = D(95_600)
        await said.until(lambda: said.any("the stop at 95,100 is unconfirmed"))
        await said.until(lambda: trail.stop is not None and trail.stop.trigger == D(95_100) and trail.old is None)
        await said.until(lambda: trail.checked_at > 0)
        await trails.stop_all()
    assert (await watch.read())[0] == [D(95_100)]
    watch.never_lost_or_doubled()


@pytest.mark.long
async def test_a_trail_under_brutal_faults_is_never_lost_nor_doubled() -> None:
    """`xtui sim --faults brutal` (slow answers, refusals, /info timeouts, dropped sockets, partial fills): the
    price runs up in steps of 300 to 97,400. However the faults fall, at every reading one or two stops rest, and
    when the trail has settled one rests, at 96,900."""
    sim = SimProcess(free_port(), "--faults", "brutal", "--fault-seed", "7")
    await sim.start()
    watch = StopWatch(sim.url)
    try:
        ctx = await go_long(sim.url)
        market, said = Market(ctx, D(95_000)), Said()
        watch.start()
        async with Client(sim.url, signer=ALICE, testnet=True, timeout=1.0) as alice:
            trails = runner(alice, market, said, step_s=0.05)
            trail = trails.start(SPEC, D(94_500))
            await said.until(lambda: trail.stop is not None, 120)
            await run_up(market, said, trail, list(range(95_300, 97_401, 300)))
            assert trail.active, trail.reason
            await trails.stop_all()
        await watch.stop()
        for _ in range(10):  # /info times out now and then: read until it answers
            try:
                stops, held = await watch.read()
                break
            except Exception:
                continue
        assert stops == [D(96_900)] and held == SIZE
        watch.never_lost_or_doubled()
    finally:
        await watch.stop()
        await sim.stop()
