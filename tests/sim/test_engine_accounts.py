"""Positions, PnL, margin figures, leverage, isolated margin, liquidation, funding and trigger orders."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tui.sim.engine import Rejected
from tui.sim.engine.records import FILL_LIQUIDATION

from .engine_support import (
    ALICE,
    BOB,
    BTC,
    CAROL,
    HYPE,
    USDC,
    D,
    assert_conserved,
    make,
    order,
    position,
    usdc,
)


def trade(ex, buyer, seller, inst, price, size):  # type: ignore[no-untyped-def]
    """``seller`` rests, ``buyer`` takes."""
    ex.place_order(seller, order(inst, "s", price, size))
    ex.place_order(buyer, order(inst, "b", price, size))


def test_entry_price_closed_pnl_direction_and_flip() -> None:
    ex, _ = make(None, ALICE, BOB)
    ex.deposit(BOB, USDC, "1000000")
    trade(ex, ALICE, BOB, BTC, "100000", "1")
    trade(ex, ALICE, BOB, BTC, "102000", "1")
    (pos,) = ex.positions(ALICE)
    assert (pos["size"], pos["entry_price"]) == ("2", "101000")
    trade(ex, BOB, ALICE, BTC, "103000", "0.5")
    f = ex.fills(ALICE)["data"][0]
    assert (f["direction"], f["closed_pnl"], f["start_size"], f["start_price"]) == ("closeLong", "1000", "2", "101000")
    assert ex.positions(ALICE)[0]["entry_price"] == "101000"  # unchanged on reduce
    trade(ex, BOB, ALICE, BTC, "104000", "3")  # flip: 1.5 long -> 1.5 short, one fill
    f = ex.fills(ALICE)["data"][0]
    assert (f["direction"], f["size"], f["closed_pnl"], f["start_size"]) == ("closeLong", "3", "4500", "1.5")
    (pos,) = ex.positions(ALICE)
    assert (pos["size"], pos["entry_price"]) == ("-1.5", "104000")
    bob_dirs = [f["direction"] for f in reversed(ex.fills(BOB)["data"])]
    assert bob_dirs == ["openShort", "openShort", "closeShort", "closeShort"]
    assert_conserved(ex)


def test_margin_figures_worked_example() -> None:
    ex, _ = make(None, ALICE, BOB)
    trade(ex, ALICE, BOB, BTC, "100000", "1")  # Alice pays the taker fee: 50
    ex.set_index_price(BTC, "90000")  # mark = median(90000, no mid -> 90000, last 100000) = 90000
    s = ex.account_summary(ALICE)
    assert s["collateral"]["USDC"]["balance"] == D(99950)
    assert s["upnl"] == D(-10000)
    assert s["margin_balance"] == D(89950)
    assert s["initial_margin"] == D(9000)  # 90000 / 10x
    assert s["maintenance_margin"] == D(900)  # 1% tier
    assert s["available_balance"] == D(80950)
    assert s["collateral"]["USDC"]["withdrawable_balance"] == D(80950)
    assert s["initial_margin_utilization"] == (D(9000) / D(89950)).quantize(D("1e-8")).normalize()
    assert s["total_pnl"] == D(-10050)
    assert s["total_volume"] == D(100000)
    # 99950 + (m - 100000) = 0.01 m  ->  m = 50 / 0.99
    leg = s["perp_positions"]["BTC-PERP"]
    assert leg["liquidation_price"] == D("50.50505051")
    assert (leg["mm"], leg["im"], leg["upnl"]) == (D(900), D(9000), D(-10000))
    assert leg["legs"][0]["leverage"] == {"type": "cross", "value": D(10)}
    assert s["derivative_account_equity"] == D(89950)
    assert s["spot_account_equity"] == D(10000) + D("0.1") * D(100000) + D(3500)


def test_set_leverage_validates_and_changes_initial_margin() -> None:
    ex, _ = make(None, ALICE, BOB)
    trade(ex, ALICE, BOB, BTC, "100000", "1")
    with pytest.raises(Rejected, match="between 1 and 50"):
        ex.set_leverage(ALICE, BTC, 51)
    with pytest.raises(Rejected, match="spot"):
        ex.set_leverage(ALICE, 101, 2)
    ex.set_leverage(ALICE, BTC, "20")
    assert ex.account_summary(ALICE)["initial_margin"] == D(5000)
    lev = ex.instrument_leverage(ALICE, "BTC-PERP")
    assert (lev["leverage"], lev["margin_type"]) == ("20", "cross")
    with pytest.raises(Rejected, match="insufficient margin for 1x"):
        ex.set_leverage(ALICE, BTC, 1)
    assert ex.instrument_leverage(ALICE, "BTC-PERP")["leverage"] == "20"


def test_isolated_only_instrument_moves_margin_into_the_position() -> None:
    ex, _ = make(None, ALICE, BOB)
    trade(ex, ALICE, BOB, HYPE, "40", "100")  # notional 4000, 10x -> 400 isolated margin
    pos = ex.accounts[ALICE.lower()].positions[HYPE]
    assert pos.isolated and pos.iso_margin == D(400)
    assert usdc(ex, ALICE) == D(100000) - D(400) - D(2)  # margin + taker fee
    assert ex.positions(ALICE)[0]["margin_mode"] == "isolated"
    trade(ex, BOB, ALICE, HYPE, "41", "50")
    assert pos.iso_margin == D(200)
    assert usdc(ex, ALICE) == D(100000) - D(400) - D(2) + D(200) + D(50) + D("0.205")  # released, pnl, rebate
    s = ex.account_summary(ALICE)
    assert s["perp_positions"]["HYPE-PERP"]["im"] == D(200)
    assert_conserved(ex)


def test_cross_liquidation_by_backstop_takeover() -> None:
    ex, _clock = make(None, ALICE, BOB)
    ex.deposit(BOB, USDC, "10000000")
    ex.set_leverage(ALICE, BTC, 20)
    trade(ex, ALICE, BOB, BTC, "100000", "19")  # 1.9M notional, tier 2 (mmr 2.5%, mmd 15000)
    ex.place_order(ALICE, order(BTC, "s", "110000", "1"))  # a resting order, cancelled by the liquidation
    ex.set_index_price(BTC, "97000")
    ex.tick()
    assert position(ex, ALICE, BTC) == D(19)
    ex.set_index_price(BTC, "96000")
    ex.tick()
    assert position(ex, ALICE, BTC) == 0
    assert position(ex, ex.backstop.addr, BTC) == D(19)
    liq = ex.fills(ALICE)["data"][0]
    assert (liq["fill_type"], liq["price"], liq["direction"]) == (FILL_LIQUIDATION, "96000", "closeLong")
    assert ex.open_orders(ALICE)["total_count"] == 0
    assert usdc(ex, ALICE) == D(100000) - D(950) - D(19) * D(4000)
    assert_conserved(ex)


def test_liquidation_bad_debt_is_paid_by_the_backstop() -> None:
    ex, _ = make(None, ALICE, BOB)
    ex.deposit(BOB, USDC, "10000000")
    ex.set_leverage(ALICE, BTC, 20)
    trade(ex, ALICE, BOB, BTC, "100000", "19")
    ex.set_index_price(BTC, "80000")
    ex.tick()
    assert position(ex, ALICE, BTC) == 0
    assert ex.account_summary(ALICE)["margin_balance"] == 0
    assert usdc(ex, ex.backstop.addr) < 0
    assert_conserved(ex)


def test_isolated_liquidation_only_takes_that_position() -> None:
    ex, _ = make(None, ALICE, BOB)
    ex.deposit(BOB, USDC, "10000000")
    trade(ex, ALICE, BOB, HYPE, "40", "1000")  # 4000 isolated margin at 10x, mmr 5%
    trade(ex, ALICE, BOB, BTC, "100000", "0.1")
    ex.set_index_price(HYPE, "37")  # equity 4000 - 3000 = 1000 < mm 1850
    ex.tick()
    assert position(ex, ALICE, HYPE) == 0 and position(ex, ALICE, BTC) == D("0.1")
    assert_conserved(ex)


def test_funding_longs_pay_shorts_when_mark_is_above_index() -> None:
    ex, clock = make(None, ALICE, BOB, CAROL)
    trade(ex, ALICE, BOB, BTC, "101000", "1")  # last = 101000
    ex.place_order(CAROL, order(BTC, "b", "100500", "0.1"))
    ex.place_order(CAROL, order(BTC, "s", "100600", "0.1"))  # mid 100550
    ex.tick()
    m = ex.market(BTC)
    assert m.mark == D(100550)
    assert ex.ticker("BTC-PERP")[0]["funding_rate"] == "0.0005"  # premium/8 + interest, capped
    fees_before = ex.fee_account.balances[USDC]
    a0, b0 = usdc(ex, ALICE), usdc(ex, BOB)
    clock.advance(3_600_000)
    ex.tick()
    assert usdc(ex, ALICE) - a0 == D("-50.275") and usdc(ex, BOB) - b0 == D("50.275")
    assert ex.fee_account.balances[USDC] == fees_before  # longs and shorts net to zero
    (rec,) = ex.funding_history(ALICE)["data"]
    assert (rec["funding_payment"], rec["funding_rate"], rec["mark_price"], rec["size"]) == (
        "-50.275",
        "0.0005",
        "100550",
        "1",
    )
    assert rec["timestamp"] == "2026-01-01T01:00:00.000Z"
    assert_conserved(ex)


def test_stop_loss_trigger_fires_on_mark_and_executes_as_market() -> None:
    ex, _clock = make(None, ALICE, BOB, CAROL)
    seen: list[str] = []
    ex.add_listener(lambda ch, key, p: seen.append(p["state"]) if ch == "orders" and key == ALICE.lower() else None)
    trade(ex, ALICE, BOB, BTC, "100000", "1")
    oid = ex.place_order(
        ALICE, order(BTC, "s", "0", "1", trigger_px="95000", tpsl="sl", is_market=True, reduce_only=True, tif="IOC")
    ).data["status"]["oid"]
    (o,) = ex.open_orders(ALICE)["data"]
    assert (o["order_id"], o["trigger_px"], o["state"], o["tpsl"]) == (oid, "95000", "open", "sl")
    ex.place_order(CAROL, order(BTC, "b", "94000", "1"))
    ex.set_index_price(BTC, "96000")
    ex.tick()
    assert position(ex, ALICE, BTC) == 1
    ex.set_index_price(BTC, "94500")  # mark = median(94500, mid = 94000, last 100000) = 94500 <= 95000
    ex.tick()
    assert position(ex, ALICE, BTC) == 0
    assert ex.order_history(ALICE)["data"][0]["state"] == "filled"
    assert seen[-2:] == ["triggered", "filled"]
    assert ex.open_orders(ALICE)["total_count"] == 0


def test_take_profit_limit_trigger_rests_after_firing() -> None:
    ex, _ = make(None, ALICE, BOB)
    trade(ex, ALICE, BOB, BTC, "100000", "1")
    ex.place_order(ALICE, order(BTC, "s", "105000", "1", trigger_px="104000", tpsl="tp", reduce_only=True))
    ex.set_index_price(BTC, "104000")
    ex.tick()
    (o,) = ex.open_orders(ALICE)["data"]
    assert (o["state"], o["limit_price"]) == ("triggered", "105000")
    assert ex.market(BTC).book.best_ask() == D(105000)


def test_trigger_without_position_is_cancelled_when_it_fires() -> None:
    ex, _ = make(None, ALICE)
    ex.place_order(ALICE, order(BTC, "s", "0", "1", trigger_px="99000", is_market=True, reduce_only=True))
    ex.set_index_price(BTC, "98000")
    ex.tick()
    assert ex.order_history(ALICE)["data"][0]["state"] == "cancelled"


def test_account_history_points_every_minute() -> None:
    ex, clock = make(None, ALICE, BOB)
    trade(ex, ALICE, BOB, BTC, "100000", "1")
    clock.advance(60_000)
    ex.tick()
    ex.set_index_price(BTC, "99000")
    clock.advance(60_000)
    ex.tick()
    points = ex.account_history(ALICE)
    assert [p["created_at"] for p in points] == ["2026-01-01T00:02:00.000Z", "2026-01-01T00:01:00.000Z"]
    assert points[0]["total_pnl"] == "-1050" and points[1]["total_pnl"] == "-50"
    assert points[0]["total_volume"] == 100000
    assert ex.account_summary(ALICE)["max_drawdown"] == D(1050)  # from the starting peak of 0


def test_open_interest_counts_longs() -> None:
    ex, _ = make(None, ALICE, BOB, CAROL)
    trade(ex, ALICE, BOB, BTC, "100000", "2")
    trade(ex, BOB, CAROL, BTC, "100000", "0.5")
    assert ex.ticker("BTC-PERP")[0]["open_interest"] == "2"
    assert Decimal(ex.ticker("BTC-PERP")[0]["volume_24h"]) == D(250000)
