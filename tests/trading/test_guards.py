"""The guards' decisions without Textual: the maximum notional, the daily loss limit and what reduces risk, a
reversal, the day's PnL across 00:00 UTC, the liquidation watch; and the latency readout's arithmetic."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from tui.trading import OrderPlan
from tui.trading.guards import (
    DAY_MS,
    DayPnl,
    Guards,
    LiquidationWatch,
    day_baseline,
    liquidation_distance_pct,
    reduces_risk,
    refusal,
    reversal,
)
from tui.trading.latency import Latency

D = Decimal


def plan(side: str, size: str, price: str = "100", *, reduce_only: bool = False, symbol: str = "BTC-PERP") -> OrderPlan:
    return OrderPlan(1, symbol, side, "limit", D(price), D(size), D(price), reduce_only=reduce_only)  # type: ignore[arg-type]


def test_the_maximum_notional_refuses_naming_the_limit() -> None:
    """1,000 USDC over a 999 cap is refused, with the limit and the order in the words; 999 exactly goes."""
    guards = Guards(max_order_notional=D(999))
    said = refusal([plan("buy", "10")], guards, {}, None)
    assert said is not None and "max_order_notional 999 USDC" in said and "1,000.00" in said
    assert refusal([plan("buy", "9.99")], guards, {}, None) is None
    assert refusal([plan("sell", "1", reduce_only=True), plan("buy", "10")], guards, {}, None) is not None
    stop = OrderPlan(1, "BTC-PERP", "sell", "stop_loss", D(0), D(10), D(100), reduce_only=True, trigger=D(100))
    assert refusal([stop], guards, {"BTC-PERP": D(10)}, None) is None  # a position's protection is never blocked


def test_past_the_loss_limit_only_reducing_orders_go() -> None:
    """Day PnL -100 against a limit of 100: a buy with no position is refused, a sell of part of a long goes, a sell
    larger than the long (it would open a short) is refused, reduce-only goes; at -99.99 everything goes."""
    guards = Guards(daily_loss_limit=D(100))
    long = {"BTC-PERP": D("2")}
    said = refusal([plan("buy", "1")], guards, {}, D(-100))
    assert said is not None and "daily loss limit reached" in said and "-100.00 USDC" in said
    assert "daily_loss_limit 100 USDC" in said
    assert refusal([plan("sell", "1")], guards, long, D(-100)) is None
    assert refusal([plan("sell", "1"), plan("sell", "1.5")], guards, long, D(-100)) is not None  # 2.5 > 2 together
    assert refusal([plan("buy", "5", reduce_only=True)], guards, {}, D(-100)) is None
    assert refusal([plan("buy", "1")], guards, {}, D("-99.99")) is None
    assert refusal([plan("buy", "1")], guards, {}, None) is None  # no account figure yet: nothing to hold it to


ORDERS = st.lists(st.tuples(st.sampled_from(["buy", "sell"]), st.integers(1, 5)), max_size=4)


@given(held=st.integers(-5, 5), sizes=ORDERS)
def test_reducing_never_grows_a_position(held: int, sizes: list[tuple[str, int]]) -> None:
    """Whatever the orders, when ``reduces_risk`` says yes, filling them all leaves the position no larger and on
    its side (or flat)."""
    plans = [plan(side, str(n)) for side, n in sizes]
    if reduces_risk(plans, {"BTC-PERP": D(held)} if held else {}):
        after = held + sum(n if side == "buy" else -n for side, n in sizes)
        assert abs(after) <= abs(held) and (after == 0 or (after > 0) == (held > 0))


def test_a_reversal_is_named_a_reduction_is_not() -> None:
    """Long 1: selling 3 reverses it (short 2); selling 1 closes it; reduce-only never reverses."""
    said = reversal([plan("sell", "3")], {"BTC-PERP": D(1)})
    assert said == "REVERSES the BTC-PERP position: long 1 becomes short 2"
    assert reversal([plan("sell", "1")], {"BTC-PERP": D(1)}) is None
    assert reversal([plan("sell", "3", reduce_only=True)], {"BTC-PERP": D(1)}) is None
    assert reversal([plan("buy", "3")], {}) is None


def test_the_days_pnl_starts_again_at_midnight_utc() -> None:
    """The first figure of a day is its baseline; the history's figure at 00:00 replaces it; a new day starts
    from its first figure."""
    day = DayPnl()
    noon = 20_000 * DAY_MS + DAY_MS // 2
    assert day.observe(None, noon) is None
    assert day.observe(D(50), noon) == 0
    assert day.observe(D(20), noon + 1000) == D(-30)
    day.seed(D(80), noon)
    assert day.observe(D(20), noon + 2000) == D(-60) and day.from_history
    assert day.observe(D(20), noon + DAY_MS) == 0 and not day.from_history


def test_the_baseline_is_the_last_point_at_or_before_midnight() -> None:
    start = 20_000 * DAY_MS
    points = [(start - 7200_000, D(1)), (start - 3600_000, D(2)), (start + 60_000, D(3))]
    assert day_baseline(points, start) == D(2)
    assert day_baseline(points[2:], start) is None


def test_the_liquidation_watch_warns_once_then_again_after_going_away() -> None:
    """Within 5%: warned once; still within: silent; beyond, then within again: warned again."""
    watch = LiquidationWatch(D(5))
    assert liquidation_distance_pct(D(100), D(96)) == D(4)
    assert liquidation_distance_pct(D(100), None) is None
    assert watch.check({"BTC-PERP": D(4)}) == [("BTC-PERP", D(4))]
    assert watch.check({"BTC-PERP": D(3)}) == []
    assert watch.check({"BTC-PERP": D(7)}) == []
    assert watch.check({"BTC-PERP": D(5)}) == [("BTC-PERP", D(5))]
    assert watch.check({}) == [] and watch.check({"BTC-PERP": D(1)}) == [("BTC-PERP", D(1))]  # closed, reopened


def test_the_latency_readout() -> None:
    """Signed at 0, acknowledged at 0.040, seen on the socket at 0.055: 'order 40→55 ms · median 55'; before the
    socket shows it, '…'."""
    now = [0.0]
    latency = Latency(lambda: now[0])
    assert latency.words() is None
    timing = latency.start(["c1"])
    now[0] = 0.040
    latency.answered(timing)
    latency.observe({})
    assert latency.words() == "order 40→… ms"
    latency.observe({"c1": 0.055})
    assert latency.words() == "order 40→55 ms · median 55"
