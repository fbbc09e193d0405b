"""A chase against a real `xtui sim` process, its touch read by a real feed: it follows the best bid up to its
limit, and under faults (the exchange frozen mid-reprice, killed and started again, /info failing while /exchange
answers, a placement's answer lost) it never fills more than its size and never leaves two of its orders resting
once it has settled; what it says it filled is the exchange's position."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from decimal import Decimal

import pytest

from tests.conftest import ALICE_KEY, BOB_KEY
from tests.fault_proxy import FaultProxy
from tests.feed.sim_process import SimProcess, Watcher, free_port, running_feed
from tests.sim.test_faults_process import FaultySim
from tests.trading.test_twap_faults import Said, position
from tui.api.client import Client
from tui.api.errors import ActionRejected, ClientError
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.feed.worker import Feed
from tui.trading.chase import Chase, ChaseRunner, ChaseSpec
from tui.trading.context import order_context

D = Decimal
ALICE = Signer(ALICE_KEY)
TIMEOUT_S = 0.5  # the trader's HTTP timeout: a frozen exchange is given up on quickly
EXPIRY_S = 3.0  # a placement the exchange has not seen by then never happens
SIZE = D("0.05")
WAIT_S = 60.0


@pytest.fixture
async def feed(exchange: SimProcess) -> AsyncIterator[tuple[Feed, Watcher]]:
    """A headless feed on the exchange: the chase's touch is the book it shows, as in the dashboard."""
    await seed(exchange.url)
    f, watcher, task, client = await running_feed(exchange)
    await watcher.until(lambda: f.state.market.book.best_bid == D(99_000), WAIT_S)
    try:
        yield f, watcher
    finally:
        await f.stop()
        await task
        await client.aclose()


async def seed(url: str) -> None:
    """Bob offers 1 BTC at 100,000 and bids 0.01 at 99,000 (the sim's quiet market has no makers)."""
    await bob(url, [order_item(1, "s", "100000", "1"), order_item(1, "b", "99000", "0.01")])


async def bob(url: str, orders: list[dict[str, object]]) -> None:
    async with Client(url, signer=Signer(BOB_KEY), testnet=True) as b:
        await b.place_order(orders)


async def resting(url: str) -> list[str]:
    """Alice's open chase orders on the exchange, by cloid."""
    async with Client(url, testnet=True) as reader:
        return [o.cloid for o in (await reader.open_orders(ALICE.address)).data if o.cloid.startswith("ch")]


def chaser(client: Client, feed: Feed, said: Said) -> ChaseRunner:
    return ChaseRunner(
        client, ALICE.address, lambda s: order_context(feed.state, s), said,
        order_expiry_s=EXPIRY_S, poll_s=0.05, settle_retry_s=0.1,
    )  # fmt: skip


async def rests_at(chase: Chase, said: Said, price: Decimal) -> None:
    await said.until(lambda: chase.cloid != "" and chase.price == price and not chase.unconfirmed)


async def test_a_chase_follows_the_bid_to_its_limit_and_fills_exactly_its_size(
    exchange: SimProcess, feed: tuple[Feed, Watcher]
) -> None:
    """Chase buy 0.05 limit 99,020: it bids at the best bid 99,000; Bob bids 99,010 and it follows; Bob sells it
    0.02, then bids 99,030 (past the limit) and it waits at 99,020 with the 0.03 left; Bob sells 0.1 and it fills
    0.03 more: 0.05 in all, one order resting at a time, the exchange's position 0.05."""
    f, _ = feed
    said = Said()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        chase = chaser(alice, f, said).start(ChaseSpec("BTC-PERP", "buy", SIZE, D(99_020)))
        await rests_at(chase, said, D(99_000))
        await bob(exchange.url, [order_item(1, "b", "99010", "0.01")])
        await rests_at(chase, said, D(99_010))
        assert len(await resting(exchange.url)) == 1
        await bob(exchange.url, [order_item(1, "s", "99010", "0.02", tif="IOC")])  # his own 99,010 goes first
        await said.until(lambda: chase.done == D("0.02") or not chase.active)
        await bob(exchange.url, [order_item(1, "b", "99030", "0.01")])
        await rests_at(chase, said, D(99_020))
        assert chase.left == D("0.03") and len(await resting(exchange.url)) == 1
        await bob(exchange.url, [order_item(1, "s", "99000", "0.1", tif="IOC")])
        await said.until(lambda: not chase.active)
    assert chase.state == "done", said.messages
    assert await position(exchange.url) == chase.filled == SIZE
    assert await resting(exchange.url) == []
    assert said.messages[-1].startswith("done: 0.05 of 0.05 BTC-PERP")


