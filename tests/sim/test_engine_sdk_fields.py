"""The fields the exchange's SDKs name beyond the interface tables, worked by hand once: a position's margin,
the account's perp volume, the notional a withdrawal allows, and a vault's summary."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tui.sim.engine import Rejected

from .engine_support import ALICE, BOB, BTC, BTC_SPOT, HYPE, USDC, USDT, D, make, order

DAY_MS = 86_400_000


def trade(ex, buyer, seller, inst, price, size):  # type: ignore[no-untyped-def]
    """``seller`` rests, ``buyer`` takes."""
    ex.place_order(seller, order(inst, "s", price, size))
    ex.place_order(buyer, order(inst, "b", price, size))


def test_position_margin_is_the_cross_im_or_the_isolated_margin() -> None:
    """A cross long of 1 BTC marked at 90000 at 10x holds 9000; an isolated HYPE long of 100 at 40 holds the
    400 moved into it, 200 after half is closed; each equals the summary's ``im`` for the position."""
    ex, _ = make(None, ALICE, BOB)
    trade(ex, ALICE, BOB, BTC, "100000", "1")
    ex.set_index_price(BTC, "90000")
    trade(ex, ALICE, BOB, HYPE, "40", "100")
    margins = {p["instrument"]: p["margin"] for p in ex.positions(ALICE)}
    assert margins == {"BTC-PERP": "9000", "HYPE-PERP": "400"}
    trade(ex, BOB, ALICE, HYPE, "41", "50")
    margins = {p["instrument"]: p["margin"] for p in ex.positions(ALICE)}
    assert margins == {"BTC-PERP": "9000", "HYPE-PERP": "200"}
    legs = ex.account_summary(ALICE)["perp_positions"]
    assert {name: str(leg["im"]) for name, leg in legs.items()} == margins


def test_perp_volume_counts_perp_notional_only() -> None:
    """1 BTC-PERP at 100000 and 0.01 BTC spot at 100000: perp_volume 100000, spot_volume 1000."""
    ex, _ = make(None, ALICE, BOB)
    trade(ex, ALICE, BOB, BTC, "100000", "1")
    trade(ex, ALICE, BOB, BTC_SPOT, "100000", "0.01")
    s = ex.account_summary(ALICE)
    assert (s["perp_volume"], s["spot_volume"]) == (D(100000), D(1000))


def test_withdrawable_notional_is_what_successive_withdrawals_take_out() -> None:
    """USDC 99950 and USDT 1000 (weight 0.98) behind a 1 BTC long marked at 90000: free margin is
    89950 + 980 - 9000 = 81930. USDT first (1000 out for 980 of margin), then USDC up to the 80950 left:
    81950 in all; the two withdrawals (each of it less the fee of 1 the withdrawal also takes) go through, and
    a further cent of USDC is refused."""
    ex, _ = make(None, ALICE, BOB)
    ex.deposit(ALICE, USDT, "1000")
    trade(ex, ALICE, BOB, BTC, "100000", "1")
    ex.set_index_price(BTC, "90000")
    s = ex.account_summary(ALICE)
    assert s["available_balance"] == D(81930)
    assert s["withdrawable_balance_notional"] == D(81950)
    ex.withdraw_derivative(ALICE, USDT, "999", 11155111)
    ex.withdraw_derivative(ALICE, USDC, "80949", 11155111)
    with pytest.raises(Rejected):
        ex.withdraw_derivative(ALICE, USDC, "0.01", 11155111)
    assert ex.account_summary(ALICE)["withdrawable_balance_notional"] == 0


def test_vault_summary_from_the_vaults_daily_history() -> None:
    """The XLV vault (1,000,000 shares, a day's lock-in) buys 1 BTC at 100000 on day one; BTC is marked at 101000
    on day two. Its summary lists each day's last account value and the day's pnl over the day before's value;
    an ordinary account has none."""
    ex, clock = make(None, ALICE, BOB)
    xlv = ex.vault_list()["vaults"][0]["vault_address"]
    assert ex.account_summary(ALICE)["vault_summary"] is None
    clock.advance(DAY_MS)
    ex.tick()
    trade(ex, xlv, BOB, BTC, "100000", "1")
    clock.advance(DAY_MS)
    ex.set_index_price(BTC, "101000")
    ex.tick()
    (day2, day1) = ex.account_history(xlv)  # newest first
    v1, v2 = Decimal(day1["account_value"]), Decimal(day2["account_value"])
    pnl1, pnl2 = Decimal(day1["total_pnl"]), Decimal(day2["total_pnl"])
    assert (v1, pnl1) == (D(1_000_000), D(0))
    assert pnl2 > 900  # 1000 of price, less the taker fee and a day's funding
    change = (pnl2 - pnl1) / v1
    summary = ex.account_summary(xlv)["vault_summary"]
    assert summary["shares"] == D(1_000_000) and summary["lock_in_period"] == DAY_MS
    assert summary["equity_daily"] == [v1, v2]
    assert summary["daily_nav_changes"] == [change.quantize(D("1e-8")).normalize()]
    assert summary["apr"] == (change * 365).quantize(D("1e-8")).normalize()
