"""``xtui sim --faults``, each knob seen from a client over real loopback, on a frozen clock that the test steps:
a latency is "not answered 1 ms before it is due, answered when it is", never a wall-time measurement."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.conftest import ALICE_KEY, client_for
from tests.waiting import until
from tui.api import wire
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.fault_dice import ClockWaits, FaultDice
from tui.sim.server.fault_plan import FaultPlan, Latency
from tui.sim.server.faults import INFO_HANG_MS
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits

ALICE = Signer(ALICE_KEY)
BOB_KEY = "0x" + "b0" * 32
INFO = {"method": "ticker", "params": {"symbol": "BTC-PERP"}}
DEADLINE_S = 10.0


def waits(sim: LocalExchange) -> ClockWaits:
    assert isinstance(sim.waits, ClockWaits)
    return sim.waits


async def faulty(plan: FaultPlan, clock: FrozenClock) -> LocalExchange:
    sim = LocalExchange(SimConfig(seed=7, market=False, limits=Limits(), network="mainnet", faults=plan), clock)
    await sim.start()
    return sim


def signed(name: str, fields: dict[str, Any], nonce: int) -> dict[str, Any]:
    data = wire.action_data(name, fields, nonce)
    return wire.build_body(name, data, ALICE.sign_action(data, wire.tx_type(name, "sdk")), "sdk")


async def held_until_due(sim: LocalExchange, due_ms: int, answered: Callable[[], bool], what: str) -> None:
    """``what`` is held by the faults, still held at ``due_ms - 1``, and released at ``due_ms``."""
    await until(lambda: waits(sim).waiting >= 1, f"{what} held")
    sim.step(due_ms - 1)
    await asyncio.sleep(0)
    assert waits(sim).waiting >= 1 and not answered(), f"{what} released before it was due"
    sim.step(1)
    await until(answered, f"{what} released when due")


async def test_http_latency_is_the_seeds_draw_and_holds_the_answer_until_it_is_due(clock: FrozenClock) -> None:
    """A POST /info under --http-latency 100~900: not answered 1 ms before the delay the fault seed draws first
    (predicted from a fresh FaultDice with the same seed), answered at it, with the X-Xtui-Faults header."""
    plan = FaultPlan(preset="none", seed=3, http=Latency(100, 900))
    due = FaultDice(plan, 3).http_ms()
    sim = await faulty(plan, clock)
    try:
        async with httpx.AsyncClient() as h:
            answer = asyncio.create_task(h.post(sim.url + "/info", json=INFO))
            await held_until_due(sim, due, answer.done, "/info")
            resp = answer.result()
        assert resp.status_code == 200
        assert resp.headers["x-xtui-faults"] == "none seed=3 http=100~900ms"
    finally:
        await sim.stop()


async def test_an_exchange_without_faults_says_none_and_holds_nothing(sim: LocalExchange) -> None:
    """The default plan: no X-Xtui-Faults header and an answer with no step of the clock."""
    async with httpx.AsyncClient() as h:
        resp = await h.post(sim.url + "/info", json=INFO)
    assert resp.status_code == 200 and "x-xtui-faults" not in resp.headers


async def test_refused_actions_say_it_is_a_fault_and_change_nothing(clock: FrozenClock) -> None:
    """--refuse-rate 1: a signed placeOrder is refused with a reason naming the injected fault, nothing rests,
    and the same nonce is still unused (the refusal came before the action was read as Alice's)."""
    sim = await faulty(FaultPlan(refuse_rate=Decimal(1)), clock)
    try:
        body = signed("placeOrder", {"orders": [wire.order_item(1, "b", "90000", "0.01")], "expiresAfter": 2**41}, 5)
        async with httpx.AsyncClient() as h:
            resp = await h.post(sim.url + "/exchange", json=body)
            envelope = resp.json()
            assert resp.status_code == 200
            assert envelope["error"].startswith("injected fault (xtui sim --faults): placeOrder refused at random")
            assert envelope["tx_hash"] == "" and envelope["tx_type"] == 1301
            orders = await h.post(sim.url + "/info", json={"method": "openOrders", "params": {"user": ALICE.address}})
        assert orders.json()["data"] == []
        sim.faults.plan = FaultPlan()  # the faults off: the very same body (its nonce) is taken
        async with httpx.AsyncClient() as h:
            again = (await h.post(sim.url + "/exchange", json=body)).json()
        assert again["error"] == ""
    finally:
        await sim.stop()


async def test_an_info_timeout_hangs_past_the_clients_timeout_then_says_why(clock: FrozenClock) -> None:
    """--info-timeout-rate 1: a client with a 0.2 s timeout gets no answer; a patient one is held INFO_HANG_MS and
    then answered 504 naming the fault; /exchange still answers meanwhile."""
    sim = await faulty(FaultPlan(info_timeout_rate=Decimal(1)), clock)
    try:
        async with httpx.AsyncClient(timeout=0.2) as h:
            with pytest.raises(httpx.ReadTimeout):
                await h.post(sim.url + "/info", json=INFO)
        async with httpx.AsyncClient(timeout=DEADLINE_S) as h:
            body = signed("cancelAll", {"expiresAfter": 2**41}, 9)
            assert (await h.post(sim.url + "/exchange", json=body)).status_code == 200
            answer = asyncio.create_task(h.post(sim.url + "/info", json=INFO))
            await held_until_due(sim, INFO_HANG_MS, answer.done, "the hung /info")
            resp = answer.result()
        assert resp.status_code == 504
        assert resp.json()["message"] == "injected fault (xtui sim --faults): /info timed out: held 30 s unanswered"
    finally:
        await sim.stop()


async def _frames(ws: Any, into: list[dict[str, Any]]) -> None:
    async for text in ws:
        into.append(json.loads(text))


async def test_feed_and_acknowledgement_latencies_are_apart(clock: FrozenClock) -> None:
    """--ws-feed-latency 200 --ws-ack-latency 500: after subscribing, the book's first picture (a push) arrives at
    +200 ms and the subscribe reply (an answer) at +500 ms: each stream its own delay, the picture first."""
    sim = await faulty(FaultPlan(ws_feed=Latency(200, 200), ws_ack=Latency(500, 500)), clock)
    sim.hub.repeat_after_s = ()  # only the picture right behind the reply
    got: list[dict[str, Any]] = []
    try:
        async with connect(sim.ws_url) as ws:
            reader = asyncio.create_task(_frames(ws, got))
            sub = {"jsonrpc": "2.0", "method": "subscribe", "id": "1", "params": {"channel": "orderbook",
                                                                                  "symbol": "BTC-PERP"}}  # fmt: skip
            await ws.send(json.dumps(sub))
            await until(lambda: waits(sim).waiting >= 2, "the reply and the picture held")
            sim.step(199)
            await asyncio.sleep(0)
            assert got == []
            sim.step(1)
            await until(lambda: len(got) == 1, "the picture at +200 ms")
            assert got[0]["method"] == "subscription"
            sim.step(299)
            await asyncio.sleep(0)
            assert len(got) == 1
            sim.step(1)
            await until(lambda: len(got) == 2, "the reply at +500 ms")
            assert got[1]["id"] == "1" and got[1]["result"]["status"] == "subscribed"
            reader.cancel()
    finally:
        await sim.stop()


async def test_a_connection_is_dropped_when_its_time_is_up_saying_it_is_a_fault(clock: FrozenClock) -> None:
    """--ws-drop-every 5: the upgrade carries X-Xtui-Faults; open at +4.999 s (a ping is answered), closed at +5 s
    with 1012 and a reason naming the injected fault."""
    sim = await faulty(FaultPlan(ws_drop_every_s=5), clock)
    try:
        async with connect(sim.ws_url) as ws:
            assert ws.response is not None and ws.response.headers["x-xtui-faults"] == "none seed=7 ws-drop=5s"
            await until(lambda: waits(sim).waiting == 1, "the drop scheduled")
            sim.step(4_999)
            await ws.send(json.dumps({"jsonrpc": "2.0", "method": "ping", "id": "p"}))
            assert json.loads(await ws.recv())["result"]["pong"] is True
            sim.step(1)
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), DEADLINE_S)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        assert closed.value.rcvd.reason == "injected fault (xtui sim --faults): connection dropped 5 s after it opened"
    finally:
        await sim.stop()


