"""Order entry and matching: priority, partial fills, time-in-force, post-only, reduce-only, market orders,
self-trade prevention, validation messages, batches, cancels and spot."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tui.sim.engine import BrokerConfig, Rejected

from .engine_support import (
    ALICE,
    BOB,
    BTC,
    BTC_SPOT,
    BTC_TOKEN,
    CAROL,
    ETH,
    USDC,
    D,
    assert_conserved,
    make,
    order,
    position,
)


def open_orders(ex, who):  # type: ignore[no-untyped-def]
    return ex.open_orders(who)["data"]


def test_price_time_priority() -> None:
    ex, _ = make(None, ALICE, BOB, CAROL)
    a = ex.place_order(ALICE, order(BTC, "s", "100100", "1")).data["status"]["oid"]
    b = ex.place_order(BOB, order(BTC, "s", "100100", "1")).data["status"]["oid"]
    c = ex.place_order(CAROL, order(BTC, "s", "100050", "1")).data["status"]["oid"]
    taker = "0x" + "e5" * 20
    ex.ensure_account(taker)
    ex.place_order(taker, order(BTC, "b", "100100", "2.5"))
    taker_fills = sorted(ex.fills(taker)["data"], key=lambda f: f["trade_id"])
    assert [(f["price"], f["size"]) for f in taker_fills] == [("100050", "1"), ("100100", "1"), ("100100", "0.5")]
    # C's better price first, then A (older at the same price), then half of B
    maker_fills = sorted(
        ex.fills(CAROL)["data"] + ex.fills(ALICE)["data"] + ex.fills(BOB)["data"], key=lambda f: f["trade_id"]
    )
    assert [f["order_id"] for f in maker_fills] == [c, a, b]
    assert ex.fills(BOB)["data"][0]["size"] == "0.5"
    assert open_orders(ex, BOB)[0]["unfilled"] == "0.5"
    assert_conserved(ex)


def test_taker_fills_listed_newest_first_with_their_prices() -> None:
    ex, _ = make(None, ALICE, BOB)
    ex.place_order(ALICE, order(BTC, "s", "100100", "1"))
    ex.place_order(ALICE, order(BTC, "s", "100200", "1"))
    ex.place_order(BOB, order(BTC, "b", "100200", "1.5"))
    fills = ex.fills(BOB)["data"]
    assert [(f["price"], f["size"], f["crossed"]) for f in fills] == [("100200", "0.5", True), ("100100", "1", True)]
    assert [f["crossed"] for f in ex.fills(ALICE)["data"]] == [False, False]


def test_partial_fill_leaves_the_rest_open() -> None:
    ex, _ = make(None, ALICE, BOB)
    oid = ex.place_order(ALICE, order(BTC, "b", "99900", "2")).data["status"]["oid"]
    ex.place_order(BOB, order(BTC, "s", "99900", "0.5"))
    (o,) = open_orders(ex, ALICE)
    assert (o["order_id"], o["state"], o["unfilled"], o["size"]) == (oid, "open", "1.5", "2")
    assert ex.order_history(BOB)["data"][0]["state"] == "filled"
    assert position(ex, ALICE, BTC) == D("0.5") and position(ex, BOB, BTC) == D("-0.5")


def test_ioc_fills_what_it_can_and_cancels_the_rest() -> None:
    ex, _ = make(None, ALICE, BOB)
    ex.place_order(ALICE, order(BTC, "s", "100000", "1"))
    ex.place_order(BOB, order(BTC, "b", "100000", "3", tif="IOC"))
    (h,) = ex.order_history(BOB)["data"]
    assert (h["state"], h["unfilled"]) == ("cancelled", "2")
    assert open_orders(ex, BOB) == []
    assert position(ex, BOB, BTC) == D(1)


def test_ioc_without_liquidity_is_rejected_and_changes_nothing() -> None:
    ex, _ = make(None, ALICE, BOB)
    ex.place_order(ALICE, order(BTC, "s", "100500", "1"))
    pending = len(ex.chain.pending)
    with pytest.raises(Rejected, match="no liquidity at 100000 or better"):
        ex.place_order(BOB, order(BTC, "b", "100000", "1", tif="IOC"))
    assert ex.order_history(BOB)["total_count"] == 0
    assert len(ex.chain.pending) == pending


def test_fok_all_or_nothing() -> None:
    ex, _ = make(None, ALICE, BOB)
    ex.place_order(ALICE, order(BTC, "s", "100000", "1"))
    ex.place_order(ALICE, order(BTC, "s", "100100", "1"))
    with pytest.raises(Rejected, match="FOK order cannot fill in full: 1 available"):
        ex.place_order(BOB, order(BTC, "b", "100000", "1.5", tif="FOK"))
    assert len(open_orders(ex, ALICE)) == 2
    ex.place_order(BOB, order(BTC, "b", "100100", "1.5", tif="FOK"))
    assert position(ex, BOB, BTC) == D("1.5")
    assert ex.order_history(BOB)["data"][0]["state"] == "filled"


def test_fok_does_not_count_own_orders() -> None:
    ex, _ = make(None, ALICE, BOB)
    ex.place_order(BOB, order(BTC, "s", "100000", "1"))
    ex.place_order(ALICE, order(BTC, "s", "100000", "1"))
    with pytest.raises(Rejected, match="FOK"):
        ex.place_order(BOB, order(BTC, "b", "100000", "2", tif="FOK"))


def test_post_only_rejected_when_it_would_cross() -> None:
    ex, _ = make(None, ALICE, BOB)
    ex.place_order(ALICE, order(BTC, "s", "100000", "1"))
    with pytest.raises(Rejected, match=r"post-only order would cross the book \(best ask 100000\)"):
        ex.place_order(BOB, order(BTC, "b", "100000", "1", post_only=True))
    ex.place_order(BOB, order(BTC, "b", "99999.9", "1", post_only=True))
    assert open_orders(ex, BOB)[0]["post_only"] is True


def test_reduce_only_needs_an_opposite_position_and_is_clipped() -> None:
    ex, _ = make(None, ALICE, BOB, CAROL)
    with pytest.raises(Rejected, match="reduce-only order would not reduce: no long position in BTC-PERP"):
        ex.place_order(ALICE, order(BTC, "s", "100000", "1", reduce_only=True))
    ex.place_order(BOB, order(BTC, "s", "100000", "0.3"))
    ex.place_order(ALICE, order(BTC, "b", "100000", "0.3"))
    with pytest.raises(Rejected, match="no short position"):
        ex.place_order(ALICE, order(BTC, "b", "100000", "1", reduce_only=True))
    ex.place_order(ALICE, order(BTC, "s", "100100", "1", reduce_only=True))
    (o,) = open_orders(ex, ALICE)
    assert (o["size"], o["reduce_only"]) == ("0.3", True)
    ex.place_order(CAROL, order(BTC, "b", "100100", "1"))
    assert position(ex, ALICE, BTC) == 0
    assert position(ex, CAROL, BTC) == D("0.3")


def test_resting_reduce_only_order_is_cancelled_once_the_position_is_gone() -> None:
    ex, _ = make(None, ALICE, BOB, CAROL)
    ex.place_order(BOB, order(BTC, "s", "100000", "1"))
    ex.place_order(ALICE, order(BTC, "b", "100000", "1"))
    ex.place_order(ALICE, order(BTC, "s", "100200", "1", reduce_only=True))
    ex.place_order(ALICE, order(BTC, "s", "100100", "1"))  # closes the long first (flat afterwards)
    ex.place_order(CAROL, order(BTC, "b", "100100", "1"))
    assert position(ex, ALICE, BTC) == 0
    ex.place_order(CAROL, order(BTC, "b", "100200", "1", tif="GTC"))
    states = {o["order_id"]: o["state"] for o in ex.order_history(ALICE)["data"]}
    assert sorted(states.values()) == ["cancelled", "filled", "filled"]
    assert position(ex, ALICE, BTC) == 0  # the reduce-only order never opened a short
    assert open_orders(ex, CAROL)[0]["unfilled"] == "1"


def test_market_order_bounded_by_mark_slippage() -> None:
    ex, _ = make(None, ALICE, BOB)
    ex.place_order(ALICE, order(BTC, "s", "104000", "1"))
    ex.place_order(ALICE, order(BTC, "s", "106000", "1"))  # beyond mark * 1.05
    ex.place_order(BOB, order(BTC, "b", "0", "2", is_market=True))
    (h,) = ex.order_history(BOB)["data"]
    assert (h["is_market"], h["tif"], h["limit_price"], h["state"], h["unfilled"]) == (
        True,
        "IOC",
        "105000",
        "cancelled",
        "1",
    )
    assert position(ex, BOB, BTC) == D(1)


def test_market_order_without_liquidity_is_rejected() -> None:
    ex, _ = make(None, BOB)
    with pytest.raises(Rejected, match="market order would not fill"):
        ex.place_order(BOB, order(BTC, "s", "0", "1", is_market=True))


def test_self_trade_cancels_the_resting_order() -> None:
    ex, _ = make(None, ALICE, BOB)
    own = ex.place_order(ALICE, order(BTC, "s", "100000", "1")).data["status"]["oid"]
    ex.place_order(BOB, order(BTC, "s", "100100", "1"))
    ex.place_order(ALICE, order(BTC, "b", "100100", "1"))
    assert {o["order_id"]: o["state"] for o in ex.order_history(ALICE)["data"]}[own] == "cancelled"
    assert position(ex, ALICE, BTC) == D(1) and position(ex, BOB, BTC) == D(-1)


@pytest.mark.parametrize(
    ("req", "message"),
    [
        (order(BTC, "b", "100000.05", "1"), "price 100000.05 is not a multiple of tick size 0.1"),
        (order(BTC, "b", "100000", "0.00015"), "size 0.00015 is not a multiple of lot size 0.0001"),
        (order(BTC, "b", "90000", "0.0001"), "order notional 9 is below the minimum 10"),
        (order(BTC, "b", "200000", "1"), "price 200000 is outside the allowed band 50000..150000"),
        (order(99, "b", "1", "1"), "unknown instrument 99"),
        (order(BTC, "b", "100000", "1", position_side="LONG"), "hedge mode is off"),
        (order(BTC, "b", "100000", "1", tpsl="tp"), "a tp/sl order needs a triggerPx"),
        (order(BTC, "b", "100000", "1", post_only=True, tif="IOC"), "post-only orders must be GTC"),
        (order(BTC_SPOT, "b", "100000", "0.01", reduce_only=True), "reduce-only applies to perps only"),
        (order(BTC, "b", "99000", "11"), "insufficient margin: the order needs"),
    ],
)
def test_validation_messages(req, message) -> None:  # type: ignore[no-untyped-def]
    ex, _ = make(None, ALICE)
    before = ex.account_summary(ALICE)
    with pytest.raises(Rejected, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        ex.place_order(ALICE, req)
    assert ex.account_summary(ALICE) == before


def test_leverage_tier_limits_large_orders() -> None:
    ex, _ = make(None, ALICE)
    ex.deposit(ALICE, USDC, "10000000")
    ex.set_leverage(ALICE, BTC, 25)
    with pytest.raises(Rejected, match="allows at most 20x leverage"):
        ex.place_order(ALICE, order(BTC, "b", "100000", "11"))
    ex.place_order(ALICE, order(BTC, "b", "100000", "9"))


def test_batch_static_failure_rejects_everything() -> None:
    ex, _ = make(None, ALICE)
    with pytest.raises(Rejected, match="tick size"):
        ex.place_orders(ALICE, [order(BTC, "b", "99000", "0.1"), order(BTC, "b", "99000.05", "0.1")])
    assert open_orders(ex, ALICE) == []


def test_batch_reports_per_order_results() -> None:
    ex, _ = make(None, ALICE)
    result = ex.place_orders(
        ALICE, [order(BTC, "b", "99000", "0.1"), order(BTC, "b", "99000", "50"), order(ETH, "s", "3600", "1")]
    )
    status = result.data["status"]
    assert "oid" in status[0] and "oid" in status[2]
    assert status[1]["error"].startswith("insufficient margin")
    assert len(open_orders(ex, ALICE)) == 2


def test_cancels() -> None:
    ex, _ = make(None, ALICE)
    o1 = ex.place_order(ALICE, order(BTC, "b", "99000", "0.1", cloid="x-1")).data["status"]["oid"]
    o2 = ex.place_order(ALICE, order(BTC, "b", "98000", "0.1")).data["status"]["oid"]
    ex.place_order(ALICE, order(ETH, "b", "3400", "1"))
    ex.place_order(ALICE, order(ETH, "b", "3300", "1"))
    with pytest.raises(Rejected, match="is not an open order"):
        ex.cancel_by_oid(ALICE, [(12345, BTC)])
    r = ex.cancel_by_oid(ALICE, [(o2, BTC), (999, BTC)])
    assert r.success is False and r.data["status"][0] == {"success": {"success": f"order {o2} cancelled"}}
    assert ex.cancel_by_cloid(ALICE, [("x-1", BTC)]).success is True
    assert {o["order_id"]: o["state"] for o in ex.order_history(ALICE)["data"]}[o1] == "cancelled"
    assert ex.cancel_by_instrument(ALICE, ETH).data == {"success": "cancelled 2 orders", "orders_cancelled": 2}
    assert ex.cancel_all(ALICE).data["orders_cancelled"] == 0
    # released margin: everything is available again
    s = ex.account_summary(ALICE)
    assert s["initial_margin"] == 0 and s["available_balance"] == 100_000


def test_cancel_releases_order_margin_exactly() -> None:
    ex, _ = make(None, ALICE)
    oid = ex.place_order(ALICE, order(BTC, "b", "99000", "1")).data["status"]["oid"]
    assert ex.account_summary(ALICE)["initial_margin"] == D(9900)
    ex.cancel_by_oid(ALICE, [(oid, BTC)])
    pos = ex.accounts[ALICE.lower()].positions[BTC]
    assert pos.buy_notional == 0 and pos.sell_notional == 0


def test_spot_trade_moves_balances_and_charges_quote_fees() -> None:
    ex, _ = make(None, ALICE, BOB)
    ex.place_order(ALICE, order(BTC_SPOT, "s", "100000", "0.05"))
    alice = ex.accounts[ALICE.lower()]
    assert alice.spot_locked[BTC_TOKEN] == D("0.05")
    with pytest.raises(Rejected, match="insufficient BTC spot balance"):
        ex.place_order(ALICE, order(BTC_SPOT, "s", "100000", "0.06"))
    ex.place_order(BOB, order(BTC_SPOT, "b", "100000", "0.05"))
    bob = ex.accounts[BOB.lower()]
    assert bob.spot[BTC_TOKEN] == D("0.15")
    assert bob.spot[USDC] == D(10_000) - D(5000) - D("2.5")  # taker fee 0.0005 * 5000
    assert alice.spot[USDC] == D(10_000) + D(5000) + D("0.5")  # maker rebate
    assert alice.spot[BTC_TOKEN] == D("0.05") and alice.spot_locked[BTC_TOKEN] == 0
    assert ex.fills(BOB)["data"][0]["direction"] == "buy"
    assert position(ex, BOB, BTC_SPOT) == 0
    assert_conserved(ex)


def test_broker_fee_only_with_an_approval_within_its_maximum() -> None:
    ex, _ = make(None, ALICE, BOB)
    broker = CAROL
    with pytest.raises(Rejected, match="is not approved"):
        ex.place_order(ALICE, order(BTC, "b", "99000", "0.1"), BrokerConfig(broker, D("0.001")))
    ex.approve_broker_fee(ALICE, broker, "0.001")
    with pytest.raises(Rejected, match=r"exceeds the approved maximum 0\.001"):
        ex.place_order(ALICE, order(BTC, "b", "99000", "0.1"), BrokerConfig(broker, D("0.002")))
    ex.place_order(BOB, order(BTC, "s", "100000", "1"))
    ex.place_order(ALICE, order(BTC, "b", "100000", "1"), BrokerConfig(broker, D("0.001")))
    (fill,) = ex.fills(ALICE)["data"]
    assert fill["broker_fee"] == "100"
    assert ex.accounts[broker.lower()].balances[USDC] == D(100)
    checks = ex.brokers_check(ALICE)["data"]
    assert [(c["broker"].lower(), c["max_fee_rate"]) for c in checks] == [(broker.lower(), "0.001")]
    assert ex.brokers_check(None, BOB)["total_count"] == 0
    assert_conserved(ex)


def test_order_ids_increase_and_cloid_is_kept() -> None:
    ex, _ = make(None, ALICE)
    ids = [
        ex.place_order(ALICE, order(BTC, "b", str(90000 + i), "0.1", cloid=f"c{i}")).data["status"]["oid"]
        for i in range(3)
    ]
    assert ids == sorted(ids) and len(set(ids)) == 3
    assert [o["cloid"] for o in open_orders(ex, ALICE)] == ["c2", "c1", "c0"]


def test_fee_signs() -> None:
    ex, _ = make(None, ALICE, BOB)
    ex.place_order(ALICE, order(BTC, "s", "100000", "1"))
    ex.place_order(BOB, order(BTC, "b", "100000", "1"))
    assert ex.fills(ALICE)["data"][0]["fee"] == "-10"  # maker rebate 0.0001 shown negative
    assert ex.fills(BOB)["data"][0]["fee"] == "50"
    assert ex.fee_account.balances[USDC] == D(40)
    assert_conserved(ex)


def test_unknown_decimal_input_is_refused() -> None:
    from tui.sim.engine import OrderRequest

    with pytest.raises(Rejected, match="is not a plain decimal"):
        OrderRequest.from_wire({"instrumentId": 1, "side": "b", "price": "abc", "size": "1"})
    with pytest.raises(Rejected, match="must be a decimal string"):
        OrderRequest.from_wire({"instrumentId": 1, "side": "b", "price": 1.5, "size": "1"})
    req = OrderRequest.from_wire(
        {
            "instrumentId": 1,
            "side": "s",
            "positionSide": "BOTH",
            "price": "",
            "size": "2",
            "tif": "IOC",
            "ro": False,
            "po": False,
            "cloid": "",
            "triggerPx": "",
            "isMarket": True,
            "tpsl": "",
            "grouping": "",
        }
    )
    assert (req.is_buy, req.price, req.size, req.is_market) == (False, Decimal(0), Decimal(2), True)
