"""The outcome before the exit: the PnL of a TP, a stop, a close (fees in; a market exit at its slippage bound too) and
the reward to risk, checked by hand on a long and a short of 0.01 BTC at 100,000 (maker -0.01%, taker 0.05%, a 1%
bound), and as properties: the PnL's sign follows the price against the entry, R:R is reward over risk, a market exit's
worst fill is never better than its level."""

from __future__ import annotations

from decimal import Decimal

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from tui.trading import OrderContext, bracket_plans, close_part_plan, position_exit_plans
from tui.trading.exit_outcome import exit_lines, exit_outcome, exit_pnl, realized_line, reward_to_risk
from tui.trading.risk_preview import RiskInputs
from tui.trading.tool_forms import oco_stop, oco_take_profit

D = Decimal
TICK = D("0.1")
LONG = OrderContext(
    instrument_id=1, symbol="BTC-PERP", kind="perp", tick=TICK, lot=D("0.0001"), min_notional=D(10),
    max_leverage=D(50), best_bid=D(99_990), best_ask=D(100_000), mark=D(99_995), available=D(100_000),
    position=D("0.01"),
)  # fmt: skip
SHORT = msgspec.structs.replace(LONG, position=D("-0.01"))
FLAT = msgspec.structs.replace(LONG, position=D(0))
RATES = RiskInputs(position=D("0.01"), entry=D(100_000), maker_rate=D("-0.0001"), taker_rate=D("0.0005"))
SHORT_RATES = msgspec.structs.replace(RATES, position=D("-0.01"))
NOT_READ = msgspec.structs.replace(RATES, maker_rate=None, taker_rate=None)


def test_a_longs_tp_and_sl_by_hand() -> None:
    """Long 0.01 at 100,000, trigger market exits (taker 0.05%), the entry's fee already paid:
    TP 101,000: gross +10.00, fee 0.01 * 101,000 * 0.0005 = 0.505 -> +9.495; its bound 1% under, 99,990.0:
    gross -0.10, fee 0.49995 -> -0.59995. SL 99,000: -10.00 - 0.495 = -10.495; bound 98,010.0: -19.90 - 0.49005.
    R:R = 9.495 / 10.495 = 0.90."""
    [tp, sl] = position_exit_plans(LONG, "101000", "99000")[0] or []
    up, down = exit_outcome(tp, D(100_000), LONG, RATES), exit_outcome(sl, D(100_000), LONG, RATES)
    assert (up.level, up.pnl, up.worst, up.worst_pnl) == (D(101_000), D("9.495"), D("99990.0"), D("-0.59995"))
    assert (down.level, down.pnl, down.worst, down.worst_pnl) == (D(99_000), D("-10.495"), D("98010.0"), D("-20.39005"))
    assert exit_lines([("TP", up), ("SL", down)], TICK, rr=True) == [
        "TP 101,000.0: +9.50 · -0.60 at worst 99,990.0",
        "SL 99,000.0: -10.50 · -20.39 at worst 98,010.0",
        "R:R 0.9 (fees in)",
    ]


def test_a_shorts_exits_by_hand() -> None:
    """Short 0.01 at 100,000: TP 98,000 (+20.00 - 0.49 = +19.51), SL 101,000 (-10.00 - 0.505 = -10.505); the buys'
    bounds are 1% above the triggers (98,980.0 and 102,010.0). R:R = 19.51 / 10.505 = 1.857."""
    [tp, sl] = position_exit_plans(SHORT, "98000", "101000")[0] or []
    up, down = exit_outcome(tp, D(100_000), SHORT, SHORT_RATES), exit_outcome(sl, D(100_000), SHORT, SHORT_RATES)
    assert (up.pnl, up.worst, down.pnl, down.worst) == (D("19.51"), D("98980.0"), D("-10.505"), D("102010.0"))
    assert up.worst_pnl == D("10.20") - D("0.01") * D("98980") * D("0.0005")  # +10.20 gross at the bound
    assert exit_lines([("TP", up), ("SL", down)], TICK, rr=True)[2].startswith("R:R 1.9 ")


def test_an_oco_take_profit_rests_at_the_maker_rate() -> None:
    """The OCO's TP is a limit that rests: long 0.01 at 100,000, TP 101,000: gross +10.00, maker rebate 0.101 ->
    +10.101, no worse fill than its price; the stop at 99,000 is a market stop: -10.495, worst at 98,010.0."""
    values = {"size": "", "take_profit": "101000", "stop": "99000"}
    tp = exit_outcome(oco_take_profit(values, LONG), D(100_000), LONG, RATES)
    stop = exit_outcome(oco_stop(values, LONG), D(100_000), LONG, RATES)
    assert (tp.pnl, tp.worst, stop.pnl, stop.worst) == (D("10.101"), None, D("-10.495"), D("98010.0"))
    assert exit_lines([("TP", tp), ("stop", stop)], TICK, rr=True)[0] == "TP 101,000.0: +10.10"


