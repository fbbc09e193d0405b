"""One-cancels-other against a real `xtui sim` process: Alice, long 0.05 BTC, links a reduce-only take-profit at
101,000 and a reduce-only stop at 98,000. A partial fill of the take-profit reduces the stop (the smaller one
placed first); its full fill withdraws the stop. Under faults (/info failing, the exchange frozen) it sends
nothing until the record says, and the two never close more than the 0.05; on quit both stay and are reported."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from decimal import Decimal

import pytest

from tests.conftest import ALICE_KEY, BOB_KEY
from tests.fault_proxy import FaultProxy
from tests.feed.sim_process import SimProcess, sim_process
from tests.trading.test_twap_faults import Said, position
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.trading.oco import Oco, OcoRunner
from tui.trading.orders import OrderPlan

D = Decimal
ALICE = Signer(ALICE_KEY)
TIMEOUT_S = 0.5
SIZE = D("0.05")
TP = OrderPlan(1, "BTC-PERP", "sell", "limit", D(101_000), SIZE, D(101_000), reduce_only=True)
STOP = OrderPlan(
    1, "BTC-PERP", "sell", "stop", D(97_020), SIZE, D(98_000), reduce_only=True, trigger=D(98_000), market=True
)


@pytest.fixture
async def exchange() -> AsyncIterator[SimProcess]:
    """Alice long 0.05 BTC (bought from Bob's 1 at 100,000); Bob bids 0.01 at 99,000."""
    async with sim_process() as sim:
        await bob(sim.url, [order_item(1, "s", "100000", "1"), order_item(1, "b", "99000", "0.01")])
        async with Client(sim.url, signer=ALICE, testnet=True) as alice:
            await alice.place_order([order_item(1, "b", "100000", "0.05", tif="IOC")])
        assert await position(sim.url) == SIZE
        yield sim


async def bob(url: str, orders: list[dict[str, object]]) -> None:
    async with Client(url, signer=Signer(BOB_KEY), testnet=True) as b:
        await b.place_order(orders)


async def legs(url: str) -> dict[str, Decimal]:
    """Alice's open OCO orders on the exchange: cloid -> unfilled size."""
    async with Client(url, testnet=True) as reader:
        return {o.cloid: o.unfilled for o in (await reader.open_orders(ALICE.address)).data if o.cloid.startswith("oc")}


def runner(client: Client, said: Said) -> OcoRunner:
    return OcoRunner(client, ALICE.address, said, order_expiry_s=3.0, poll_s=0.05, settle_retry_s=0.1)


async def linked(oco: Oco, said: Said) -> None:
    await said.until(lambda: said.any("both orders rest") or not oco.active)
    assert oco.active, said.messages


async def test_a_partial_take_profit_reduces_the_stop_and_its_fill_withdraws_it(exchange: SimProcess) -> None:
    """Bob buys 0.02 of the take-profit: the stop is reduced to 0.03 (placed anew, the 0.05 one withdrawn); Bob
    buys the rest: the stop is withdrawn, the pair is done, Alice is flat and nothing of the pair rests."""
    said = Said()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        oco = runner(alice, said).start(TP, STOP)
        await linked(oco, said)
        assert sorted((await legs(exchange.url)).values()) == [SIZE, SIZE]
        await bob(exchange.url, [order_item(1, "b", "101000", "0.02", tif="IOC")])  # his own ask is cancelled first
        await said.until(lambda: (oco.legs[1].plan.size == D("0.03") and not oco.legs[1].filled) or not oco.active)
        await said.until(lambda: len(oco.legs[1].cloid) > 0 and not oco.unconfirmed)
        assert sorted((await legs(exchange.url)).values()) == [D("0.03"), D("0.03")], said.messages
        await bob(exchange.url, [order_item(1, "b", "101000", "0.1", tif="IOC")])
        await said.until(lambda: not oco.active)
    assert oco.state == "done" and oco.filled == SIZE, said.messages
    assert await position(exchange.url) == 0 and await legs(exchange.url) == {}


@pytest.mark.parametrize("mode", ["500", "hang"])
async def test_an_oco_that_cannot_read_its_record_sends_nothing_then_settles(exchange: SimProcess, mode: str) -> None:
    """Through a proxy failing every /info answer, the take-profit fills in full: the pair cannot tell, says so,
    and sends nothing (two /exchange requests in all, its two placements); /info back, it withdraws the stop:
    0.05 closed, no more, nothing rests."""
    proxy = FaultProxy(exchange.url)
    await proxy.start()
    said = Said()
    try:
        async with Client(proxy.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
            oco = runner(alice, said).start(TP, STOP)
            await linked(oco, said)
            proxy.mode = mode  # type: ignore[assignment]
            await bob(exchange.url, [order_item(1, "b", "101000", "0.1", tif="IOC")])
            await proxy.until_failed(6, 60)
            assert proxy.forwarded.count("/exchange") == 2 and oco.active and oco.unconfirmed
            proxy.mode = "pass"
            await said.until(lambda: not oco.active)
    finally:
        await proxy.stop()
    assert oco.state == "done" and oco.filled == SIZE, said.messages
    assert await position(exchange.url) == 0 and await legs(exchange.url) == {}


async def test_a_frozen_exchange_holds_the_pair_until_it_answers(exchange: SimProcess) -> None:
    """The exchange frozen (SIGSTOP) while the pair watches: it says it cannot read the record and sends nothing;
    thawed, it goes on, and Bob's buy of the take-profit withdraws the stop: 0.05 closed in all."""
    said = Said()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        oco = runner(alice, said).start(TP, STOP)
        await linked(oco, said)
        exchange.signal(signal.SIGSTOP)
        try:
            await said.until(lambda: said.any("the take-profit unconfirmed: waiting for the exchange"))
            assert oco.active and [leg.placed for leg in oco.legs] == [1, 1]
        finally:
            exchange.signal(signal.SIGCONT)
        await said.until(lambda: not oco.unconfirmed)
        await bob(exchange.url, [order_item(1, "b", "101000", "0.1", tif="IOC")])
        await said.until(lambda: not oco.active)
    assert oco.state == "done" and oco.filled == SIZE and await position(exchange.url) == 0, said.messages
    assert await legs(exchange.url) == {}


async def test_on_quit_both_orders_stay_and_are_reported(exchange: SimProcess) -> None:
    """xtui quits while a pair runs: both orders stay on the exchange, unlinked, and ``stop_all`` names both."""
    said = Said()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        ocos = runner(alice, said)
        oco = ocos.start(TP, STOP)
        await linked(oco, said)
        report = await ocos.stop_all()
    assert oco.state == "left" and len(report) == 2, report
    assert "take-profit 0.05 at 101,000" in report[0] and "stop 0.05 trigger 98,000" in report[1]
    assert all("stays on the exchange, not linked" in line for line in report)
    assert sorted((await legs(exchange.url)).values()) == [SIZE, SIZE]


async def test_both_legs_hit_at_once_close_no_more_than_the_position(exchange: SimProcess) -> None:
    """The race a client-side OCO cannot prevent: one buy of Bob's reaches both legs before xtui looks (here two
    sell limits, 101,000 and 101,500, so one order crosses both) while /info fails, so xtui cannot react. Both
    legs are reduce-only: the exchange fills 0.05 and cancels the other, Alice is flat, never short, and the pair
    ends having closed 0.05."""
    second = OrderPlan(1, "BTC-PERP", "sell", "limit", D(101_500), SIZE, D(101_500), reduce_only=True)
    proxy = FaultProxy(exchange.url)
    await proxy.start()
    said = Said()
    try:
        async with Client(proxy.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
            oco = runner(alice, said).start(TP, second)
            await linked(oco, said)
            proxy.mode = "500"
            await bob(exchange.url, [order_item(1, "b", "101500", "0.2", tif="IOC")])
            assert await position(exchange.url) == 0  # not -0.05: the second leg could no longer reduce
            proxy.mode = "pass"
            await said.until(lambda: not oco.active)
    finally:
        await proxy.stop()
    assert oco.filled == SIZE and await legs(exchange.url) == {}, said.messages


async def test_an_exchange_restarted_empty_unlinks_the_pair_and_says_so(exchange: SimProcess) -> None:
    """The exchange killed (SIGKILL) while the pair watches, then started again empty: the pair waits while it
    cannot read, then finds neither leg in the new record, stops and says both are unlinked; nothing rests."""
    said = Said()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        oco = runner(alice, said).start(TP, STOP)
        await linked(oco, said)
        await exchange.kill()
        await said.until(lambda: said.any("the take-profit unconfirmed: waiting for the exchange"))
        await exchange.start()
        await said.until(lambda: not oco.active)
    assert oco.state == "stopped" and "no record" in oco.reason, said.messages
    assert await legs(exchange.url) == {}


async def test_a_stop_refused_at_the_start_withdraws_the_take_profit(exchange: SimProcess) -> None:
    """The profile's guard refuses the stop as the pair is placed: the take-profit already placed is withdrawn, the
    pair stops saying why, and nothing of it rests (no half pair)."""
    said = Said()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        ocos = OcoRunner(
            alice, ALICE.address, said, order_expiry_s=3.0, poll_s=0.05, settle_retry_s=0.1,
            guard=lambda plans: "no stops today" if plans[0].kind == "stop" else None,
        )  # fmt: skip
        oco = ocos.start(TP, STOP)
        await said.until(lambda: said.any("the take-profit was withdrawn"))
    assert oco.state == "stopped" and "no stops today" in oco.reason, said.messages
    assert await legs(exchange.url) == {} and ocos.resting() == []
