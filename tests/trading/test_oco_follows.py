"""An OCO that says what the exchange's record says, against a real `xtui sim` process: legs cancelled by someone
else end the pair in words and nothing is named as resting; a pair for the whole position follows its size (a
pair for a part keeps its own, never more than the position); a resize refused or unreachable is said ("not
covered") through ``uncovered`` until it is done. The position reaches the runner through a real feed's state."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Callable
from decimal import Decimal

import msgspec
import pytest

from tests.fault_proxy import FaultProxy
from tests.feed.sim_process import SimProcess, Watcher, sim_process
from tests.trading.test_oco_faults import ALICE, STOP, TIMEOUT_S, TP, bob, legs, linked
from tests.trading.test_twap_faults import Said, position
from tests.waiting import until, until_answer
from tui.api.client import Client
from tui.api.wire import order_item
from tui.feed.worker import Feed
from tui.trading.context import order_context
from tui.trading.oco import OcoRunner
from tui.trading.orders import OrderContext, OrderPlan
from tui.trading.tool_book import KeptOco

D = Decimal
ENDED = "OCO ended: its take-profit and stop were cancelled (not by the OCO); the position has no protection from it"
Context = Callable[[str], OrderContext | None]


@pytest.fixture
async def exchange() -> AsyncIterator[SimProcess]:
    """Bob asks 1 BTC at 100,000 and bids 1 at 99,000; Alice is long 0.01 (an IOC buy from Bob's ask)."""
    async with sim_process() as sim:
        await bob(sim.url, [order_item(1, "s", "100000", "1"), order_item(1, "b", "99000", "1")])
        await alice_buys(sim.url, "0.01")
        yield sim


@pytest.fixture
async def context(exchange: SimProcess) -> AsyncIterator[Context]:
    """Order entry's view of an instrument from a real feed of Alice's account on the exchange."""
    client = Client(exchange.url, testnet=True, timeout=5.0)
    feed = Feed(client, exchange.ws_url, account=ALICE.address, on_change=Watcher(), coalesce_s=0.01)
    task = asyncio.create_task(feed.run())
    await feed.wait_ready()
    await until(lambda: feed.state.status.connection == "live", "the feed live")
    yield lambda symbol: order_context(feed.state, symbol)
    await feed.stop()
    await task
    await client.aclose()


async def alice_buys(url: str, size: str, side: str = "b", price: str = "100000") -> None:
    async with Client(url, signer=ALICE, testnet=True) as alice:
        await alice.place_order([order_item(1, side, price, size, tif="IOC", reduce_only=side == "s")])


def sized(size: str) -> tuple[OrderPlan, OrderPlan]:
    return msgspec.structs.replace(TP, size=D(size)), msgspec.structs.replace(STOP, size=D(size))


def runner(client: Client, said: Said, context: Context | None, **kw: object) -> OcoRunner:
    return OcoRunner(
        client, ALICE.address, said, context=context, order_expiry_s=1.0, poll_s=0.05, settle_retry_s=0.1, **kw
    )  # type: ignore[arg-type]


async def legs_are(url: str, sizes: list[str]) -> None:
    want = sorted(D(s) for s in sizes)

    async def shown() -> bool:
        return sorted((await legs(url)).values()) == want

    await until_answer(shown, f"Alice's OCO orders to be {sizes}")


async def feed_holds(context: Context, size: str) -> None:
    await until(lambda: (ctx := context("BTC-PERP")) is not None and ctx.position == D(size), f"the feed at {size}")


async def test_cancel_all_ends_the_pair_in_words_and_names_nothing_resting(exchange: SimProcess) -> None:
    """Alice's other client cancels all her orders under a running OCO: it ends saying both were cancelled, not by
    it, and that the position has no protection from it; nothing of it is named as resting, now or on quit."""
    said = Said()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        ocos = runner(alice, said, None)
        oco = ocos.start(*sized("0.01"))
        await linked(oco, said)
        await alice.cancel_all()
        await said.until(lambda: not oco.active)
        assert oco.reason == ENDED and said.any(ENDED), said.messages
        assert ocos.resting() == [] and ocos.resting(running_too=True) == []
        assert await ocos.stop_all() == []
    assert await legs(exchange.url) == {} and await position(exchange.url) == D("0.01")


async def test_a_stop_cancelled_elsewhere_ends_the_pair_naming_only_the_take_profit(exchange: SimProcess) -> None:
    """The stop is cancelled by another client (`x` on its row): the pair ends, says so, and on quit names only
    the take-profit, which the record shows resting, never the stop."""
    said = Said()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        ocos = runner(alice, said, None)
        oco = ocos.start(*sized("0.01"))
        await linked(oco, said)
        await alice.cancel_by_cloid([(oco.legs[1].cloid, 1)])
        await said.until(lambda: not oco.active)
        assert "OCO ended: its stop was cancelled (not by the OCO)" in oco.reason, said.messages
        report = await ocos.stop_all()
    assert len(report) == 1 and "take-profit 0.01 at 101,000" in report[0], report
    assert list((await legs(exchange.url)).values()) == [D("0.01")]


async def test_a_whole_position_pair_follows_the_position_up_and_ends_when_it_closes(
    exchange: SimProcess, context: Context
) -> None:
    """An OCO for all of Alice's 0.01: she buys 0.02 more, and within a look both legs are for 0.03 (the new one
    placed, the old withdrawn); she sells it all at the market: the pair ends, withdraws both, and says so."""
    said = Said()
    await feed_holds(context, "0.01")
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        ocos = runner(alice, said, context)
        oco = ocos.start(*sized("0.01"))
        assert oco.whole
        await linked(oco, said)
        await alice_buys(exchange.url, "0.02")
        await legs_are(exchange.url, ["0.03", "0.03"])
        await said.until(lambda: all(leg.left == D("0.03") and leg.open for leg in oco.legs))
        assert oco.active and oco.size == D("0.03") and ocos.uncovered() == {}, said.messages
        await alice_buys(exchange.url, "0.03", side="s", price="99000")
        await said.until(lambda: not oco.active)
    assert "OCO ended: the BTC-PERP position is closed; both orders withdrawn" in oco.reason, said.messages
    assert await legs(exchange.url) == {} and ocos.resting() == []


async def test_a_part_pair_keeps_its_size_but_never_more_than_the_position(
    exchange: SimProcess, context: Context
) -> None:
    """Alice long 0.03, an OCO for 0.02 of it: she buys 0.02 more and it stays 0.02 (several looks later); she
    sells 0.04 and it is resized down to the 0.01 left."""
    await alice_buys(exchange.url, "0.02")
    await feed_holds(context, "0.03")
    said = Said()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        naps = [0]

        async def nap(seconds: float) -> None:  # counts the runner's looks
            naps[0] += 1
            await asyncio.sleep(seconds)

        ocos = runner(alice, said, context, sleep=nap)
        oco = ocos.start(*sized("0.02"))
        assert not oco.whole
        await linked(oco, said)
        await alice_buys(exchange.url, "0.02")
        await feed_holds(context, "0.05")
        looks, seen = len(said.messages), naps[0]
        await until(lambda: naps[0] >= seen + 3, "three more looks of the runner")
        await legs_are(exchange.url, ["0.02", "0.02"])
        assert len(said.messages) == looks and oco.size == D("0.02"), said.messages
        await alice_buys(exchange.url, "0.04", side="s", price="99000")
        await legs_are(exchange.url, ["0.01", "0.01"])
        await said.until(lambda: all(leg.left == D("0.01") and leg.open for leg in oco.legs))
    assert oco.active and ocos.uncovered() == {}, said.messages


@pytest.mark.parametrize("fault", ["refused", "unreadable"])
async def test_a_resize_that_cannot_be_done_is_not_covered_until_it_is(
    exchange: SimProcess, context: Context, fault: str
) -> None:
    """Alice's whole-position OCO of 0.01; she buys 0.02 more while the resize is refused (the profile's guard)
    or the exchange's record cannot be read (every /info fails): ``uncovered`` says the OCO covers 0.01 of 0.03;
    once the fault ends both legs are 0.03 and it is covered again."""
    refusing = fault == "refused"
    proxy = FaultProxy(exchange.url)
    await proxy.start()
    said = Said()
    try:
        async with Client(proxy.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
            ocos = runner(alice, said, context, guard=lambda plans: "frozen for a test" if refusing else None)
            refusing = False
            oco = ocos.start(*sized("0.01"))
            await linked(oco, said)
            refusing = fault == "refused"
            proxy.mode = "pass" if refusing else "500"
            await alice_buys(exchange.url, "0.02")
            words = "not covered: the OCO covers 0.01 of 0.03 BTC-PERP"
            await said.until(lambda: ocos.uncovered() == {"BTC-PERP": words})
            assert said.any(words) and oco.active, said.messages
            assert sorted((await legs(exchange.url)).values()) == [D("0.01"), D("0.01")]
            refusing, proxy.mode = False, "pass"
            await legs_are(exchange.url, ["0.03", "0.03"])
            await said.until(lambda: ocos.uncovered() == {})
            assert said.any("covered again") and oco.active, said.messages
    finally:
        await proxy.stop()


async def test_a_resize_is_kept_before_it_is_sent_and_a_new_run_links_the_new_order(
    exchange: SimProcess, context: Context
) -> None:
    """A whole-position pair of 0.01; Alice buys 0.02 more. The exchange is frozen (SIGSTOP) as soon as the kept
    record names the stop's new order, before the runner sends it: that record (what a kill now leaves on disk)
    names the old stop and the new one. Thawed, the resize is done and the record names the new orders only. A new
    run given the frozen record finds the new stop resting (the old one withdrawn) and links it, not the old; nothing
    is placed or withdrawn."""
    said, snapshots, frozen = Said(), [], []

    def keep(kept: list[KeptOco]) -> None:
        snapshots.append(kept)
        if kept and kept[0].stop.placing is not None and not frozen:
            frozen.append(kept[0])
            exchange.signal(signal.SIGSTOP)  # before the resize's order is sent: the record is on disk first

    await feed_holds(context, "0.01")
    try:
        async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
            ocos = runner(alice, said, context, on_kept=keep)
            oco = ocos.start(*sized("0.01"))
            await linked(oco, said)
            old_stop = oco.legs[1].cloid
            await alice_buys(exchange.url, "0.02")
            await said.until(lambda: bool(frozen))
            [left] = frozen
            assert left.stop.cloid == old_stop and left.stop.placing is not None
            assert left.stop.placing.size == D("0.03") and oco.legs[1].cloid == old_stop  # not placed yet
            exchange.signal(signal.SIGCONT)
            await legs_are(exchange.url, ["0.03", "0.03"])
            await said.until(lambda: all(leg.left == D("0.03") and leg.open and not leg.placing for leg in oco.legs))
            assert [leg.placing for leg in snapshots[-1][0].legs] == [None, None]
            assert snapshots[-1][0].stop.cloid == left.stop.placing.cloid
            await ocos.stop_all()
    finally:
        exchange.signal(signal.SIGCONT)
    resting = await legs(exchange.url)
    # killed at the freeze, the take-profit would not have been resized after: it is taken as the exchange holds it
    left = msgspec.structs.replace(left, take_profit=snapshots[-1][0].take_profit)
    found, replaced = left.as_resting(resting)
    assert found.stop.cloid == left.stop.placing.cloid and replaced == []  # the old stop was withdrawn
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        orders = {o.cloid: o for o in (await alice.open_orders(ALICE.address)).data}
        again = runner(alice, Said(), context)
        resumed = again.resume(found, (orders[found.take_profit.cloid], orders[found.stop.cloid]))
        assert resumed.legs[1].cloid == left.stop.placing.cloid and resumed.legs[1].plan.size == D("0.03")
        await again.stop_all()
    assert await legs(exchange.url) == resting  # nothing placed again, nothing withdrawn