def test_a_close_realizes_at_its_limit_or_at_the_touch_and_the_bound() -> None:
    """Close 0.01 of the long at 100,500 (a resting sell: maker): +5.00 + 0.1005 rebate = +5.1005. At market: at the
    best bid 99,990 -0.10 - 0.49995; at its bound 98,990.1 (1% under, rounded up to the tick) -10.099 - 0.4949505."""
    limit = close_part_plan(LONG, "0.01", "100500").plan
    market = close_part_plan(LONG, "100%", "").plan
    assert limit is not None and market is not None
    assert realized_line(exit_outcome(limit, D(100_000), LONG, RATES), TICK) == "realized +5.10 at 100,500.0"
    at_market = exit_outcome(market, D(100_000), LONG, RATES)
    assert (at_market.pnl, at_market.worst, at_market.worst_pnl) == (D("-0.59995"), D("98990.1"), D("-10.5939505"))
    assert realized_line(at_market, TICK) == "realized -0.60 at 99,990.0 · -10.59 at worst 98,990.1"


def test_a_bracket_counts_its_entry_fee() -> None:
    """Buy 0.01 at 99,000 (a resting limit: maker rebate 0.099), TP 101,000 and SL 98,000 (taker): the TP makes
    +20.00 - 0.505 + 0.099 = +19.594, the SL -10.00 - 0.49 + 0.099 = -10.391; R:R 19.594 / 10.391 = 1.886."""
    plans = bracket_plans(FLAT, "buy", "99000", "0.01", "101000", "98000")[0]
    assert plans is not None
    entry, tp, sl = plans
    paid_in = D("0.01") * D(99_000) * D("-0.0001")
    up, down = (exit_outcome(p, entry.reference_price, FLAT, RATES, paid_in) for p in (tp, sl))
    assert (up.pnl, down.pnl) == (D("19.594"), D("-10.391"))
    assert exit_lines([("TP", up), ("SL", down)], TICK, rr=True)[2].startswith("R:R 1.9 ")


def test_what_is_not_known_shows_a_dash() -> None:
    """No fee rates read, no entry, no price typed: the figure is —, never 0."""
    [tp] = position_exit_plans(LONG, "101000", "")[0] or []
    assert exit_outcome(tp, D(100_000), LONG, NOT_READ).pnl is None
    assert exit_outcome(tp, None, LONG, RATES).pnl is None
    assert exit_outcome(tp, D(100_000), LONG, None).worst_pnl is None
    unread = exit_outcome(tp, D(100_000), LONG, NOT_READ)
    assert exit_lines([("TP", unread), ("SL", None)], TICK, rr=True) == [
        "TP 101,000.0: — · — at worst 99,990.0",
        "SL —",
        "R:R — (fees in)",
    ]
    assert realized_line(None, TICK) == "realized —"


PRICES = st.decimals(min_value=D(1), max_value=D(1_000_000), places=1, allow_nan=False, allow_infinity=False)
SIZES = st.decimals(min_value=D("0.0001"), max_value=D(100), places=4, allow_nan=False, allow_infinity=False)
RATES_ST = st.decimals(min_value=D("-0.0002"), max_value=D("0.001"), places=5, allow_nan=False, allow_infinity=False)


@given(st.booleans(), SIZES, PRICES, PRICES)
def test_the_pnl_sign_follows_the_price_against_the_entry(
    long: bool, size: Decimal, entry: Decimal, price: Decimal
) -> None:
    """Before fees a long makes money above its entry and a short below; a paid fee only lowers it."""
    gross = exit_pnl(long, size, entry, price, D(0))
    assert (gross > 0) == ((price > entry) if long else (price < entry)) and (gross == 0) == (price == entry)
    assert exit_pnl(long, size, entry, price, size * price * D("0.0005")) < gross


@given(
    st.decimals(min_value=D(-1000), max_value=D(1000), places=2),
    st.decimals(min_value=D(-1000), max_value=D(1000), places=2),
)
def test_reward_to_risk_is_reward_over_risk(reward: Decimal, risk: Decimal) -> None:
    """R:R is the TP's PnL over the stop's loss; there is none when the stop does not lose."""
    ratio = reward_to_risk(reward, risk)
    if risk >= 0:
        assert ratio is None
    else:
        assert ratio is not None and abs(ratio * -risk - reward) < D("1e-20")


@given(st.booleans(), st.integers(min_value=1, max_value=5_000_000), RATES_ST, st.sampled_from(["0.1", "1", "5"]))
def test_a_market_exits_worst_is_never_better_than_its_level(long: bool, ticks: int, rate: Decimal, slip: str) -> None:
    """For any trigger on the tick and either side: the bound a stop fills within is not better than the trigger (a
    sell's at or under it, a buy's at or over), and neither is its PnL there."""
    ctx = msgspec.structs.replace(LONG if long else SHORT, mark=None, slippage_pct=D(slip))
    inputs = msgspec.structs.replace(RATES, taker_rate=rate)
    trigger = ticks * TICK
    plans = position_exit_plans(ctx, "", format(trigger, "f"))[0]
    if not plans:  # a stop on the wrong side of the touch (the check without a mark): nothing to price
        return
    outcome = exit_outcome(plans[0], D(100_000), ctx, inputs)
    assert outcome.worst is not None and outcome.pnl is not None and outcome.worst_pnl is not None
    assert outcome.worst <= outcome.level if long else outcome.worst >= outcome.level
    assert outcome.worst_pnl <= outcome.pnl
