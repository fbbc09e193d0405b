"""A trailing stop on the local exchange following its real mark: the mark moved by hand (the exchange's own
``set_mark_price``), the stop follows it up, never down, and fires when the mark falls through it: the position is
closed by the exchange, and the trail ends and says so. A short's stop follows the mark down."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from decimal import Decimal

import pytest

from tests import waiting
from tests.conftest import ALICE_KEY, BOB_KEY, client_for
from tui.api.client import Client
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading import OrderContext
from tui.trading.trail_plan import Source, TrailSpec
from tui.trading.trailing import Trail, TrailRunner

D = Decimal
WAIT_S = 20.0


@pytest.fixture
async def alice(sim: LocalExchange, clock: FrozenClock) -> AsyncIterator[Client]:
    async with client_for(sim, ALICE_KEY, clock) as c:
        yield c


async def holding(sim: LocalExchange, clock: FrozenClock, alice: Client, side: str) -> None:
    """Bob rests both sides at 100,000 +- 10; Alice takes 0.1 (``side``)."""
    async with client_for(sim, BOB_KEY, clock) as bob:
        await bob.place_order([order_item(1, "s", "100010", "1"), order_item(1, "b", "99990", "1")])
    await alice.place_order([order_item(1, side, "100010" if side == "b" else "99990", "0.1", tif="IOC")])


def runner_on(sim: LocalExchange, alice: Client, said: list[str]) -> TrailRunner:
    """A runner reading the exchange's own mark and Alice's position there, with short steps."""

    def context(symbol: str) -> OrderContext:
        m = sim.engine.markets[1]
        assert alice.signer is not None
        held = sum((D(str(p["size"])) for p in sim.engine.positions(alice.signer.address)), D(0))
        return OrderContext(
            instrument_id=1, symbol=symbol, kind="perp", tick=m.tick, lot=m.lot, min_notional=D(10),
            max_leverage=D(50), mark=m.mark, position=held,
        )  # fmt: skip

    def price(symbol: str, source: Source) -> Decimal:
        return sim.engine.markets[1].mark

    def changed(trail: Trail, what: str) -> None:
        said.append(what)

    assert alice.signer is not None
    return TrailRunner(alice, alice.signer.address, context, price, changed, step_s=0.01, check_s=0.2, retry_s=0.05)


async def until(pred: Callable[[], bool]) -> None:
    await waiting.until(pred, "the trail to get there", WAIT_S)


def mark_to(sim: LocalExchange, price: int) -> None:
    sim.engine.set_mark_price(1, str(price))
    sim.step(100)


async def test_the_stop_follows_the_mark_and_fires_when_it_falls_through(
    sim: LocalExchange, clock: FrozenClock, alice: Client
) -> None:
    """Long 0.1, a trail 300 under the mark: the mark goes 100,000 -> 100,500 -> 101,000 -> 100,800, the stop goes
    99,700 -> 100,200 -> 100,700 and stays; the mark falls to 100,600: the exchange fires the stop, the position is
    closed, and the trail ends saying so, with nothing of it left on the exchange."""
    await holding(sim, clock, alice, "b")
    said: list[str] = []
    trails = runner_on(sim, alice, said)
    mark_to(sim, 100_000)
    trail = trails.start(TrailSpec("BTC-PERP", "sell", D(300)), D(99_700))
    await until(lambda: trail.stop is not None)
    for price, stop in ((100_500, 100_200), (101_000, 100_700)):
        mark_to(sim, price)
        await until(lambda stop=stop: trail.stop is not None and trail.stop.trigger == stop and trail.old is None)
    mark_to(sim, 100_800)
    await until(lambda: trail.checked_at > 0 and trail.peak == D(101_000))
    assert trail.stop is not None and trail.stop.trigger == D(100_700)
    mark_to(sim, 100_600)
    await until(lambda: not trail.active)
    assert trail.state == "ended"
    assert trail.reason.startswith("the BTC-PERP long position is closed: trail ended")
    assert [m for m in said if m.startswith("moved")] == [
        "moved to 100,200 (peak 100,500)",
        "moved to 100,700 (peak 101,000)",
    ]
    assert (await alice.open_orders(alice.signer.address)).data == []  # type: ignore[union-attr]
    assert not any(p.size for p in await alice.positions(alice.signer.address))  # type: ignore[union-attr]


async def test_a_shorts_stop_follows_the_mark_down(sim: LocalExchange, clock: FrozenClock, alice: Client) -> None:
    """Short 0.1, a trail 1% above the mark: the mark falls 100,000 -> 99,000, the buy stop goes 101,000 ->
    99,990; the mark rises back to 99,500: the stop stays; one reduce-only buy stop rests."""
    await holding(sim, clock, alice, "s")
    said: list[str] = []
    trails = runner_on(sim, alice, said)
    mark_to(sim, 100_000)
    trail = trails.start(TrailSpec("BTC-PERP", "buy", D(1), percent=True), D(101_000))
    await until(lambda: trail.stop is not None)
    mark_to(sim, 99_000)
    await until(lambda: trail.stop is not None and trail.stop.trigger == D(99_990) and trail.old is None)
    mark_to(sim, 99_500)
    await until(lambda: trail.checked_at > 0)
    await trails.stop_all()
    [stop] = (await alice.open_orders(alice.signer.address)).data  # type: ignore[union-attr]
    assert stop.side == "b" and stop.reduce_only and stop.trigger_px == D(99_990) and stop.size == D("0.1")
    assert trail.state == "stopped"


async def test_a_position_that_flips_ends_the_trail_and_cancels_its_stop(
    sim: LocalExchange, clock: FrozenClock, alice: Client
) -> None:
    """Long 0.1 with a trail; Alice sells 0.2 at market elsewhere: short 0.1. The trail ends ("flipped to short
    0.1") and cancels its sell stop, which could only ever have reduced the long: nothing rests."""
    await holding(sim, clock, alice, "b")
    said: list[str] = []
    trails = runner_on(sim, alice, said)
    mark_to(sim, 100_000)
    trail = trails.start(TrailSpec("BTC-PERP", "sell", D(300)), D(99_700))
    await until(lambda: trail.stop is not None)
    async with client_for(sim, BOB_KEY, clock) as bob:
        await bob.place_order([order_item(1, "b", "99980", "1")])
    await alice.place_order([order_item(1, "s", "99980", "0.2", tif="IOC")])
    await until(lambda: not trail.active)
    assert trail.state == "ended"
    assert trail.reason == "the BTC-PERP long position is flipped to short 0.1: trail ended; no stop of it rests"
    assert (await alice.open_orders(alice.signer.address)).data == []  # type: ignore[union-attr]
