"""Account events: each fill, trigger, exchange-ended order, liquidation and funding payment is news exactly once,
history is not news, and what arrives together is told in few lines."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import msgspec

from tests.conftest import client_for
from tests.feed.conftest import MakeFeed
from tui.api import wire
from tui.api.client import Client
from tui.api.models import Fill, FundingRecord, Order, WsFill, WsOrder, decode
from tui.config.values import DEFAULT_BELL as CONFIG_BELL
from tui.config.values import NOTICE_KINDS
from tui.feed.events import DEFAULT_BELL, EVENT_KINDS, EventLog, notices
from tui.feed.state import InstrumentInfo
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

D = Decimal
USER = "0x" + "ab" * 20
BTC = InstrumentInfo(1, "BTC-PERP", "perp", D("0.1"), D("0.0001"), D(10), 50)


def ws_fill(trade_id: int, **over: Any) -> WsFill:
    fields = {
        "instrument_id": 1, "instrument": "BTC-PERP", "account": USER, "order_id": 7, "cloid": "",
        "trade_id": trade_id, "side": "s", "position_side": "BOTH", "direction": "openShort", "price": "100000",
        "size": "0.01", "closed_pnl": "0", "fee": "-0.02", "broker_fee": "0", "fee_token_id": 1, "crossed": False,
        "tx_hash": "0x01", "fill_type": 0, "original_size": "0.01", "original_price": "100000",
        "block_timestamp": 1_767_225_600_000,
    }  # fmt: skip
    return decode({**fields, **over}, WsFill)


def polled_fill(trade_id: int) -> Fill:
    f = ws_fill(trade_id)
    fields = {name: getattr(f, name) for name in Fill.__struct_fields__ if name in WsFill.__struct_fields__}
    return Fill(
        **{**fields, "block_timestamp": "2026-01-01T00:00:00.000Z"},
        start_size=D(0),
        start_price=D(0),
        notional_value=f.price * f.size,
    )


def ws_order(oid: int, state: str, **over: Any) -> WsOrder:
    fields = {
        "instrument_id": 1, "instrument": "BTC-PERP", "account": USER, "tif": "GTC", "order_id": oid, "cloid": "",
        "side": "s", "position_side": "BOTH", "limit_price": "0", "size": "0.5", "unfilled": "0.5", "state": state,
        "reduce_only": True, "post_only": False, "timestamp": 1_767_225_600_000,
    }  # fmt: skip
    return decode({**fields, **over}, WsOrder)


def open_order(oid: int, tpsl: str = "", trigger: str = "0", state: str = "open") -> Order:
    return decode(
        {
            "order_id": oid, "user": USER, "instrument_id": 1, "instrument": "BTC-PERP", "side": "s",
            "position_side": "BOTH", "limit_price": "0", "size": "0.5", "unfilled": "0.5", "state": state,
            "cloid": "", "tif": "IOC", "post_only": False, "reduce_only": True, "trigger_px": trigger,
            "is_market": True, "tpsl": tpsl, "grouping": "", "timestamp": "2026-01-01T00:00:00.000Z",
        },
        Order,
    )  # fmt: skip


def live_log() -> EventLog:
    log = EventLog()
    log.history([], [])
    return log


def test_the_kinds_and_the_default_bell_are_the_configs() -> None:
    assert NOTICE_KINDS == EVENT_KINDS and CONFIG_BELL == DEFAULT_BELL == {"fill", "trigger", "liquidation"}


def test_history_and_what_came_before_the_first_load_are_not_news() -> None:
    log = EventLog()
    assert log.fill(ws_fill(5), BTC) is None  # pushed while the account is still loading
    log.history([polled_fill(5), polled_fill(4)], [open_order(9, state="triggered")])
    assert log.fill(ws_fill(4), BTC) is None and log.fill(ws_fill(5), BTC) is None
    assert log.order(ws_order(9, "triggered"), None, BTC, now=0.0) is None  # a subscription's first picture
    assert log.fill(ws_fill(3, order_id=2), BTC) is None  # older than the first load: history, never news
    assert log.count == 0 and log.since(0) == []
    event = log.fill(ws_fill(6), BTC)
    assert event is not None and log.since(0) == [event] and log.since(1) == []


def test_a_fill_polled_then_pushed_is_told_once() -> None:
    log = live_log()
    assert log.fill(polled_fill(8), BTC) is not None
    assert log.fill(ws_fill(8), BTC) is None
    assert log.count == 1


def test_one_fill_says_side_size_price_role_fee_and_whether_the_order_is_done() -> None:
    log = live_log()
    event = log.fill(ws_fill(8), BTC)
    assert event is not None and (event.kind, event.size, event.price, event.maker) == (
        "fill",
        D("0.01"),
        D(100000),
        True,
    )
    [notice] = notices([event], {7: ("filled", D(0))}.get)
    assert notice.title == "Fill" and notice.kinds == {"fill"} and notice.severity == "information"
    assert notice.text == "Sold 0.0100 BTC-PERP at 100,000.0 · maker · rebate 0.02 · order filled"
    [partial] = notices([event], {7: ("open", D("0.006"))}.get)
    assert partial.text.endswith("· 0.0060 left")


def test_many_fills_at_once_are_one_line_per_instrument_and_side() -> None:
    log = live_log()
    prices = ["100000", "100001", "100002", "100003", "100004.5"]
    fills = [log.fill(ws_fill(10 + i, price=p, side="b", crossed=True, fee="0.2"), BTC) for i, p in enumerate(prices)]
    eth = log.fill(ws_fill(20, instrument="ETH-PERP", instrument_id=2, order_id=8), None)
    told = notices([f for f in fills if f is not None] + [eth] if eth else [], {7: ("filled", D(0))}.get)
    assert [n.title for n in told] == ["Fills", "Fill"]
    assert told[0].text == (
        "5 fills on BTC-PERP: bought 0.0500 at avg 100,002.1 · all taker · fees 1.00 · order filled"
    )
    assert told[1].text.startswith("Sold 0.0100 ETH-PERP at 100,000.0000")  # no steps known: four places


def test_a_trigger_firing_is_named_by_its_kind() -> None:
    log = live_log()
    prev = open_order(30, tpsl="sl", trigger="95000")
    event = log.order(ws_order(30, "triggered"), prev, BTC, now=0.0)
    assert event is not None and event.kind == "trigger"
    assert (event.title, event.text) == ("Stop-loss triggered", "sell 0.5000 BTC-PERP · at market · trigger 95,000.0")
    assert log.order(ws_order(30, "triggered"), prev, BTC, now=1.0) is None  # pushed again: not news again
    plain = log.order(ws_order(31, "triggered", limit_price="101000"), open_order(31, trigger="100500"), BTC, 0.0)
    assert plain is not None and plain.title == "Stop triggered" and "limit 101,000.0" in plain.text
    [notice] = notices([event])
    assert notice.severity == "warning" and notice.kinds == {"trigger"}


def test_orders_the_exchange_ends_are_news_and_the_dashboards_own_cancels_are_not() -> None:
    log = live_log()
    gone = log.order(ws_order(40, "cancelled", tif="GTC", limit_price="99000"), open_order(40), BTC, now=10.0)
    assert gone is not None and gone.kind == "cancel"
    assert gone.text == "sell 0.5000 BTC-PERP · limit 99,000.0 · not from this dashboard"
    expired = log.order(ws_order(41, "expired", limit_price="99000", unfilled="0.2"), open_order(41), BTC, 10.0)
    assert expired is not None and expired.title == "Order expired" and "0.2000 of 0.5000 unfilled" in expired.text
    log.own_cancel(True, now=10.0)
    assert log.order(ws_order(42, "cancelled"), open_order(42), BTC, now=11.0) is None
    log.own_cancel(False, now=12.0)
    assert log.order(ws_order(43, "cancelled"), open_order(43), BTC, now=13.0) is None  # its pushes may lag
    assert log.order(ws_order(44, "cancelled"), open_order(44), BTC, now=20.0) is not None
    # the unfilled rest of an IOC order is cancelled as it is placed: news even while the desk cancels
    log.own_cancel(True, now=30.0)
    rest = log.order(ws_order(45, "cancelled", tif="IOC", unfilled="0.3"), None, BTC, now=30.0)
    assert rest is not None and rest.title == "Unfilled rest cancelled" and "0.3000 of 0.5000 unfilled" in rest.text
    log.own_cancel(False, now=31.0)
    assert log.order(ws_order(46, "filled"), open_order(46), BTC, now=40.0) is None  # fills tell of it
    many = [log.order(ws_order(50 + i, "cancelled"), open_order(50 + i), BTC, now=100.0) for i in range(3)]
    [notice] = notices([e for e in many if e is not None])
    assert notice.text == "3 orders on BTC-PERP ended, not from this dashboard: 3 cancelled"


def test_a_positions_tp_sl_ended_by_the_exchange_went_with_the_position() -> None:
    """Closed from this dashboard or by one of them firing, the exchange ends a position's TP/SL: said so, not as an
    order ended by someone else."""
    log = live_log()
    legs = [
        msgspec.structs.replace(open_order(70 + i, tpsl=tpsl, trigger=at), grouping="position")
        for i, (tpsl, at) in enumerate((("tp", "101000"), ("sl", "99000")))
    ]
    ended = [log.order(ws_order(leg.order_id, "cancelled"), leg, BTC, now=5.0) for leg in legs]
    assert all(e is not None and e.text.endswith("it went with the position it guarded (closed)") for e in ended)
    [notice] = notices([e for e in ended if e is not None])
    assert notice.text == "2 TP/SL orders on BTC-PERP went with the closed position"


def test_a_liquidation_and_funding() -> None:
    log = live_log()
    liq = log.fill(ws_fill(60, order_id=0, side="s", fill_type=1, closed_pnl="-1234.5", crossed=True), BTC)
    assert liq is not None and liq.kind == "liquidation"
    [notice] = notices([liq])
    assert (notice.title, notice.severity) == ("LIQUIDATED", "error")
    assert notice.text == "BTC-PERP long 0.0100 closed at 100,000.0 · PnL -1,234.50"
    record = decode(
        {
            "user": USER, "instrument_id": 1, "settlement_currency": 1, "funding_payment": "-0.0125",
            "funding_rate": "0.0000125", "mark_price": "100000", "size": "0.01",
            "timestamp": "2026-01-01T01:00:00.000Z",
        },
        FundingRecord,
    )  # fmt: skip
    funding = log.funding(record, "BTC-PERP", BTC)
    assert funding is not None and log.funding(record, "BTC-PERP", BTC) is None
    assert funding.text == "paid 0.01 USDC on BTC-PERP · rate 0.00125% · size 0.0100"


# ---- against the local exchange ----------------------------------------------------------------------------


def address(client: Client) -> str:
    assert client.signer is not None
    return client.signer.address


async def test_a_resting_order_filled_by_another_account_is_news_and_history_is_not(
    make_feed: MakeFeed, alice: Client, bob: Client
) -> None:
    await alice.place_order([wire.order_item(1, "s", "100000", "0.02")])
    await bob.place_order([wire.order_item(1, "b", "100000", "0.01", tif="IOC")])  # before the feed: history
    feed, changes = await make_feed(address(alice))
    account = feed.state.account
    assert len(account.fills) == 1 and account.events.live and account.events.count == 0

    await bob.place_order([wire.order_item(1, "b", "100000", "0.01", tif="IOC")])  # fills the rest of it
    await changes.until(lambda: account.events.count == 1 and not account.open_orders)
    [event] = account.events.since(0)
    assert (event.kind, event.side, event.size, event.price, event.maker) == ("fill", "s", D("0.01"), D(100000), True)
    [notice] = notices([event], account.order_status)
    assert notice.text.startswith("Sold 0.0100 BTC-PERP at 100,000.0 · maker · ")
    assert notice.text.endswith(" · order filled")

    await feed.refresh_account()  # the poll brings the same fill: not news again
    assert account.events.count == 1


async def test_a_stop_loss_firing_and_funding(
    make_feed: MakeFeed, sim: LocalExchange, clock: FrozenClock, alice: Client, bob: Client
) -> None:
    await alice.place_order([wire.order_item(1, "b", "100000", "0.1")])
    await bob.place_order([wire.order_item(1, "s", "100000", "0.1", tif="IOC")])  # alice is long 0.1
    async with client_for(sim, "0x" + "c3" * 32, clock) as carol:  # a bid for the stop to sell into, an ask above
        await carol.place_order([wire.order_item(1, "b", "94000", "1"), wire.order_item(1, "s", "100500", "1")])
    stop = wire.order_item(
        1, "s", "0", "0.1", trigger_px="95000", tpsl="sl", is_market=True, reduce_only=True, tif="IOC"
    )
    await alice.place_order([stop])
    feed, changes = await make_feed(address(alice))
    account = feed.state.account
    assert [o.tpsl for o in account.open_orders] == ["sl"]

    # the mark falls under the trigger: median(index 94,500, mid 97,250, last 94,000) = 94,500
    sim.engine.set_index_price(1, "94500")
    await bob.place_order([wire.order_item(1, "s", "94000", "0.01", tif="IOC")])
    sim.step(1)
    await changes.until(lambda: {"trigger", "fill"} <= {e.kind for e in account.events.since(0)})
    kinds = [e.kind for e in account.events.since(0)]
    trigger = next(e for e in account.events.since(0) if e.kind == "trigger")
    assert trigger.title == "Stop-loss triggered" and "trigger 95,000.0" in trigger.text
    assert kinds.index("trigger") < kinds.index("fill")
    fill = next(e for e in account.events.since(0) if e.kind == "fill")
    assert (fill.side, fill.size, fill.price, fill.maker) == ("s", D("0.1"), D(94000), False)
    told = [n.title for n in notices(account.events.since(0), account.order_status)]
    assert told[:2] == ["Stop-loss triggered", "Fill"]

    await alice.place_order([wire.order_item(1, "b", "100500", "0.05", tif="IOC")])  # long again, for funding
    shown = account.events.count
    sim.step(3_600_000)  # a funding boundary with a position held
    await changes.until(lambda: any(e.kind == "funding" for e in account.events.since(shown)))
    funding = next(e for e in account.events.since(shown) if e.kind == "funding")
    assert funding.instrument == "BTC-PERP" and funding.size == D("0.05") and funding.amount != 0


async def test_an_order_placed_elsewhere_is_never_shown_as_a_row_invented_from_its_push(
    make_feed: MakeFeed, alice: Client
) -> None:
    feed, changes = await make_feed(address(alice), poll_s=3600.0)  # only the push can bring the poll forward
    account = feed.state.account
    seen: list[tuple[D, bool]] = []  # every open order the state held, at every change

    def record() -> bool:
        seen.extend((o.trigger_px, o.is_market) for o in account.open_orders)
        return bool(account.open_orders)

    stop = wire.order_item(1, "s", "0", "0.1", trigger_px="95000", is_market=True, tif="IOC")  # a stop market sell
    await alice.place_order([stop])  # from another client: the feed's first word of it is the push
    await changes.until(record)
    [order] = account.open_orders
    assert (order.trigger_px, order.is_market, order.limit_price) == (D(95000), True, D(0))
    assert set(seen) == {(D(95000), True)}  # never a "limit at 0" made from the push
