"""The placement primitive against the local exchange over loopback (a frozen clock, no market): accepted, refused
(each kind the local exchange can be made to say, read by the classifier), an answer lost and settled from the
exchange's record, and an outcome the record cannot tell. Nothing sleeps: the record's reads are paced by a fake.

The settle reads the exchange's time from its answers' ``Date`` header, which uvicorn writes from the wall clock: an
exchange frozen at 2026-01-01 is, by its answers, long past any expiry signed on its clock (an absent order is "not
placed"); one frozen in 2100 is before it (an absent order "may still arrive")."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from decimal import Decimal

import pytest

from tests.conftest import ALICE_KEY, client_for, signs_for
from tests.fault_proxy import FaultProxy
from tui.api.client import Client
from tui.api.errors import RateLimited
from tui.api.refusals import RefusalKind
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits
from tui.trading.cloids import make_cloid, with_tool_cloids
from tui.trading.orders import OrderPlan
from tui.trading.placement import Accepted, PlaceRequest, Refused, Settled, Unknown, place, refused
from tui.trading.tool_forms import tool_of

D = Decimal
ALICE = Signer(ALICE_KEY)
YEAR_2100_MS = 4_102_444_800_000


def plan(price: str, size: str = "0.001", side: str = "buy", **kw: object) -> OrderPlan:
    return OrderPlan(1, "BTC-PERP", side, "limit", D(price), D(size), D(price), **kw)  # type: ignore[arg-type]


async def no_sleep(seconds: float) -> None:
    """The record's reads are not paced by real time here."""


@contextlib.asynccontextmanager
async def exchange(start_ms: int | None = None, **config: object) -> AsyncIterator[tuple[LocalExchange, FrozenClock]]:
    clock = FrozenClock() if start_ms is None else FrozenClock(start_ms)
    sim = LocalExchange(SimConfig(seed=7, market=False, limits=Limits(), **config), clock)  # type: ignore[arg-type]
    await sim.start()
    try:
        yield sim, clock
    finally:
        await sim.stop()


@contextlib.asynccontextmanager
async def proxied(sim: LocalExchange, clock: FrozenClock) -> AsyncIterator[tuple[FaultProxy, Client]]:
    """Alice's client through a fault proxy in front of ``sim``."""
    proxy = FaultProxy(sim.url)
    await proxy.start()
    client = Client(proxy.url, signer=ALICE, testnet=signs_for(sim), clock_ms=clock.now_ms, timeout=2.0)
    try:
        yield proxy, client
    finally:
        await client.aclose()
        await proxy.stop()


async def test_an_accepted_order_says_its_oid_and_a_cloid_naming_its_tool(alice: Client) -> None:
    outcome = await place(alice, PlaceRequest((plan("90000"),), "chase", run=3))
    assert isinstance(outcome, Accepted), outcome
    [cloid] = outcome.cloids
    assert re.fullmatch(r"ch3x\d+-1", cloid) and tool_of(cloid) == "chase"
    [order] = (await alice.open_orders(ALICE.address)).data
    assert outcome.oids == (order.order_id,) and order.cloid == cloid and outcome.errors == ("",)


async def test_a_batch_says_which_of_its_orders_the_exchange_refused() -> None:
    """Under the per-order batch rule one order off the tick is refused alone: the other rests."""
    async with exchange(batch="per-order") as (sim, clock), client_for(sim, ALICE_KEY, clock) as alice:
        outcome = await place(alice, PlaceRequest((plan("90000"), plan("90000.05")), "scale"))
        assert isinstance(outcome, Accepted), outcome
        assert outcome.oids[0] is not None and outcome.oids[1] is None and outcome.placed == 1
        assert "tick size" in outcome.errors[1]
        assert [o.cloid for o in (await alice.open_orders(ALICE.address)).data] == [outcome.cloids[0]]


