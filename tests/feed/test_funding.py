"""Funding: its period from the account's records, the next payment, the annual rate, and what a position has paid,
checked against the local exchange's own funding records and its ledger."""

from __future__ import annotations

from decimal import Decimal

from tests.feed.conftest import MakeFeed
from tui.api import wire
from tui.api.client import Client
from tui.api.models import Fill, FundingRecord, Position
from tui.feed.funding import annualised, funding_paid, next_payment_s, opened_at, period_from
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

D = Decimal
HOUR_MS = 3_600_000


def record(ts: str, payment: str, size: str = "1", instrument_id: int = 1) -> FundingRecord:
    return FundingRecord("0xa", instrument_id, 0, D(payment), D("0.0001"), D(100), D(size), ts)


def fill(ts: str, side: str, size: str, start: str, instrument_id: int = 1) -> Fill:
    return Fill(
        instrument_id, "BTC-PERP", "0xa", 1, "", 1, side, "BOTH", "", D(100), D(size), D(0), D(0), D(0), 0, True,
        "", 0, D(start), D(0), D(0), ts,
    )  # fmt: skip


def position(size: str, instrument_id: int = 1) -> Position:
    return Position("0xa", instrument_id, "BTC-PERP", "BOTH", D(size), D(100), D(100), "cross", D(10), 0)


def test_the_period_is_the_smallest_gap_between_settlements() -> None:
    hourly = [record(f"2026-01-01T0{h}:00:00.000Z", "-1") for h in (1, 2, 4)]  # 03:00 paid nothing (rate 0)
    assert period_from(hourly) == 3_600
    eight = [record("2026-01-01T00:00:00.000Z", "-1"), record("2026-01-01T08:00:00Z", "-1", instrument_id=2)]
    assert period_from(eight) == 8 * 3_600
    one_settlement = [record("2026-01-01T01:00:00.000Z", "-1"), record("2026-01-01T01:00:00.000Z", "2", "-1", 2)]
    assert period_from(one_settlement) is None and period_from([]) is None


def test_next_payment_and_annual_rate() -> None:
    start = 1_767_225_600  # 2026-01-01 00:00:00 UTC, a whole hour
    assert next_payment_s(start + 1, 3_600) == 3_599
    assert next_payment_s(start + 3_599.5, 3_600) == 0.5
    assert next_payment_s(start, 3_600) == 3_600  # paid just now: the next is a whole period away
    assert next_payment_s(start + 3_600, 8 * 3_600) == 7 * 3_600
    assert annualised(D("0.0001"), 3_600) == D("0.876")  # 0.01% an hour is 87.6% a year
    assert annualised(D("0.0001"), 8 * 3_600) == D("0.1095")


def test_funding_paid_since_the_fill_that_opened_the_position() -> None:
    records = [record(f"2026-01-01T0{h}:00:00.000Z", f"-{h}") for h in range(5, 0, -1)]  # newest first
    fills = [
        fill("2026-01-01T00:30:00.000Z", "b", "1", "0"),  # opened long
        fill("2026-01-01T02:30:00.000Z", "s", "2", "1"),  # flipped short
        fill("2026-01-01T03:30:00.000Z", "b", "2", "-1"),  # flipped long again: the position held now
        fill("2026-01-01T04:30:00.000Z", "b", "1", "1"),  # added: not an opening
    ]
    held = position("2")
    assert opened_at(held, fills) is not None and opened_at(held, fills).hour == 3  # type: ignore[union-attr]
    paid = funding_paid(held, fills, records)
    assert (paid.amount, paid.payments, paid.estimate) == (D(-9), 2, False)  # 04:00 and 05:00
    other = [record("2026-01-01T05:00:00.000Z", "-100", instrument_id=2)]
    assert funding_paid(held, fills, other + records).amount == D(-9)  # another instrument's funding is not its


def test_without_its_opening_fill_the_same_side_records_are_summed_as_an_estimate() -> None:
    records = [
        record("2026-01-01T03:00:00.000Z", "-2", "3"),
        record("2026-01-01T02:00:00.000Z", "-1", "1"),
        record("2026-01-01T01:00:00.000Z", "5", "-1"),  # a short before: not this position's
    ]
    paid = funding_paid(position("3"), [fill("2026-01-01T02:30:00.000Z", "b", "2", "1")], records)
    assert (paid.amount, paid.payments, paid.estimate) == (D(-3), 2, True)


