"""A trailing stop covers the whole position: on the local exchange with a frozen clock, a real feed for Alice's
account, and a runner stepped one step at a time (its sleep waits for the test), the position grows 0.01 -> 0.03
and the one stop resting is for 0.03 after one step; a partial close brings it back to 0.01. When the exchange
refuses the resize, or its record cannot be read, the trail says the position is not covered (and ``uncovered()``
reports it) until a resize is done. A short's trail speaks of its trough. The trail's own cancels (each move
retires the old stop) are not "not from this dashboard" in the event log, nor unread."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from tests import waiting
from tests.conftest import ALICE_KEY, BOB_KEY, client_for, signs_for
from tests.fault_proxy import FaultProxy
from tests.feed.conftest import MakeFeed
from tui.api.client import Client
from tui.api.limits import Governor
from tui.api.models import Order
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.feed.worker import Feed
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading import OrderContext
from tui.trading.context import order_context
from tui.trading.trail_plan import Source, TrailSpec
from tui.trading.trailing import Trail, TrailRunner

D = Decimal
ALICE = Signer(ALICE_KEY)
LONG = TrailSpec("BTC-PERP", "sell", D(300))
COVERS_1_OF_3 = "not covered: the stop covers 0.01 of 0.03 BTC-PERP"


class Steps:
    """The runner's sleep: each waits until the test lets it go (``step``), so a step is one step, however long
    the machine takes."""

    def __init__(self) -> None:
        self.entered = 0
        self._asleep: list[asyncio.Future[None]] = []

    async def sleep(self, seconds: float) -> None:
        future = asyncio.get_running_loop().create_future()
        self._asleep.append(future)
        self.entered += 1
        await future

    async def asleep(self) -> None:
        """Until the runner is waiting for its next step."""
        await waiting.until(lambda: any(not f.done() for f in self._asleep), "the runner to wait for its next step")

    async def step(self, trail: Trail) -> None:
        """Let the runner take one step, and wait until it has (it waits for the next, or its trail is over)."""
        await self.asleep()
        entered = self.entered
        for future in self._asleep:
            if not future.done():
                future.set_result(None)
        self._asleep.clear()
        await waiting.until(lambda: self.entered > entered or not trail.active, "the runner's step")


def stepped_runner(sim: LocalExchange, alice: Client, feed: Feed, said: list[str], steps: Steps) -> TrailRunner:
    """The runner as the session makes it: the feed's context (position, mark), the exchange's mark as its price;
    each step when the test says; the stop's record read only when a move or a resize needs it."""

    def context(symbol: str) -> OrderContext | None:
        return order_context(feed.state, symbol)

    def price(symbol: str, source: Source) -> Decimal:
        return sim.engine.markets[1].mark

    def changed(trail: Trail, what: str) -> None:
        said.append(what)

    return TrailRunner(
        alice, ALICE.address, context, price, changed, clock=lambda: 0.0, sleep=steps.sleep, check_s=3600.0
    )


def mark_to(sim: LocalExchange, price: int) -> None:
    sim.engine.set_mark_price(1, str(price))
    sim.step(100)


async def book(sim: LocalExchange, clock: FrozenClock) -> None:
    """Bob rests both sides, 1 BTC at 100,010 and at 99,990."""
    async with client_for(sim, BOB_KEY, clock) as bob:
        await bob.place_order([order_item(1, "s", "100010", "1"), order_item(1, "b", "99990", "1")])


async def trade(alice: Client, side: str, size: str) -> None:
    price = "100010" if side == "b" else "99990"
    resp = await alice.place_order([order_item(1, side, price, size, tif="IOC")])
    assert resp.ok, resp.error


async def feed_holds(feed: Feed, size: str) -> None:
    """Until the feed's position (what the runner reads) is ``size``."""

    def held() -> bool:
        ctx = order_context(feed.state, "BTC-PERP")
        return ctx is not None and ctx.position == D(size)

    await waiting.until(held, f"the feed to show a position of {size}")


async def feed_marks(feed: Feed, price: int) -> None:
    """Until the feed's mark (the context the runner keeps its stop short of) is ``price``."""

    def seen() -> bool:
        ctx = order_context(feed.state, "BTC-PERP")
        return ctx is not None and ctx.mark == D(price)

    await waiting.until(seen, f"the feed to show the mark at {price}")