async def test_a_reprice_frozen_mid_way_waits_and_never_doubles(
    exchange: SimProcess, feed: tuple[Feed, Watcher]
) -> None:
    """Chase buy 0.05 resting at 99,000; Bob bids 99,010 and the exchange is frozen (SIGSTOP) as the chase begins
    to withdraw its order, so the cancel and the record go unanswered: it says so and places nothing. Thawed, it
    reads the cancel from the record and bids 99,010; Bob sells it 0.1: 0.05 filled, never two orders resting."""
    f, _ = feed
    said = Said()
    frozen: list[bool] = []

    def freeze(what: str) -> None:
        if what.startswith("moved: the touch is") and not frozen:
            exchange.signal(signal.SIGSTOP)
            frozen.append(True)

    said.hooks.append(freeze)
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        chase = chaser(alice, f, said).start(ChaseSpec("BTC-PERP", "buy", SIZE))
        await rests_at(chase, said, D(99_000))
        await bob(exchange.url, [order_item(1, "b", "99010", "0.01")])
        try:
            await said.until(lambda: said.any("order 1: cancel unconfirmed"))
            placed = chase.placed
            await said.until(lambda: said.any("order 1: cancel unconfirmed: the exchange's record is not readable"))
            assert chase.placed == placed == 1  # asked again, still frozen: nothing more was placed
        finally:
            exchange.signal(signal.SIGCONT)
        await rests_at(chase, said, D(99_010))
        assert len(await resting(exchange.url)) == 1
        await bob(exchange.url, [order_item(1, "s", "99000", "0.1", tif="IOC")])
        await said.until(lambda: not chase.active)
    assert chase.state == "done" and await position(exchange.url) == chase.filled == SIZE, said.messages
    assert await resting(exchange.url) == []


@pytest.mark.long
async def test_a_chase_whose_exchange_restarts_empty_stops_at_what_it_had_filled(exchange: SimProcess) -> None:
    """Chase buy 0.05; Bob sells it 0.02; the exchange is killed (SIGKILL) and started again empty. The chase
    cannot read its order, says so, sends nothing; the new exchange has no record of it once its expiry is past,
    so the chase stops, saying so, at the 0.02 the old exchange recorded, with nothing resting on the new one."""
    await seed(exchange.url)
    said = Said()
    f, watcher, task, reader = await running_feed(exchange)
    try:
        await watcher.until(lambda: f.state.market.book.best_bid == D(99_000), WAIT_S)
        async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
            chase = chaser(alice, f, said).start(ChaseSpec("BTC-PERP", "buy", SIZE))
            await rests_at(chase, said, D(99_000))
            await bob(exchange.url, [order_item(1, "s", "98000", "0.02", tif="IOC")])  # his bid first, then hers
            await said.until(lambda: chase.done == D("0.02"))
            before = await position(exchange.url)
            assert chase.filled == 0  # the resting order's part is counted when it closes
            await exchange.kill()
            await said.until(lambda: said.any("order 1 unconfirmed: waiting for the exchange"))
            placed = chase.placed
            await exchange.start()
            await said.until(lambda: not chase.active)
            assert chase.placed == placed
    finally:
        await f.stop()
        await task
        await reader.aclose()
    assert chase.state == "stopped" and "no record of it now" in chase.reason, said.messages
    assert before == chase.filled == D("0.02")  # as last read from the old exchange
    assert await position(exchange.url) == 0 and await resting(exchange.url) == []


