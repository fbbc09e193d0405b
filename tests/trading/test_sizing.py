"""The order form's sizes: presets of the position or of the buying power, and the size from risk; every number
checked by hand in the docstrings."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.trading import OrderContext
from tui.trading.grammar import FieldError
from tui.trading.sizing import loss_at, preset_size, risk_size


def ctx(**kw: object) -> OrderContext:
    base: dict[str, object] = dict(
        instrument_id=1, symbol="BTC-PERP", kind="perp", tick=D("0.5"), lot=D("0.001"), min_notional=D(10),
        max_leverage=D(20), leverage=D(10), best_bid=D(99_999), best_ask=D(100_000), mark=D(100_000),
        available=D(1_000),
    )  # fmt: skip
    return OrderContext(**(base | kw))  # type: ignore[arg-type]


def test_presets_of_the_position_when_the_order_reduces_it() -> None:
    """Long 0.37: a sell's 25% is 0.0925 rounded down to 0.092, 50% 0.185, 75% 0.2775 -> 0.277, 100% exactly
    0.37; a buy while short 0.37 is of the position too."""
    long = ctx(position=D("0.37"))
    assert [preset_size(p, "sell", long, None).size for p in (25, 50, 75, 100)] == [
        D("0.092"), D("0.185"), D("0.277"), D("0.37"),
    ]  # fmt: skip
    assert preset_size(50, "sell", long, None).words == "50% of the long 0.37"
    assert preset_size(100, "buy", ctx(position=D("-0.37")), None).size == D("0.37")


def test_presets_of_buying_power_otherwise() -> None:
    """Available 1,000 at 10x is 10,000 of buying power. No fee: 100% at 100,000 is 0.1, 25% 0.025. With a taker
    fee of 0.05%: 10,000 / (100,000 x (1 + 10 x 0.0005)) = 0.0995024... -> 0.099, whose margin 990 plus fee
    4.95 is 994.95, within 1,000. A buy while long adds: of buying power, not of the position."""
    c = ctx()
    assert preset_size(100, "buy", c, None).size == D("0.1")
    assert preset_size(25, "buy", c, D(100_000)).size == D("0.025")
    with_fee = preset_size(100, "buy", c, None, D("0.0005"))
    assert with_fee.size == D("0.099")
    assert with_fee.size * D(100_000) / 10 + with_fee.size * D(100_000) * D("0.0005") <= 1000
    assert with_fee.words == "100% of buying power 10,000.00 USDC (10x)"
    assert preset_size(50, "buy", ctx(position=D(1)), D(50_000)).size == D("0.1")  # 5,000 / 50,000


def test_presets_refuse_what_cannot_be_sized() -> None:
    """Nothing available is less than one lot; an empty book has no price; 30% is not a preset."""
    with pytest.raises(FieldError, match="less than one lot"):
        preset_size(25, "buy", ctx(available=D(0)), None)
    with pytest.raises(FieldError, match="book is empty"):
        preset_size(25, "buy", ctx(best_ask=None, best_bid=None, mark=None), None)
    with pytest.raises(FieldError, match="preset is one of"):
        preset_size(30, "buy", ctx(), None)


def test_spot_sell_presets_are_of_the_base_held() -> None:
    """Spot, 2.5 ETH held: a sell's 50% is 1.25."""
    c = ctx(symbol="ETH/USDC", kind="spot", base_available=D("2.5"), lot=D("0.01"))
    assert preset_size(50, "sell", c, None).size == D("1.25")


def test_size_from_risk_by_hand() -> None:
    """Equity 10,000, risk 1% = 100; buy at 100,000 with the stop at 99,000, taker fee 0.05%: one BTC loses
    1,000 + 0.0005 x 199,000 = 1,099.5, so the size is 100 / 1,099.5 = 0.09095... -> 0.09, which loses
    0.09 x 1,099.5 = 98.955 at the stop. The stop-market's bound is 1% below: 98,010 (a sell's bound rounds up to
    the tick), where 0.09 loses 0.09 x (1,990 + 0.0005 x 198,010) = 0.09 x 2,089.005 = 188.01045."""
    r = risk_size("buy", D(10_000), "1", D(100_000), "99000", ctx(), D("0.0005"))
    assert (r.size, r.budget, r.loss) == (D("0.09"), D(100), D("98.955"))
    assert (r.worst_price, r.worst_loss) == (D(98_010), D("188.01045"))


def test_size_from_risk_for_a_sell_and_without_fees() -> None:
    """Sell at 50 with the stop at 52.5, equity 2,000, risk 2.5% = 50, no fee known: 50 / 2.5 = 20 exactly."""
    c = ctx(tick=D("0.5"), lot=D("0.1"))
    r = risk_size("sell", D(2_000), "2.5", D(50), "52.5", c, None)
    assert (r.size, r.loss) == (D(20), D(50))


@pytest.mark.parametrize(
    ("side", "percent", "stop", "field", "said"),
    [
        ("buy", "1", "100000", "stop", "a buy's stop goes below its entry 100,000"),
        ("sell", "1", "99000", "stop", "a sell's stop goes above its entry 100,000"),
        ("buy", "101", "99000", "risk", "at most 100"),
        ("buy", "1", "99000.3", "stop", "not a multiple of the tick size 0.5"),
        ("buy", "", "99000", "risk", "risk (%) is required"),
        ("buy", "1", "abc", "stop", "stop price"),
        ("buy", "0.000001", "99000", "risk", "less than one lot's loss"),
    ],
)
def test_size_from_risk_refusals(side: str, percent: str, stop: str, field: str, said: str) -> None:
    """Each wrong value is refused under its field, in words."""
    with pytest.raises(FieldError) as caught:
        risk_size(side, D(10_000), percent, D(100_000), stop, ctx(), D("0.0005"))  # type: ignore[arg-type]
    assert caught.value.field == field and said in caught.value.message


@given(
    st.integers(1, 10_000),
    st.integers(1, 500),
    st.integers(1, 1000),
    st.integers(0, 10),
    st.sampled_from(["buy", "sell"]),
)
def test_risk_never_exceeds_the_budget(equity: int, percent_tenths: int, gap: int, fee_bp: int, side: str) -> None:
    """For any equity, risk, stop distance and fee: the loss at the stop is within the budget, and one more lot
    would pass it."""
    c = ctx(tick=D(1), lot=D("0.001"))
    entry = D(2_000)
    stop = entry - gap if side == "buy" else entry + gap
    fee = D(fee_bp) / 10_000
    try:
        r = risk_size(side, D(equity), str(D(percent_tenths) / 10), entry, str(stop), c, fee)  # type: ignore[arg-type]
    except FieldError as exc:
        assert "less than one lot" in exc.message
        return
    assert 0 < r.loss <= r.budget
    assert loss_at(side, r.size + c.lot, entry, stop, fee) > r.budget  # type: ignore[arg-type]