@pytest.mark.parametrize(
    ("order", "kind"),
    [
        (plan("100000", post_only=True), RefusalKind.WOULD_CROSS),  # Bob asks 100,000
        (plan("100000", side="sell", reduce_only=True), RefusalKind.REDUCE_ONLY),  # Alice holds nothing
        (plan("99000", tif="IOC"), RefusalKind.NO_LIQUIDITY),
        (plan("100000", size="100"), RefusalKind.MARGIN),
        (plan("90000.05"), RefusalKind.TICK),
        (plan("90000", size="0.00015"), RefusalKind.LOT),
        (plan("90000", size="0.0001"), RefusalKind.NOTIONAL),  # 9 USDC, below 10
        (plan("160000"), RefusalKind.PRICE),  # the band is 50,000..150,000
        (OrderPlan(999, "NOPE-PERP", "buy", "limit", D(1000), D(1), D(1000)), RefusalKind.UNKNOWN_INSTRUMENT),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
async def test_each_refusal_is_classified_and_nothing_is_placed(
    alice: Client, bob: Client, order: OrderPlan, kind: RefusalKind
) -> None:
    await bob.place_order([order_item(1, "s", "100000", "1")])
    outcome = await place(alice, PlaceRequest((order,), "order"))
    assert isinstance(outcome, Refused) and outcome.kind == kind, outcome
    assert outcome.error.message == outcome.message and outcome.cloids[0].startswith("xt")
    assert (await alice.open_orders(ALICE.address)).data == []


async def test_an_expired_placement_is_refused_as_expired(alice: Client) -> None:
    outcome = await place(alice, PlaceRequest((plan("90000"),), "twap", run=1, expiry_s=-5.0))
    assert isinstance(outcome, Refused) and outcome.kind == RefusalKind.EXPIRED, outcome
    assert "expiresAfter" in outcome.message


async def test_a_cloid_an_open_order_holds_is_refused_as_a_duplicate() -> None:
    async with exchange(duplicate_cloid="refuse") as (sim, clock), client_for(sim, ALICE_KEY, clock) as alice:
        first = await place(alice, PlaceRequest((plan("90000", cloid="mine"),), "order"))
        again = await place(alice, PlaceRequest((plan("90001", cloid="mine"),), "order"))
    assert isinstance(first, Accepted) and first.cloids == ("mine",)
    assert isinstance(again, Refused) and again.kind == RefusalKind.DUPLICATE_CLOID, again


def test_a_rate_limit_is_refused_as_rate_limited() -> None:
    """A 429 is answered before anything is applied."""
    outcome = refused(RateLimited("rate limit exceeded", 1.0), ("xt1-1",))
    assert outcome.kind == RefusalKind.RATE_LIMITED and outcome.cloids == ("xt1-1",)


async def test_a_lost_answer_is_settled_from_the_record_and_not_sent_again() -> None:
    """The placeOrder reaches the exchange and its answer is lost: the record has the order, resting."""
    async with exchange() as (sim, clock), proxied(sim, clock) as (proxy, alice):
        proxy.place_fault = "lose_answer"
        heard: list[str] = []
        outcome = await place(
            alice, PlaceRequest((plan("90000"),), "amend"), on_unconfirmed=heard.append, sleep=no_sleep
        )
        assert isinstance(outcome, Settled), outcome
        [record] = outcome.orders
        assert record.found and record.open and record.cloid == outcome.cloids[0] and record.filled == 0
        assert heard and outcome.lost
        assert proxy.forwarded.count("/exchange") == 1


async def test_an_order_that_never_arrived_is_settled_as_not_placed_once_the_exchange_is_past_its_expiry() -> None:
    async with exchange() as (sim, clock), proxied(sim, clock) as (proxy, alice):
        proxy.place_fault = "drop"
        outcome = await place(alice, PlaceRequest((plan("90000"), plan("89000")), "group"), sleep=no_sleep)
        assert isinstance(outcome, Settled), outcome
        assert [o.found for o in outcome.orders] == [False, False]
        assert (await alice.open_orders(ALICE.address)).data == [] and "/exchange" not in proxy.forwarded


async def test_an_order_that_may_still_arrive_is_unknown() -> None:
    """Dropped before the exchange, whose time is before the order's expiry: it may still arrive, so the outcome is
    unknown when the time to ask runs out; each read of the record is paced by the fake sleep, not real time."""
    ticks = iter(range(1000))
    async with exchange(YEAR_2100_MS) as (sim, clock), proxied(sim, clock) as (proxy, alice):
        proxy.place_fault = "drop"
        slept: list[float] = []

        async def sleep(seconds: float) -> None:
            slept.append(seconds)

        request = PlaceRequest((plan("90000"),), "trailing", run=2, settle_s=3.0)
        outcome = await place(alice, request, sleep=sleep, clock=lambda: float(next(ticks)))
    assert isinstance(outcome, Unknown), outcome
    assert outcome.orders == (None,) and "may still arrive" in outcome.why and slept == [1.0, 1.0]  # 3 reads
    assert re.fullmatch(r"tr2x\d+-1", outcome.cloids[0])


async def test_an_outcome_the_record_cannot_be_read_for_is_unknown() -> None:
    async with exchange() as (sim, clock), proxied(sim, clock) as (proxy, alice):
        proxy.place_fault = "lose_answer"
        proxy.mode = "500"
        outcome = await place(alice, PlaceRequest((plan("90000"),), "order", settle_s=0), sleep=no_sleep)
        assert isinstance(outcome, Unknown) and "not readable" in outcome.why, outcome
        proxy.mode = "pass"
        [order] = (await alice.open_orders(ALICE.address)).data  # it did arrive: the outcome was unknown, not absent
        assert order.cloid == outcome.cloids[0]


def test_one_scheme_names_every_tool_and_never_repeats() -> None:
    cloids = [make_cloid("chase", 1, run=1) for _ in range(50)]
    assert len(set(cloids)) == 50 and all(tool_of(c) == "chase" for c in cloids)
    assert tool_of(make_cloid("oco", 1, run=2, leg="t")) == "OCO TP"
    kept, made = with_tool_cloids([plan("1", cloid="mine"), plan("2")], "scale")
    assert kept.cloid == "mine" and re.fullmatch(r"sc\d+-2", made.cloid)
