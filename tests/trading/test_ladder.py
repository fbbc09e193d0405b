"""The ladder's arithmetic without Textual: its fixed axis, where the book's levels, your orders and the last trade
land on it, and its orders checked as the order form checks."""

from __future__ import annotations

from decimal import Decimal as D

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from tests.trading.test_orders import BTC
from tui.api.models import Order, Trade, decode
from tui.trading.ladder import LadderAxis, bucket, ladder_levels, ladder_order, ladder_size, orders_at

USER = "0x" + "ab" * 20


def order(oid: int, side: str, price: str, unfilled: str, symbol: str = "BTC-PERP") -> Order:
    return decode(
        {
            "order_id": oid, "user": USER, "instrument_id": 1, "instrument": symbol, "side": side,
            "position_side": "BOTH", "limit_price": price, "size": unfilled, "unfilled": unfilled, "state": "open",
            "cloid": "", "tif": "GTC", "post_only": False, "reduce_only": False, "trigger_px": "0",
            "is_market": False, "tpsl": "", "grouping": "", "timestamp": "2026-01-01T00:00:00.000Z",
        },
        Order,
    )  # fmt: skip


def trade(price: str, size: str) -> Trade:
    return decode(
        {
            "instrument_id": 1, "instrument": "BTC-PERP", "trade_id": 9, "tx_hash": "0x01", "side": "b",
            "price": price, "size": size, "maker": USER, "taker": USER, "timestamp": 1_767_225_600_000,
        },
        Trade,
    )  # fmt: skip


prices = st.decimals(min_value=D("0.1"), max_value=D(1_000_000), places=1)
steps = st.sampled_from([D("0.1"), D(1), D(10)])


@given(mid=prices, step=steps, rows=st.integers(1, 80))
def test_a_centred_axis_holds_the_mid_level_in_its_middle_row(mid: D, step: D, rows: int) -> None:
    """Any mid, step and height: the mid's level is on the axis, in the middle row, and every row maps back."""
    axis = LadderAxis.centred(mid, step, rows)
    assert axis.row_of(bucket(mid, step, "bids")) == rows // 2
    assert [axis.row_of(axis.price(i)) for i in range(rows)] == list(range(rows))
    assert axis.row_of(axis.top + step) is None and axis.row_of(axis.bottom - step) is None


@given(mid=prices, step=steps, rows=st.integers(1, 80), away=st.integers(-500, 500))
def test_the_axis_moves_the_least_to_hold_a_price(mid: D, step: D, rows: int, away: int) -> None:
    """A level inside leaves the axis as it is; one outside moves it just enough to sit on its edge."""
    axis = LadderAxis.centred(mid, step, rows)
    price = axis.price(rows // 2) + away * step
    moved = axis.scrolled_to(price)
    row = moved.row_of(price)
    assert row is not None
    if axis.row_of(price) is not None:
        assert moved is axis
    else:
        assert row in (0, rows - 1)


def test_levels_take_the_books_sizes_your_orders_and_the_last_trade() -> None:
    """Your buy at 99,999.25 would be off the grid; at 99,999.2 it shows on that level with its size, two sells at
    100,039.3 add up, a trigger order without a price has no level, another instrument's order is not shown."""
    axis = LadderAxis.centred(D("100019.2"), D("0.1"), 500)
    mine = [
        order(1, "b", "99999.2", "0.01"),
        order(2, "s", "100039.3", "0.02"),
        order(3, "s", "100039.3", "0.03"),
        order(4, "s", "0", "0.5"),
    ]
    levels = ladder_levels(
        axis, [(D("99999.2"), D("0.4"))], [(D("100039.3"), D("0.7"))], mine, trade("100039.3", "0.005")
    )
    at = {level.price: level for level in levels}
    assert (at[D("99999.2")].bid, at[D("99999.2")].my_bid, at[D("99999.2")].my_count) == (D("0.4"), D("0.01"), 1)
    top = at[D("100039.3")]
    assert (top.ask, top.my_ask, top.my_count, top.last) == (D("0.7"), D("0.05"), 2, D("0.005"))
    assert sum(level.my_count for level in levels) == 3
    assert [o.order_id for o in orders_at(mine, "BTC-PERP", D("100039.3"), D("0.1"))] == [2, 3]
    assert orders_at([order(5, "b", "99999.2", "1", "ETH-PERP")], "BTC-PERP", D("99999.2"), D("0.1")) == []


def test_grouped_levels_bucket_as_the_book_does() -> None:
    """Grouped by 10x the tick (a 1.0 step): a buy at 99,999.7 sits on 99,999 (floor), a sell on 100,000 (ceil)."""
    axis = LadderAxis.centred(D(100_000), D(1), 20)
    levels = ladder_levels(axis, [], [], [order(1, "b", "99999.7", "1"), order(2, "s", "99999.7", "2")], None)
    at = {level.price: level for level in levels}
    assert at[D(99_999)].my_bid == D(1) and at[D(100_000)].my_ask == D(2)


def test_a_ladder_order_is_checked_as_the_form_checks() -> None:
    """The same words as the order form: off the tick, under the minimum, over the funds; a good one is a GTC
    limit plan at the ladder's price."""
    assert "tick" in ladder_order("buy", D("99999.25"), "0.01", BTC).errors["price"]
    assert "minimum" in ladder_order("buy", D("99999.2"), "0.0001", BTC).errors["size"]
    assert "size" in ladder_order("buy", D("99999.2"), "1000", BTC).errors
    plan = ladder_order("sell", D("100039.3"), "0.01", BTC).plan
    assert plan is not None and (plan.side, plan.kind, plan.tif, plan.price) == ("sell", "limit", "GTC", D("100039.3"))


def test_the_ladders_own_size_is_a_notional_at_the_mid_never_below_twice_the_minimum() -> None:
    """Unset: twice the minimum order value (10 USDC) at the mid, rounded up to the lot: 0.0002 BTC, so a buy a
    few levels under the mid still meets the minimum. 500 USDC at ~100,019: 0.0049 (rounded down to the lot); a
    notional under the floor takes the floor; no price at all: no size."""
    assert ladder_size(BTC, None) == D("0.0002")
    assert ladder_order("buy", D("95000"), format(ladder_size(BTC, None), "f"), BTC).plan is not None
    assert ladder_size(BTC, D(500)) == D("0.0049")
    assert ladder_size(BTC, D(1)) == D("0.0002")
    priceless = msgspec.structs.replace(BTC, best_bid=None, best_ask=None, mark=None)
    assert ladder_size(priceless, D(500)) is None
