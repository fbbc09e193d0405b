"""The risk of an order before it is sent (``tui.trading.risk_preview``): every figure worked out by hand in the
test's docstring, cross and isolated, long and short, adding, reducing and flipping; unknown inputs give None."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from msgspec.structs import replace

from tui.api.models import MarginTier
from tui.trading import OrderPlan
from tui.trading.risk_preview import (
    NO_PRICE_REACHES,
    RiskInputs,
    is_maker,
    preview,
    preview_plan,
    risk_lines,
)

from .test_orders import BTC

ONE_TIER = (MarginTier(notional_usd_threshold=D(0), max_leverage=50, mmr=D("0.01"), mmd=D(0)),)
TWO_TIERS = (*ONE_TIER, MarginTier(notional_usd_threshold=D(1_000_000), max_leverage=20, mmr=D("0.025"), mmd=D(15_000)))
RATES = {"maker_rate": D("0.0002"), "taker_rate": D("0.0005")}
CROSS_FLAT = RiskInputs(
    leverage=D(10),
    isolated=False,
    margin_balance=D(10_000),
    other_mm=D(0),
    available=D(10_000),
    tiers=ONE_TIER,
    **RATES,
)


def close_to(value: D | None, expected: str) -> bool:
    return value is not None and abs(value - D(expected)) < D("0.0001")


def test_cross_long_from_flat() -> None:
    """Cross, margin balance 10,000, nothing held, 10x; buy 0.5 at 100,000 as taker (0.05%).
    fee = 0.5 * 100,000 * 0.0005 = 25; margin = 50,000 / 10 = 5,000; avail after = 10,000 - 5,000 - 25 = 4,975.
    K = 10,000 - 0.5 * 100,000 - 25 = -40,025; p = 40,025 / (0.5 - 0.005) = 80,858.5858...
    Check: equity at p = 9,975 + 0.5 * (80,858.59 - 100,000) = 404.29 = MM 0.5 * 80,858.59 * 1%."""
    p = preview(CROSS_FLAT, D("0.5"), D(100_000), maker=False)
    assert (p.fee, p.margin, p.available_after, p.size_after) == (D(25), D(5_000), D(4_975), D("0.5"))
    assert close_to(p.liquidation, "80858.5859")


def test_cross_short_from_flat_as_maker() -> None:
    """The same account sells 0.5 at 100,000 as maker (0.02%): fee 10, margin 5,000, avail after 4,990.
    K = 10,000 + 50,000 - 10 = 59,990; p = -59,990 / (-0.5 - 0.005) = 118,792.0792...
    Check: equity 9,990 + 0.5 * (100,000 - 118,792.08) = 593.96 = MM 0.5 * 118,792.08 * 1%."""
    p = preview(CROSS_FLAT, D("-0.5"), D(100_000), maker=True)
    assert (p.fee, p.margin, p.available_after) == (D(10), D(5_000), D(4_990))
    assert close_to(p.liquidation, "118792.0792")


def test_cross_adding_to_a_long_with_other_positions() -> None:
    """Long 0.5 at 100,000, mark 90,000 (uPnL -5,000), margin balance 5,000, others' MM 100, available 500, 10x;
    buy 0.5 more at 90,000 as taker: fee 22.5, margin (1 - 0.5) * 90,000 / 10 = 4,500, avail after -4,022.5.
    K = 5,000 + 5,000 - 50,000 - 45,000 - 22.5 = -85,022.5; p = (100 + 85,022.5) / 0.99 = 85,982.3232...
    Check: 1 held at entry 95,000, collateral 9,977.5: 9,977.5 + (85,982.32 - 95,000) = 959.82 = 100 + 859.82."""
    inputs = replace(
        CROSS_FLAT, position=D("0.5"), entry=D(100_000), margin_balance=D(5_000), position_upnl=D(-5_000),
        other_mm=D(100), available=D(500),
    )  # fmt: skip
    p = preview(inputs, D("0.5"), D(90_000), maker=False)
    assert (p.fee, p.margin, p.available_after) == (D("22.5"), D(4_500), D("-4022.5"))
    assert close_to(p.liquidation, "85982.3232")


def test_cross_reducing_a_long_frees_margin() -> None:
    """Long 1 at 100,000 (mark 100,000), margin balance 10,000, available 0, 10x; sell 0.4 at 110,000 as taker.
    fee 0.4 * 110,000 * 0.0005 = 22; margin (0.6 - 1) * 110,000 / 10 = -4,400: takes 0, avail after 4,378.
    K = 10,000 - 100,000 + 44,000 - 22 = -46,022; p = 46,022 / (0.6 * 0.99) = 77,478.1145...
    Check: collateral 10,000 + 4,000 realised - 22 = 13,978; 13,978 + 0.6 (p - 100,000) = 0.006 p."""
    inputs = replace(CROSS_FLAT, position=D(1), entry=D(100_000), position_upnl=D(0), available=D(0))
    p = preview(inputs, D("-0.4"), D(110_000), maker=False)
    assert (p.fee, p.margin, p.available_after, p.size_after) == (D(22), D(0), D(4_378), D("0.6"))
    assert close_to(p.liquidation, "77478.1145")


def test_cross_flip_from_long_to_short() -> None:
    """Long 1 at 100,000, margin balance 10,000; sell 3 at 100,000 as taker: fee 150, short 2 after.
    margin (2 - 1) * 100,000 / 10 = 10,000. K = 10,000 - 100,000 + 300,000 - 150 = 209,850;
    p = -209,850 / (-2 - 0.02) = 103,886.1386... Check: 9,850 + 2 (100,000 - p) = 0.02 p."""
    inputs = replace(CROSS_FLAT, position=D(1), entry=D(100_000), position_upnl=D(0))
    p = preview(inputs, D(-3), D(100_000), maker=False)
    assert (p.fee, p.margin, p.size_after) == (D(150), D(10_000), D(-2))
    assert close_to(p.liquidation, "103886.1386")


def test_cross_closing_all_leaves_no_liquidation_price() -> None:
    """Long 1 sold whole: flat after, so no liquidation price, with the reason."""
    inputs = replace(CROSS_FLAT, position=D(1), entry=D(100_000), position_upnl=D(0))
    p = preview(inputs, D(-1), D(100_000), maker=False)
    assert (p.liquidation, p.liq_reason, p.size_after) == (None, "flat after this order", D(0))


def test_cross_long_the_equity_covers() -> None:
    """Margin balance 100,000, buy 0.5 at 100,000: K = 100,000 - 50,000 - 25 = 49,975 > 0, so p < 0: none."""
    p = preview(replace(CROSS_FLAT, margin_balance=D(100_000)), D("0.5"), D(100_000), maker=False)
    assert (p.liquidation, p.liq_reason) == (None, NO_PRICE_REACHES)


def test_cross_second_margin_tier() -> None:
    """Buy 20 at 100,000 (2,000,000 notional: the 2.5% tier, mmd 15,000) on a margin balance of 200,000, fee not
    known (left out of the price, shown unknown). p = (-15,000 + 1,800,000) / (20 - 0.5) = 91,538.4615...
    Check: 200,000 + 20 (p - 100,000) = 0.5 p - 15,000."""
    inputs = replace(CROSS_FLAT, margin_balance=D(200_000), tiers=TWO_TIERS, taker_rate=None)
    p = preview(inputs, D(20), D(100_000), maker=False)
    assert close_to(p.liquidation, "91538.4615") and p.fee is None and p.available_after is None


ISOLATED_FLAT = RiskInputs(leverage=D(10), isolated=True, available=D(50_000), tiers=ONE_TIER, **RATES)


def test_isolated_long_from_flat() -> None:
    """Isolated 10x, buy 1 at 100,000 as taker: its own margin 10,000 (the margin taken), fee 50,
    avail after 50,000 - 10,000 - 50 = 39,950. p = (100,000 - 10,000) / 0.99 = 90,909.0909...
    Check: 10,000 + (p - 100,000) = 0.01 p."""
    p = preview(ISOLATED_FLAT, D(1), D(100_000), maker=False)
    assert (p.fee, p.margin, p.available_after) == (D(50), D(10_000), D(39_950))
    assert close_to(p.liquidation, "90909.0909")


def test_isolated_reducing_a_short() -> None:
    """Short 2 at 100,000 with 20,000 of its own margin; buy 1 at 90,000 as maker (fee 18). Half the margin
    (10,000) is released and 10,000 realised: margin taken 0, avail after 1,000 + 10,000 + 10,000 - 18 = 20,982.
    Short 1 at 100,000 on 10,000 is left: p = 110,000 / 1.01 = 108,910.8911...
    Check: 10,000 + (100,000 - p) = 0.01 p."""
    inputs = replace(ISOLATED_FLAT, position=D(-2), entry=D(100_000), iso_margin=D(20_000), available=D(1_000))
    p = preview(inputs, D(1), D(90_000), maker=True)
    assert (p.fee, p.margin, p.available_after, p.size_after) == (D(18), D(0), D(20_982), D(-1))
    assert close_to(p.liquidation, "108910.8911")


def test_isolated_flip() -> None:
    """Long 1 at 100,000 on 10,000; sell 3 at 100,000: the long closes (its 10,000 released, no PnL), a short of 2
    opens on 2 * 100,000 / 10 = 20,000: margin taken 10,000. p = 220,000 / 2.02 = 108,910.8911...
    Check: 20,000 + 2 (100,000 - p) = 0.02 p."""
    inputs = replace(ISOLATED_FLAT, position=D(1), entry=D(100_000), iso_margin=D(10_000))
    p = preview(inputs, D(-3), D(100_000), maker=False)
    assert (p.margin, p.size_after) == (D(10_000), D(-2))
    assert close_to(p.liquidation, "108910.8911")


@pytest.mark.parametrize(
    ("change", "unknown"),
    [
        ({"leverage": None}, {"margin", "available_after"}),
        ({"isolated": None}, {"margin", "available_after", "liquidation"}),
        ({"tiers": ()}, {"liquidation"}),
        ({"taker_rate": None}, {"fee", "available_after"}),
        ({"margin_balance": None}, {"liquidation"}),
        ({"available": None}, {"available_after"}),
        ({"position": D(1), "entry": None, "position_upnl": D(0)}, {"liquidation"}),
    ],
)
def test_unknown_inputs_give_none_never_zero(change: dict[str, object], unknown: set[str]) -> None:
    """Each input left unknown in turn: exactly the figures that need it are None (shown ``—``), the rest known."""
    p = preview(replace(CROSS_FLAT, **change), D("0.5"), D(100_000), maker=False)
    figures = {"margin": p.margin, "available_after": p.available_after, "liquidation": p.liquidation, "fee": p.fee}
    assert {name for name, value in figures.items() if value is None} == unknown


def plan(**kw: object) -> OrderPlan:
    base: dict[str, object] = dict(
        instrument_id=1, symbol="BTC-PERP", side="buy", kind="limit", price=D(99_000), size=D("0.5"),
        reference_price=D(99_000),
    )  # fmt: skip
    return OrderPlan(**{**base, **kw})  # type: ignore[arg-type]


def test_maker_or_taker() -> None:
    """A resting limit pays maker; through the book, market, IOC and triggered pay taker; post-only is maker."""
    assert is_maker(plan(), BTC)
    assert not is_maker(plan(price=D(100_100)), BTC)  # above the best ask 100,039.3
    assert not is_maker(plan(kind="market", market=True), BTC)
    assert not is_maker(plan(tif="IOC"), BTC)
    assert not is_maker(plan(kind="stop", trigger=D(101_000)), BTC)
    assert is_maker(plan(post_only=True), BTC)
    assert not is_maker(plan(side="sell", price=D(99_000)), BTC)  # below the best bid 99,999.2


def test_the_lines_a_form_shows() -> None:
    """The form's three lines: margin and fee, the liquidation (on the tick) and available balance after, the
    leverage in force and the mode (with no way to switch it); unknown figures read ``—``."""
    p = preview_plan(plan(), BTC, CROSS_FLAT)
    # maker 0.02% of 49,500 = 9.90; margin 4,950; K = 10,000 - 49,500 - 9.9 = -39,509.9; p = 39,509.9/0.495
    lines = risk_lines(p, D("0.1"), leverage_key="ctrl+l")
    assert lines == [
        "margin 4,950.00 · fee 9.90 (maker)",
        "liq after ≈ 79,818.0 · avail after 5,040.10",
        "leverage 10x (ctrl+l: change) · cross (switch: not in the interface)",
    ]
    unknown = risk_lines(preview_plan(plan(), BTC, RiskInputs()), D("0.1"))
    assert unknown == ["margin — · fee — (maker)", "liq after — · avail after —", "leverage — · margin mode —"]