async def test_funding_paid_per_position_matches_the_exchange(
    make_feed: MakeFeed, sim: LocalExchange, clock: FrozenClock, alice: Client, bob: Client
) -> None:
    """Alice holds a long for three settlements, closes it, opens another: the feed's funding paid is the sum
    of the exchange's funding records for the position held, and its ledger's funding of the first one."""
    await alice.cancel_all()
    await bob.cancel_all()
    await bob.place_order([wire.order_item(1, "s", "101000", "0.5")])
    await alice.place_order([wire.order_item(1, "b", "101000", "0.2", tif="IOC")])  # long 0.2 at 101,000
    sim.engine.set_index_price(1, "100000")  # the mark above the index: longs pay
    feed, changes = await make_feed(alice.signer.address if alice.signer else None)
    account = feed.state.account
    for _ in range(3):
        sim.step(HOUR_MS)
    await changes.until(lambda: len(account.funding) == 3)
    assert feed.state.market.funding_period_s == 3_600
    mine = [r for r in (await alice.funding_history(account.address or "")).data if r.instrument_id == 1]
    assert len(mine) == 3 and all(r.funding_payment < 0 for r in mine)
    await feed.refresh_account()
    [held] = account.positions
    paid = funding_paid(held, account.fills, account.funding)
    assert paid.amount == sum(r.funding_payment for r in mine) and (paid.payments, paid.estimate) == (3, False)
    ledger = sim.engine.accounts[account.address.lower()].positions[1].funding  # type: ignore[union-attr]
    assert paid.amount == ledger

    await bob.cancel_all()
    await bob.place_order([wire.order_item(1, "b", "101000", "0.2")])
    await alice.place_order([wire.order_item(1, "s", "101000", "0.2", tif="IOC")])  # alice is flat
    await bob.place_order([wire.order_item(1, "s", "101000", "0.1")])
    await alice.place_order([wire.order_item(1, "b", "101000", "0.1", tif="IOC")])  # a new long
    sim.step(HOUR_MS)
    await changes.until(lambda: len(account.funding) == 4)
    await feed.refresh_account()
    [held] = account.positions
    assert held.size == D("0.1")
    newest = (await alice.funding_history(account.address or "")).data[0]
    paid = funding_paid(held, account.fills, account.funding)
    assert (paid.amount, paid.payments) == (newest.funding_payment, 1)  # only since it opened


async def test_a_feed_started_later_loads_the_funding_records(
    make_feed: MakeFeed, sim: LocalExchange, clock: FrozenClock, alice: Client, bob: Client
) -> None:
    await bob.place_order([wire.order_item(1, "s", "101000", "0.5")])
    await alice.place_order([wire.order_item(1, "b", "101000", "0.2", tif="IOC")])
    sim.engine.set_index_price(1, "100000")
    for _ in range(2):
        sim.step(HOUR_MS)
    feed, changes = await make_feed(alice.signer.address if alice.signer else None)
    await changes.until(lambda: len(feed.state.account.funding) == 2)
    assert [r.timestamp for r in feed.state.account.funding] == ["2026-01-01T02:00:00.000Z", "2026-01-01T01:00:00.000Z"]


async def test_payments_made_while_the_socket_was_down_are_loaded_after_the_reconnect(
    make_feed: MakeFeed, sim: LocalExchange, alice: Client, bob: Client
) -> None:
    await bob.place_order([wire.order_item(1, "s", "101000", "0.5")])
    await alice.place_order([wire.order_item(1, "b", "101000", "0.2", tif="IOC")])
    sim.engine.set_index_price(1, "100000")
    feed, changes = await make_feed(alice.signer.address if alice.signer else None)
    status, account = feed.state.status, feed.state.account
    sim.limiter.limits.ws_connections = 0  # refused until the test allows it
    for conn in list(sim.hub.connections):
        await conn.ws.close()
    await changes.until(lambda: status.connection != "live")
    sim.step(HOUR_MS)  # paid while nothing is pushed
    sim.step(HOUR_MS)
    assert account.funding == []
    sim.limiter.limits.ws_connections = 100
    await changes.until(lambda: status.connection == "live" and len(account.funding) == 2)
    assert feed.state.market.funding_period_s == 3_600
