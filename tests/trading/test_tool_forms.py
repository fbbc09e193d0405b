"""The chase and OCO forms fed arbitrary text in every field (the hostile texts of every parser's property test):
each answers with a chase or a pair of orders within the form's rules, or a ``FieldError`` naming one of its own
fields, never anything else; and the cloid classifier that names the runners' orders in the open orders."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.trading.test_form_grammar import HOSTILE
from tui.trading import OrderContext
from tui.trading.chase import chase_target
from tui.trading.grammar import FieldError
from tui.trading.tool_forms import chase_from_form, oco_from_form, tool_of

D = Decimal
LONG = OrderContext(
    instrument_id=1, symbol="BTC-PERP", kind="perp", tick=D("0.1"), lot=D("0.0001"), min_notional=D(10),
    max_leverage=D(50), best_bid=D(99_990), best_ask=D(100_000), mark=D(99_995), available=D(100_000),
    position=D("0.05"),
)  # fmt: skip
SIDES = st.one_of(HOSTILE, st.sampled_from(["buy", "sell", " BUY ", "Sell"]))


@settings(max_examples=300, deadline=None)
@given(SIDES, HOSTILE, HOSTILE)
def test_the_chase_form_reads_any_text(side: str, size: str, limit: str) -> None:
    """Any text: a chase at the touch (post-only, on the lot, held at the limit), or an error on its field."""
    try:
        spec, plan = chase_from_form({"side": side, "size": size, "limit": limit}, LONG)
    except FieldError as exc:
        assert exc.field in ("side", "size", "limit") and exc.message
        return
    assert spec.side == side.strip().lower() and spec.size == plan.size > 0 and plan.post_only
    assert plan.size % LONG.lot == 0 and plan.price == chase_target(spec, LONG)  # the touch, held at the limit
    if spec.limit is not None:
        assert plan.price <= spec.limit if spec.side == "buy" else plan.price >= spec.limit


@settings(max_examples=300, deadline=None)
@given(HOSTILE, HOSTILE, HOSTILE)
def test_the_oco_form_reads_any_text(size: str, take_profit: str, stop: str) -> None:
    """Any text: a reduce-only take-profit above the mark and a stop below it, selling at most the long position,
    or an error on its field."""
    try:
        tp, sl = oco_from_form({"size": size, "take_profit": take_profit, "stop": stop}, LONG)
    except FieldError as exc:
        assert exc.field in ("size", "take_profit", "stop") and exc.message
        return
    assert tp.side == sl.side == "sell" and tp.reduce_only and sl.reduce_only
    assert 0 < tp.size == sl.size <= LONG.position
    assert tp.price > LONG.mark and sl.trigger is not None and sl.trigger < LONG.mark  # type: ignore[operator]


def test_an_oco_needs_a_position() -> None:
    """With no position there is nothing to close: the form says so on its size field."""
    flat = OrderContext(**{**{f: getattr(LONG, f) for f in LONG.__struct_fields__}, "position": D(0)})
    try:
        oco_from_form({"size": "", "take_profit": "101000", "stop": "98000"}, flat)
    except FieldError as exc:
        assert exc.field == "size" and "there is none on BTC-PERP" in exc.message
    else:
        raise AssertionError("an OCO with no position was accepted")


@given(st.text(max_size=40))
def test_only_the_runners_cloids_are_named(cloid: str) -> None:
    """A trader's own cloid is never taken for a runner's; the runners' own shapes are."""
    named = tool_of(cloid)
    assert named is None or cloid.startswith(("ch", "oc", "tr"))
    assert tool_of("ch3x12345678-7") == "chase" and tool_of("tr1x12345678-2") == "trailing stop"
    assert tool_of("oc2x12345678-t1") == "OCO TP" and tool_of("oc2x12345678-s3") == "OCO stop"
    assert tool_of("chase-me") is None and tool_of("oc1x1-q1") is None
