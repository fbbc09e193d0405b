"""A TWAP against a real `xtui sim` process under faults: the exchange frozen (SIGSTOP) while a slice is out,
killed after a slice and started again, and every /info answer failing (500 or no answer) behind a proxy while
/exchange answers. Each time the TWAP waits, saying the slice is unconfirmed, sends nothing more until the
exchange's record says what the slice did, and never trades more than its total."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable
from decimal import Decimal

import pytest

from tests.conftest import ALICE_KEY, BOB_KEY
from tests.fault_proxy import FaultProxy
from tests.feed.sim_process import SimProcess
from tests.trading.trail_support import Said
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.trading import OrderContext
from tui.trading.twap import Twap, TwapRunner, TwapSpec

D = Decimal
ALICE = Signer(ALICE_KEY)
TIMEOUT_S = 0.5  # the trader's HTTP timeout: a frozen exchange is given up on quickly
EXPIRY_S = 3.0  # a slice the exchange has not seen by then never executes
TOTAL = D("0.05")
WAIT_S = 60.0  # the longest any step may take on a busy machine


async def seed_asks(url: str) -> None:
    """Bob rests 1 BTC at each of five prices from 100,000 (the sim's quiet market has no makers)."""
    async with Client(url, signer=Signer(BOB_KEY), testnet=True) as bob:
        await bob.place_order([order_item(1, "s", str(100_000 + i), "1") for i in range(5)])


async def position(url: str) -> Decimal:
    """Alice's BTC-PERP position as the exchange at ``url`` records it."""
    async with Client(url, testnet=True) as reader:
        return sum((p.size for p in await reader.positions(ALICE.address)), D(0))


async def btc_context(url: str) -> OrderContext:
    async with Client(url, testnet=True) as reader:
        [btc] = [i for i in (await reader.instruments()).perps if i.name == "BTC-PERP"]
    return OrderContext(
        instrument_id=btc.id, symbol="BTC-PERP", kind="perp", tick=btc.tick_size, lot=btc.lot_size,
        min_notional=D(10), max_leverage=D(50), best_bid=D(99_000), best_ask=D(100_000), mark=D(100_000),
        available=D(100_000),
    )  # fmt: skip


def runner(
    client: Client, context: OrderContext, said: Said, hook: Callable[[], Awaitable[None]] | None = None
) -> TwapRunner:
    """A runner on real time with a short interval; ``hook`` runs before each of its waits (a gate for the test)."""

    async def sleep(seconds: float) -> None:
        if hook is not None:
            await hook()
        await asyncio.sleep(min(seconds, 0.05))

    return TwapRunner(
        client, ALICE.address, lambda _: context, said, sleep=sleep, slice_expiry_s=EXPIRY_S, settle_retry_s=0.1
    )


async def until_over(twap: Twap, said: Said) -> None:
    await said.until(lambda: not twap.active)


async def test_a_slice_lost_to_a_frozen_exchange_is_settled_before_the_next(exchange: SimProcess) -> None:
    """TWAP 0.05 BTC in 5 slices; the exchange frozen (SIGSTOP) as slice 2 goes, so its answer times out, then
    thawed once the TWAP has said it waits. Slice 2 is counted from the exchange's record (it filled after the
    timeout, or expired unseen), and the TWAP buys 0.05 in all, no more, as the exchange's position shows."""
    await seed_asks(exchange.url)
    said = Said()
    frozen: list[bool] = []

    def freeze(what: str) -> None:
        if what.startswith("slice 1: filled") and not frozen:
            exchange.signal(signal.SIGSTOP)
            frozen.append(True)

    said.hooks.append(freeze)
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        twaps = runner(alice, await btc_context(exchange.url), said)
        twap = twaps.start(TwapSpec("BTC-PERP", "buy", TOTAL, 5, 0.05))
        try:
            await said.until(lambda: said.any("slice 2 unconfirmed: waiting for the exchange"))
            assert twap.sent == 2 and twap.waiting and twap.filled == D("0.01")
            await said.until(lambda: said.any("slice 2 unconfirmed: waiting for the exchange (the exchange's record"))
            assert twap.sent == 2  # asked again, still frozen: nothing more was sent
        finally:
            exchange.signal(signal.SIGCONT)
        await until_over(twap, said)
    assert twap.state == "done" and not twap.waiting
    held = await position(exchange.url)
    assert held == twap.filled == TOTAL, f"bought {held}, the TWAP says {twap.filled}"
    assert said.messages[-1].startswith("done: 0.0500 of 0.0500 BTC-PERP")


@pytest.mark.long
async def test_a_slice_sent_while_the_exchange_is_down_waits_for_its_return(exchange: SimProcess) -> None:
    """TWAP 0.05 BTC in 5 slices; the exchange killed (SIGKILL) after slice 2, so slice 3 finds no exchange, and
    started again (empty: a fresh exchange remembers no order) once the TWAP says it waits. The new exchange has
    no record of slice 3 and its expiry has passed, so it did not happen; slices 4 and 5 take the rest. What the
    old exchange recorded (read before the kill) plus what the new one records is the TWAP's total: 0.05."""
    await seed_asks(exchange.url)
    said = Said()
    at_slice_3, killed, waiting, restarted = (asyncio.Event() for _ in range(4))
    twap: Twap | None = None

    async def gate() -> None:
        assert twap is not None
        if twap.sent == 2 and not twap.waiting and not killed.is_set():
            at_slice_3.set()
            await killed.wait()
        elif twap.waiting and not restarted.is_set():
            waiting.set()
            await restarted.wait()

    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        twaps = runner(alice, await btc_context(exchange.url), said, gate)
        twap = twaps.start(TwapSpec("BTC-PERP", "buy", TOTAL, 5, 0.05))
        async with asyncio.timeout(WAIT_S):
            await at_slice_3.wait()
        before_kill = await position(exchange.url)
        assert before_kill == twap.filled == D("0.02")
        await exchange.kill()
        killed.set()
        async with asyncio.timeout(WAIT_S):
            await waiting.wait()
        assert said.any("slice 3 unconfirmed: waiting for the exchange") and twap.sent == 3
        await exchange.start()
        await seed_asks(exchange.url)
        restarted.set()
        await until_over(twap, said)
    assert said.any("slice 3: not on the exchange, so not done")
    after = await position(exchange.url)
    assert twap.state == "done" and before_kill + after == twap.filled == TOTAL, (before_kill, after, twap.filled)
    assert said.messages[-1].startswith("done: 0.0500 of 0.0500 BTC-PERP")


@pytest.mark.parametrize("mode", ["500", "hang"])
async def test_a_twap_whose_fills_cannot_be_read_sends_nothing_more(exchange: SimProcess, mode: str) -> None:
    """TWAP 0.05 BTC in 5 slices through a proxy that fails every /info answer (500, or no answer within the
    timeout) while /exchange answers. Slice 1 goes and fills; the TWAP cannot read what it did, says so, and
    sends nothing more however often it asks; once /info answers again it counts slice 1 and buys the rest:
    0.05 in all (it bought 0.1141, 2.28x, when an unreadable slice counted as nothing)."""
    await seed_asks(exchange.url)
    proxy = FaultProxy(exchange.url)
    await proxy.start()
    proxy.mode = mode  # type: ignore[assignment]
    said = Said()
    try:
        async with Client(proxy.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
            twaps = runner(alice, await btc_context(exchange.url), said)
            twap = twaps.start(TwapSpec("BTC-PERP", "buy", TOTAL, 5, 0.05))
            await said.until(lambda: said.any("slice 1 unconfirmed: waiting for the exchange"))
            await proxy.until_failed(6, WAIT_S)  # asked again and again
            assert twap.sent == 1 and twap.waiting
            assert await position(exchange.url) == D("0.01")  # slice 1 alone, straight from the exchange
            assert proxy.forwarded.count("/exchange") == 1
            proxy.mode = "pass"
            await until_over(twap, said)
    finally:
        await proxy.stop()
    held = await position(exchange.url)
    assert twap.state == "done" and held == twap.filled == TOTAL, (held, twap.filled)
    assert said.messages[-1].startswith("done: 0.0500 of 0.0500 BTC-PERP")


@pytest.mark.long
async def test_a_slice_the_exchange_took_then_forgot_stops_the_twap(exchange: SimProcess) -> None:
    """TWAP 0.05 BTC in 5 slices through a proxy; /info starts failing after slice 1, so slice 2 is taken by the
    exchange but cannot be read back; the exchange is killed and started again (empty). The new exchange has
    no record of slice 2, though the old one took it (its answer said so): the record cannot be counted from,
    so the TWAP stops and says why, having sent nothing more (2 slices in all)."""
    await seed_asks(exchange.url)
    proxy = FaultProxy(exchange.url)
    await proxy.start()
    said = Said()

    def fail_info(what: str) -> None:
        if what.startswith("slice 1: filled"):
            proxy.mode = "500"

    said.hooks.append(fail_info)
    try:
        async with Client(proxy.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
            twaps = runner(alice, await btc_context(exchange.url), said)
            twap = twaps.start(TwapSpec("BTC-PERP", "buy", TOTAL, 5, 0.05))
            await said.until(lambda: said.any("slice 2 unconfirmed: waiting for the exchange"))
            assert await position(exchange.url) == D("0.02")  # the old exchange took slice 2
            await exchange.kill()
            await exchange.start()
            await seed_asks(exchange.url)
            proxy.mode = "pass"
            await until_over(twap, said)
    finally:
        await proxy.stop()
    assert twap.state == "stopped" and twap.reason == "slice 2 was accepted, but the exchange has no record of it now"
    assert twap.sent == 2 and twap.filled == D("0.01") and await position(exchange.url) == 0
    assert [p for p in proxy.forwarded if p == "/exchange"] == ["/exchange"] * 2
