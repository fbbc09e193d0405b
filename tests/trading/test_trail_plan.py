"""A trailing stop's arithmetic and its form: where each stop goes, that it only ever moves in the trader's favour
(a property over any run of prices), that it is never placed at or through the mark, and what the form refuses."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from tui.trading import OrderContext
from tui.trading.trail_plan import (
    TrailSpec,
    advance,
    improves,
    kept_from_mark,
    move_step,
    stop_plan,
    trail_spec,
    trail_trigger,
)

D = Decimal
TICK = D("0.5")


def ctx(position: str = "0.1", mark: str = "100000") -> OrderContext:
    return OrderContext(
        instrument_id=1, symbol="BTC-PERP", kind="perp", tick=TICK, lot=D("0.001"), min_notional=D(10),
        max_leverage=D(50), mark=D(mark), position=D(position),
    )  # fmt: skip


def test_where_the_stop_goes() -> None:
    """500 below a long's peak of 100,000.3 is 99,500 (on the tick, down); 1% above a short's 100,000 is 101,000;
    a step is a tenth of the distance (50), at least a tick."""
    assert trail_trigger(TrailSpec("BTC-PERP", "sell", D(500)), D("100000.3"), TICK) == D("99500")
    assert trail_trigger(TrailSpec("BTC-PERP", "buy", D(1), percent=True), D(100_000), TICK) == D(101_000)
    assert move_step(TrailSpec("BTC-PERP", "sell", D(500)), D(100_000), TICK) == D(50)
    assert move_step(TrailSpec("BTC-PERP", "sell", D(2)), D(100_000), TICK) == TICK
    assert trail_trigger(TrailSpec("BTC-PERP", "sell", D(99), percent=True), D(1), D(1)) is None


def test_a_stop_is_kept_a_tick_short_of_the_mark() -> None:
    """A sell stop wanted at 100,000 with the mark at 99,900 goes at 99,899.5 (one tick under); a buy stop above."""
    assert kept_from_mark("sell", D(100_000), D(99_900), TICK) == D("99899.5")
    assert kept_from_mark("sell", D(99_000), D(99_900), TICK) == D(99_000)
    assert kept_from_mark("buy", D(99_000), D(99_900), TICK) == D("99900.5")


@given(
    st.lists(st.integers(min_value=50_000, max_value=150_000), min_size=1, max_size=40),
    st.sampled_from(["sell", "buy"]),
)
def test_the_stop_only_ever_moves_in_the_traders_favour(prices: list[int], side: str) -> None:
    """Any run of prices: each move the runner would make takes the stop higher (behind a long) or lower (above a
    short) than the last, never back."""
    spec = TrailSpec("BTC-PERP", side, D(300))  # type: ignore[arg-type]
    peak: Decimal | None = None
    stop: Decimal | None = None
    for p in prices:
        peak = advance(spec.side, peak, D(p))
        target = trail_trigger(spec, peak, TICK)
        assert target is not None
        if stop is None or improves(spec.side, target, stop, move_step(spec, peak, TICK)):
            if stop is not None:
                assert (target > stop) if side == "sell" else (target < stop)
            stop = target


def test_the_stop_is_a_reduce_only_stop_loss_bounded_from_its_trigger() -> None:
    """The plan is a reduce-only stop-loss at market, bounded 1% beyond its trigger, with no grouping."""
    plan = stop_plan(ctx(), TrailSpec("BTC-PERP", "sell", D(500)), D(99_500), D("0.1"), "tr1x1-1")
    wire = plan.to_wire()
    assert plan.reduce_only and plan.kind == "stop_loss" and plan.trigger == D(99_500) and plan.price == D(98_505)
    assert wire["tpsl"] == "sl" and wire["grouping"] == "" and wire["cloid"] == "tr1x1-1"


def test_the_form_reads_a_distance_or_a_percent_and_refuses_nonsense() -> None:
    """'500' and '1%' trail a long from 100,000 at 99,500 and 99,000; a short trails above; no position, 0, 100%,
    a distance off the tick, a word, or an unknown source each get a message on their field."""
    spec, first, errors = trail_spec(ctx(mark="100001"), "500", "mark", D(100_000))
    assert spec == TrailSpec("BTC-PERP", "sell", D(500), False, "mark") and first == D(99_500) and not errors
    spec, first, _ = trail_spec(ctx(mark="100001"), " 1 % ", "LAST", D(100_000))
    assert spec is not None and spec.percent and spec.source == "last" and first == D(99_000)
    spec, first, _ = trail_spec(ctx("-0.1", "99999"), "500", "mark", D(100_000))
    assert spec is not None and spec.side == "buy" and first == D(100_500)
    bad = {
        ("0", "500", "mark"): ("distance", "no BTC-PERP position to trail a stop behind"),
        ("0.1", "0", "mark"): ("distance", None),
        ("0.1", "100%", "mark"): ("distance", "a distance in percent is less than 100%"),
        ("0.1", "0.3", "mark"): ("distance", None),
        ("0.1", "lots", "mark"): ("distance", None),
        ("0.1", "500", "index"): ("source", "one of mark, last"),
    }
    for (position, distance, source), (field, message) in bad.items():
        spec, _, errors = trail_spec(ctx(position), distance, source, D(100_000))
        assert spec is None and field in errors, (distance, source, errors)
        if message:
            assert errors[field] == message