async def test_a_partial_fill_fills_half_an_ioc_order_and_cancels_the_rest(clock: FrozenClock) -> None:
    """--partial-fill-rate 1: Bob rests 0.02 BTC; Alice's IOC buy of 0.01 through it fills 0.005 (half, in lots),
    the rest is cancelled (not rested), and Bob's order keeps what was not taken. The fills are the exchange's."""
    sim = await faulty(FaultPlan(partial_fill_rate=Decimal(1)), clock)
    try:
        async with client_for(sim, BOB_KEY, clock) as bob, client_for(sim, ALICE_KEY, clock) as alice:
            assert bob.signer is not None and alice.signer is not None
            await bob.place_order([wire.order_item(1, "s", "100000", "0.02")])
            await alice.place_order([wire.order_item(1, "b", "100000", "0.01", tif="IOC")])
            fills = (await alice.fills(alice.signer.address)).data
            assert sum(Decimal(f.size) for f in fills) == Decimal("0.005")
            assert (await alice.open_orders(alice.signer.address)).data == []
            [resting] = (await bob.open_orders(bob.signer.address)).data
            assert (resting.size, resting.unfilled) == (Decimal("0.02"), Decimal("0.015"))
    finally:
        await sim.stop()


async def _refusal_pattern(clock: FrozenClock, seed: int) -> list[bool]:
    sim = await faulty(FaultPlan(seed=seed, refuse_rate=Decimal("0.5")), clock)
    try:
        async with httpx.AsyncClient() as h:
            said = []
            for nonce in range(1, 25):
                body = signed("cancelAll", {"expiresAfter": 2**41}, nonce)
                said.append("injected fault" in (await h.post(sim.url + "/exchange", json=body)).json()["error"])
        return said
    finally:
        await sim.stop()