async def stops(alice: Client) -> list[tuple[str, Decimal, Decimal]]:
    """Alice's resting reduce-only stops on the exchange: (side, size, trigger)."""
    orders: list[Order] = list((await alice.open_orders(ALICE.address)).data)
    return [(o.side, o.size, o.trigger_px) for o in orders if o.reduce_only and o.trigger_px]


@pytest.fixture
async def feed(make_feed: MakeFeed, sim: LocalExchange, clock: FrozenClock) -> Feed:
    mark_to(sim, 100_000)
    made, _ = await make_feed(account=ALICE.address)
    return made


async def started(
    sim: LocalExchange, clock: FrozenClock, alice: Client, feed: Feed, said: list[str], steps: Steps
) -> tuple[TrailRunner, Trail]:
    """Alice long 0.01 (the feed shows it); a trail 300 under the mark, its first stop resting at 99,700."""
    await book(sim, clock)
    await trade(alice, "b", "0.01")
    await feed_holds(feed, "0.01")
    trails = stepped_runner(sim, alice, feed, said, steps)
    trail = trails.start(LONG, D(99_700))
    await steps.asleep()
    assert await stops(alice) == [("s", D("0.01"), D(99_700))]
    return trails, trail


async def test_a_position_that_grows_or_shrinks_is_covered_whole_within_one_step(
    sim: LocalExchange, clock: FrozenClock, alice: Client, feed: Feed
) -> None:
    """Long 0.01 with a trail; 0.02 more bought: one step later the one stop resting is SELL 0.03 at the same
    99,700 (the old 0.01 one cancelled); 0.02 sold: one step later it is SELL 0.01. Never a word of "not covered"."""
    said: list[str] = []
    steps = Steps()
    trails, trail = await started(sim, clock, alice, feed, said, steps)
    await trade(alice, "b", "0.02")
    await feed_holds(feed, "0.03")
    await steps.step(trail)
    assert await stops(alice) == [("s", D("0.03"), D(99_700))]
    assert trail.stop is not None and trail.stop.size == D("0.03") and trail.old is None
    assert trails.uncovered() == {} and trail.label() == ("trailing 300", "peak 100,000")
    assert said[-1] == "resized for the whole position: SELL 0.03 BTC-PERP stop at 99,700 (was 0.01)"
    await trade(alice, "s", "0.02")
    await feed_holds(feed, "0.01")
    await steps.step(trail)
    assert await stops(alice) == [("s", D("0.01"), D(99_700))]
    assert trails.uncovered() == {} and trail.active
    assert not any("not covered" in m for m in said), said
    await trails.stop_all()


async def test_a_refused_resize_says_not_covered_until_one_is_taken(
    sim: LocalExchange, clock: FrozenClock, alice: Client, feed: Feed
) -> None:
    """The exchange refuses any order over 0.02 (its max size lowered) once Alice holds 0.03: each step's resize is
    refused, the trail says the position is not covered, how much is, and keeps saying it (uncovered(), its row, its
    progress); the trail keeps trying. The limit lifted: the next step covers it all, and it says so."""
    said: list[str] = []
    steps = Steps()
    trails, trail = await started(sim, clock, alice, feed, said, steps)
    await trade(alice, "b", "0.02")
    await feed_holds(feed, "0.03")
    market = sim.engine.markets[1]
    max_size, market.max_size = market.max_size, D("0.02")
    for _ in range(4):  # past the refusals that stop a trail that only moves
        await steps.step(trail)
        assert trails.uncovered() == {"BTC-PERP": COVERS_1_OF_3}
        assert trail.active and await stops(alice) == [("s", D("0.01"), D(99_700))]
    assert trail.label() == ("trailing 300", "NOT COVERED: the stop covers 0.01 of 0.03 BTC-PERP")
    assert trail.progress().endswith(COVERS_1_OF_3)
    assert sum(COVERS_1_OF_3 in m for m in said) == 1, said  # told once, not every step
    assert any("size 0.03 is too large" in m for m in said), said
    market.max_size = max_size
    await steps.step(trail)
    assert await stops(alice) == [("s", D("0.03"), D(99_700))]
    assert trails.uncovered() == {} and trail.label() == ("trailing 300", "peak 100,000")
    assert said[-1].startswith("resized for the whole position") and said[-1].endswith("covered again")
    await trails.stop_all()