@pytest.mark.parametrize("mode", ["500", "hang"])
async def test_a_chase_that_cannot_read_its_record_sends_nothing(
    exchange: SimProcess, feed: tuple[Feed, Watcher], mode: str
) -> None:
    """Chase buy 0.05 through a proxy that fails every /info answer (500, or none within the timeout) while
    /exchange answers; Bob bids 99,010 so the touch moves. Not knowing whether its order filled, the chase sends
    nothing (one /exchange request in all); /info back, it reprices and fills 0.05, no more."""
    f, _ = feed
    proxy = FaultProxy(exchange.url)
    await proxy.start()
    said = Said()
    try:
        async with Client(proxy.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
            chase = chaser(alice, f, said).start(ChaseSpec("BTC-PERP", "buy", SIZE))
            await rests_at(chase, said, D(99_000))
            proxy.mode = mode  # type: ignore[assignment]
            await bob(exchange.url, [order_item(1, "b", "99010", "0.01")])
            await proxy.until_failed(6, WAIT_S)
            assert proxy.forwarded.count("/exchange") == 1 and chase.placed == 1
            proxy.mode = "pass"
            await rests_at(chase, said, D(99_010))
            await bob(exchange.url, [order_item(1, "s", "99000", "0.1", tif="IOC")])
            await said.until(lambda: not chase.active)
    finally:
        await proxy.stop()
    assert chase.state == "done" and await position(exchange.url) == chase.filled == SIZE, said.messages
    assert await resting(exchange.url) == []


async def test_a_placement_whose_answer_is_lost_is_read_back_not_sent_again(
    exchange: SimProcess, feed: tuple[Feed, Watcher]
) -> None:
    """The chase's first placeOrder reaches the exchange but its answer is lost: the chase reads its order back
    from the record by cloid (it rests), sends no second one, and fills 0.05 when Bob sells it 0.1."""
    f, _ = feed
    proxy = FaultProxy(exchange.url)
    await proxy.start()
    proxy.place_fault = "lose_answer"
    said = Said()
    try:
        async with Client(proxy.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
            chase = chaser(alice, f, said).start(ChaseSpec("BTC-PERP", "buy", SIZE))
            await said.until(lambda: said.any("order 1 unconfirmed: waiting for the exchange"))
            await rests_at(chase, said, D(99_000))
            assert chase.placed == 1 and len(await resting(exchange.url)) == 1
            await bob(exchange.url, [order_item(1, "s", "99000", "0.1", tif="IOC")])
            await said.until(lambda: not chase.active)
    finally:
        await proxy.stop()
    assert chase.state == "done" and await position(exchange.url) == chase.filled == SIZE, said.messages


async def test_cancelling_a_chase_withdraws_its_order_and_counts_its_fills(
    exchange: SimProcess, feed: tuple[Feed, Watcher]
) -> None:
    """Chase sell 0.05 at the best ask; Bob buys 0.01 of it; the trader cancels: the order is withdrawn, the
    record's 0.01 is counted, and nothing of the chase rests."""
    f, _ = feed
    said = Said()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        runner = chaser(alice, f, said)
        chase = runner.start(ChaseSpec("BTC-PERP", "sell", SIZE))
        await rests_at(chase, said, D(100_000))
        await bob(
            exchange.url, [order_item(1, "b", "100000", "0.01", tif="IOC")]
        )  # his own ask is cancelled, hers fills
        await said.until(lambda: chase.done == D("0.01"))
        assert await runner.stop_all() == []
    assert chase.state == "cancelled" and chase.filled == D("0.01") and not chase.cloid, said.messages
    assert await position(exchange.url) == D("-0.01") and await resting(exchange.url) == []


async def test_a_chase_under_brutal_faults_never_fills_past_its_size() -> None:
    """``xtui sim --faults brutal`` (latency, refusals, /info timeouts, partial fills, sockets dropped): chase buy
    0.05 while Bob bids higher and sells into it. It ends (done, or stopped at a refusal naming the injected
    fault), never past its size; once settled none of its orders rests, and what it says it filled is Alice's
    position on the exchange."""
    sim = FaultySim(free_port())
    await sim.start()
    said = Said()
    try:
        async with asyncio.timeout(WAIT_S):
            await until_taken(sim.url, [order_item(1, "s", "100000", "1"), order_item(1, "b", "99000", "0.01")])
        f, watcher, task, reader = await running_feed(sim, http_timeout=1.0)
        try:
            await watcher.until(lambda: f.state.market.book.best_bid == D(99_000), WAIT_S)
            async with Client(sim.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
                runner = chaser(alice, f, said)
                chase = runner.start(ChaseSpec("BTC-PERP", "buy", SIZE))
                await said.until(lambda: chase.cloid != "" or not chase.active)
                for price in ("99010", "99020"):
                    await until_taken(sim.url, [order_item(1, "b", price, "0.01")])
                    await until_taken(sim.url, [order_item(1, "s", "98000", "0.03", tif="IOC")])
                await said.until(lambda: chase.done > 0 or not chase.active)
                await runner.stop_all()  # what a partial fill by the brutal exchange left is withdrawn
        finally:
            await f.stop()
            await task
            await reader.aclose()
        held = await position(sim.url)
        assert held == chase.filled <= SIZE, (held, chase.filled, said.messages)
        assert await resting(sim.url) == [] and not chase.cloid
        if chase.state == "stopped":
            assert "injected fault (xtui sim --faults)" in chase.reason, said.messages
        else:
            assert chase.state in ("done", "cancelled") and chase.filled > 0, said.messages
    finally:
        await sim.stop()


async def until_taken(url: str, orders: list[dict[str, object]], deadline_s: float = WAIT_S) -> None:
    """Bob's orders, sent again only while the brutal exchange refuses them on purpose (refused: nothing applied). A
    lost answer is settled from Bob's record by cloid, as the product does, never sent blind again; all within
    ``deadline_s``, which says what it saw when it gives up."""
    global _sent
    _sent += 1
    tagged = [{**o, "cloid": f"bob-{_sent}-{i}"} for i, o in enumerate(orders)]
    cloids = {o["cloid"] for o in tagged}
    seen: list[str] = []
    try:
        async with asyncio.timeout(deadline_s):
            while True:
                try:
                    await bob(url, tagged)
                    return
                except ActionRejected as exc:
                    assert exc.message.startswith("injected fault"), exc.message
                    seen.append(f"refused: {exc.message}")
                except ClientError as exc:
                    seen.append(f"lost: {exc}")
                    if await _in_bobs_record(url, cloids, seen):
                        return  # taken: only its answer was lost
    except TimeoutError:
        raise AssertionError(f"Bob's orders not taken in {deadline_s:.0f} s: {seen[-5:]}") from None


_sent = 0


async def _in_bobs_record(url: str, cloids: set[object], seen: list[str]) -> bool:
    """Whether Bob's order history holds every one of ``cloids`` (read again until it answers)."""
    while True:
        try:
            async with Client(url, testnet=True) as reader:
                held = {o.cloid for o in (await reader.order_history(Signer(BOB_KEY).address, limit=100)).data}
            return cloids <= held
        except ClientError as exc:
            seen.append(f"record unread: {exc}")


async def test_quitting_while_the_exchange_is_frozen_says_the_order_may_rest(
    exchange: SimProcess, feed: tuple[Feed, Watcher]
) -> None:
    """xtui quits while the exchange is frozen (SIGSTOP) under a resting chase: the withdrawal is tried once, not
    waited on, and ``stop_all`` names the order that may still rest, as the last notice does."""
    f, _ = feed
    said = Said()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        runner = chaser(alice, f, said)
        chase = runner.start(ChaseSpec("BTC-PERP", "buy", SIZE))
        await rests_at(chase, said, D(99_000))
        exchange.signal(signal.SIGSTOP)
        try:
            async with asyncio.timeout(WAIT_S / 4):
                report = await runner.stop_all()
        finally:
            exchange.signal(signal.SIGCONT)
    assert chase.state == "cancelled" and len(report) == 1, (report, said.messages)
    assert chase.cloid in report[0] and "may still rest" in report[0]
    assert said.messages[-1].endswith("may still rest: see the open orders")