async def test_one_fault_seed_refuses_the_same_requests_in_two_runs() -> None:
    """Two exchanges with fault seed 11 refuse the same 24 requests out of 24 sent in order; seed 12 does not."""
    first = await _refusal_pattern(FrozenClock(), 11)
    second = await _refusal_pattern(FrozenClock(), 11)
    other = await _refusal_pattern(FrozenClock(), 12)
    assert first == second
    assert 0 < sum(first) < len(first)
    assert other != first


def test_one_seed_one_sequence_of_decisions_for_every_kind() -> None:
    """FaultDice: every kind's draws repeat under one seed, and one kind's draws do not shift another's."""
    plan = FaultPlan(
        http=Latency(1, 1000),
        ws_feed=Latency(1, 1000),
        ws_ack=Latency(1, 1000),
        refuse_rate=Decimal("0.3"),
        info_timeout_rate=Decimal("0.3"),
        partial_fill_rate=Decimal("0.3"),
    )

    def draws(dice: FaultDice, interleave: bool) -> list[Any]:
        out: list[Any] = []
        for _ in range(50):
            if interleave:
                dice.ws_feed_ms()
            out += [dice.http_ms(), dice.refuse(), dice.info_timeout(), dice.partial_fill(), dice.ws_ack_ms()]
        return out

    assert draws(FaultDice(plan, 7), False) == draws(FaultDice(plan, 7), True)
    assert draws(FaultDice(plan, 7), False) != draws(FaultDice(plan, 8), False)


async def test_thin_book_quotes_few_small_wide_levels(clock: FrozenClock) -> None:
    """--faults thin-book: the synthetic makers' BTC book has at most 3 levels a side where the normal one has 12
    (a taker may have eaten one), a touch over 5x wider, and a tenth of the depth."""

    async def book(thin: bool) -> tuple[list[Any], list[Any]]:
        plan = FaultPlan(preset="thin-book", thin_book=True) if thin else FaultPlan()
        sim = LocalExchange(SimConfig(seed=7, market=True, limits=Limits(), faults=plan), FrozenClock())
        await sim.start()
        try:
            sim.step(1_000)
            async with httpx.AsyncClient() as h:
                body = {"method": "orderbook", "params": {"symbol": "BTC-PERP", "depth": 50}}
                data = (await h.post(sim.url + "/info", json=body)).json()
            return data["bids"], data["asks"]
        finally:
            await sim.stop()

    (thin_bids, thin_asks), (bids, asks) = await book(True), await book(False)
    assert 1 <= len(thin_bids) <= 3 and 1 <= len(thin_asks) <= 3 and len(bids) >= 10 and len(asks) >= 10
    spread = Decimal(asks[0]["price"]) - Decimal(bids[0]["price"])
    thin_spread = Decimal(thin_asks[0]["price"]) - Decimal(thin_bids[0]["price"])
    assert thin_spread > 5 * spread

    def depth(levels: list[Any]) -> Decimal:
        return sum((Decimal(lv["size"]) for lv in levels), Decimal(0))

    assert depth(thin_asks) * 10 < depth(asks) and depth(thin_bids) * 10 < depth(bids)