async def test_a_resize_with_the_record_unreadable_says_not_covered(
    sim: LocalExchange, clock: FrozenClock, feed: Feed
) -> None:
    """Every /info failing (500, behind a proxy) when the position grows to 0.03: the trail cannot read the
    exchange's position and stop, places nothing, and says the position is not covered; /info back, the next step
    covers it all."""
    proxy = FaultProxy(sim.url)
    await proxy.start()
    governor = Governor(clock=lambda: clock.now_ms() / 1000, sleep=lambda s: _step_sim(sim, s))
    try:
        async with Client(
            proxy.url, signer=ALICE, governor=governor, testnet=signs_for(sim), clock_ms=clock.now_ms, timeout=2.0
        ) as alice:
            said: list[str] = []
            steps = Steps()
            trails, trail = await started(sim, clock, alice, feed, said, steps)
            await trade(alice, "b", "0.02")
            await feed_holds(feed, "0.03")
            proxy.mode = "500"
            for _ in range(2):
                await steps.step(trail)
                assert trails.uncovered() == {"BTC-PERP": COVERS_1_OF_3} and trail.active
            assert proxy.forwarded.count("/exchange") == 3  # Alice's two trades and the first stop: nothing placed
            assert any(m.startswith(COVERS_1_OF_3 + " (the stop's record is not readable") for m in said), said
            proxy.mode = "pass"
            await steps.step(trail)
            assert await stops(alice) == [("s", D("0.03"), D(99_700))]
            assert trails.uncovered() == {}
            await trails.stop_all()
    finally:
        await proxy.stop()


async def _step_sim(sim: LocalExchange, seconds: float) -> None:
    sim.step(int(seconds * 1000) + 1)


async def test_a_shorts_trail_speaks_of_its_trough(
    sim: LocalExchange, clock: FrozenClock, alice: Client, feed: Feed
) -> None:
    """Short 0.01, a trail 1% above the mark: its row, its progress and its move speak of the trough (the lowest
    price seen), never of a peak."""
    said: list[str] = []
    steps = Steps()
    await book(sim, clock)
    await trade(alice, "s", "0.01")
    await feed_holds(feed, "-0.01")
    trails = stepped_runner(sim, alice, feed, said, steps)
    trail = trails.start(TrailSpec("BTC-PERP", "buy", D(1), percent=True), D(101_000))
    await steps.asleep()
    assert trail.label() == ("trailing 1%", "trough 100,000")
    mark_to(sim, 99_000)
    await feed_marks(feed, 99_000)
    await steps.step(trail)
    assert "moved to 99,990 (trough 99,000)" in said
    assert trail.progress() == "BTC-PERP 1% behind the mark: stop 99,990 · trough 99,000"
    assert not any("peak" in m for m in said), said
    await trails.stop_all()


async def test_the_trails_own_cancels_are_not_news_from_elsewhere(
    sim: LocalExchange, clock: FrozenClock, alice: Client, feed: Feed
) -> None:
    """A move places the new stop and cancels the old one: the feed sees that cancel, and the event log neither
    announces it nor enters it as "not from this dashboard"; nothing is unread (the trail says the move itself)."""
    said: list[str] = []
    steps = Steps()
    trails, trail = await started(sim, clock, alice, feed, said, steps)
    assert trail.stop is not None
    first = trail.stop.cloid
    mark_to(sim, 100_500)
    await feed_marks(feed, 100_500)
    await steps.step(trail)
    assert said[-1] == "moved to 100,200 (peak 100,500)" and trail.old is None
    events = feed.state.account.events

    def old_gone() -> bool:
        return all(o.cloid != first for o in feed.state.account.open_orders) and bool(feed.state.account.open_orders)

    await waiting.until(old_gone, "the feed to see the old stop cancelled")
    await feed_holds(feed, "0.01")
    assert [e for e in events.recent if e.kind == "cancel"] == []  # not announced
    entries = events.book.entries()
    assert not any("not from this dashboard" in e.text or e.kind == "cancel" for e in entries), entries
    assert events.book.unread == sum(e.kind == "fill" for e in entries)  # Alice's trade only
    await trails.stop_all()
