"""The reverse of a position: its one order, and what it left said in words."""

from __future__ import annotations

from decimal import Decimal as D

from tests.trading.test_sizing import ctx
from tui.trading.reverse import reverse_outcome, reverse_plan


def test_the_order_is_one_ioc_market_order_of_twice_the_size_the_other_way() -> None:
    """Long 0.037: sell 0.074 at market, IOC, not reduce-only, bounded 1% under the best bid 99,999 (98,999.01,
    rounded up to the 0.5 tick: 98,999.5). Short: a buy."""
    plan, why = reverse_plan(ctx(position=D("0.037")))
    assert plan is not None and why == ""
    assert (plan.side, plan.size, plan.is_market, plan.reduce_only, plan.tif) == (
        "sell",
        D("0.074"),
        True,
        False,
        "IOC",
    )
    assert plan.price == D("98999.5")
    plan, _ = reverse_plan(ctx(position=D("-1.5")))
    assert plan is not None and (plan.side, plan.size) == ("buy", D(3))


def test_nothing_to_reverse() -> None:
    """Flat, or spot: no order, and why."""
    assert reverse_plan(ctx()) == (None, "no BTC-PERP position to reverse")
    assert reverse_plan(ctx(kind="spot", position=D(1)))[0] is None
    plan, why = reverse_plan(ctx(position=D(1), best_bid=None, mark=None))
    assert plan is None and "book is empty" in why


def test_outcomes_in_words() -> None:
    """Filled in full, in part (still long, flat, or short smaller), not at all, and the position not read."""
    assert reverse_outcome("BTC-PERP", D("0.02"), D("0.04"), D("0.04"), D("-0.02")) == (
        "reversed BTC-PERP: long 0.02 → short 0.02"
    )
    part = reverse_outcome("BTC-PERP", D("0.02"), D("0.04"), D("0.03"), D("-0.01"))
    assert part == (
        "BTC-PERP reversed in part: 0.03 of 0.04 filled within the slippage bound, the rest cancelled (IOC);"
        " the position is now short 0.01"
    )
    assert reverse_outcome("BTC-PERP", D("0.02"), D("0.04"), D("0.02"), D(0)).endswith("the position is now flat")
    assert reverse_outcome("BTC-PERP", D("-0.02"), D("0.04"), D("0.01"), None).endswith(
        "short 0.01 (from the fill: the position could not be read)"
    )
    assert reverse_outcome("BTC-PERP", D("0.02"), D("0.04"), D(0), D("0.02")) == (
        "BTC-PERP not reversed: nothing filled within the slippage bound; the position is long 0.02"
    )
