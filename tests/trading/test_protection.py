"""The protection model on the rows a trader tried (``tui.trading.protection``): which resting orders protect a
position, how much of it, and which protect nothing or only wait for an entry."""

from __future__ import annotations

from decimal import Decimal

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ALICE_KEY
from tui.api.models import Order, Position
from tui.api.signing import Signer
from tui.trading.protection import cloid_stem, protection, protective_orders

ALICE = Signer(ALICE_KEY)
D = Decimal
MARK = {"BTC-PERP": D(100000)}


def pos(size: str, entry: str = "100000", name: str = "BTC-PERP") -> Position:
    record = {
        "user": ALICE.address, "instrument_id": 1, "instrument": name, "position_side": "BOTH", "size": size,
        "entry_price": entry, "position_value": "0", "margin_mode": "isolated", "leverage": "10", "updated_at": 0,
    }  # fmt: skip
    return msgspec.convert(record, Position, strict=False)


def order(oid: int, side: str, size: str = "0.01", **kw: object) -> Order:
    record: dict[str, object] = {
        "order_id": oid, "instrument_id": 1, "instrument": "BTC-PERP", "side": side, "position_side": "BOTH",
        "size": size, "unfilled": size, "state": "open", "cloid": "", "tif": "GTC", "post_only": False,
        "reduce_only": False, "user": ALICE.address, "grouping": "", "timestamp": "2026-01-01T00:00:00.000Z",
        "trigger_px": "0", "is_market": False, "tpsl": "", "limit_price": "0",
    }  # fmt: skip
    return msgspec.convert(record | kw, Order, strict=False)


def tpsl(
    oid: int, side: str, kind: str, trigger: str, size: str = "0.01", grouping: str = "position", **kw: object
) -> Order:
    return order(
        oid, side, size, trigger_px=trigger, is_market=True, reduce_only=True, tpsl=kind, grouping=grouping, **kw
    )


def test_a_long_with_tp_and_sl_is_covered_whole() -> None:
    model = protection([pos("0.01")], [tpsl(1, "s", "tp", "101000"), tpsl(2, "s", "sl", "99000")], MARK)
    guarded = model.of("BTC-PERP")
    assert guarded is not None and guarded.tp is not None and guarded.sl is not None
    assert (guarded.tp.price, guarded.sl.price, guarded.tp.whole, guarded.sl.whole) == (D(101000), D(99000), True, True)
    assert guarded.words() == "TP 101,000 · SL 99,000"


def test_after_a_reverse_the_old_longs_sells_protect_nothing() -> None:
    """The issue's first row: long with TP 101,000 / SL 99,000, reversed to a short: the sells cannot close a short.
    They are stale, and the short shows no TP and no stop-loss."""
    orders = [tpsl(1, "s", "tp", "101000"), tpsl(2, "s", "sl", "99000")]
    model = protection([pos("-0.01")], orders, MARK)
    guarded = model.of("BTC-PERP")
    assert guarded is not None and (guarded.tp, guarded.sl) == (None, None)
    assert [o.order_id for o in guarded.stale] == [1, 2]
    assert "no stop-loss" in guarded.words()
    assert [model.role(o) for o in orders] == ["stale", "stale"]


def test_a_bracket_whose_entry_has_not_filled_is_pending_not_protection() -> None:
    """Linked by xtui's cloid (one placeOrder, one stem): "pending"; a leg that cannot be linked while an entry may
    rest: "pending?". Neither covers the position held."""
    entry = order(1, "b", limit_price="99000", cloid="bk1733000000-1")
    legs = [
        tpsl(2, "s", "tp", "101000", grouping="normal", cloid="bk1733000000-2"),
        tpsl(3, "s", "sl", "98000", grouping="normal", cloid="bk1733000000-3"),
        tpsl(4, "s", "sl", "97000", grouping="normal", cloid="0xabc"),
    ]
    model = protection([pos("0.01")], [entry, *legs], MARK)
    guarded = model.of("BTC-PERP")
    assert guarded is not None and (guarded.tp, guarded.sl) == (None, None)
    assert [model.role(o) for o in legs] == ["pending TP", "pending SL", "pending? SL"]
    flat = protection([], [entry, *legs], MARK)
    assert [model.role(o) for o in legs] == [flat.role(o) for o in legs]
    assert cloid_stem("bk1733000000-2") == "bk1733000000" and cloid_stem("0xabc") is None


def test_a_bracket_leg_whose_entry_filled_protects() -> None:
    legs = [
        tpsl(2, "s", "tp", "101000", grouping="normal", cloid="bk17-2"),
        tpsl(3, "s", "sl", "98000", grouping="normal"),
    ]
    guarded = protection([pos("0.01")], legs, MARK).of("BTC-PERP")
    assert guarded is not None and guarded.tp is not None and guarded.sl is not None


def test_an_oco_limit_take_profit_is_the_tp() -> None:
    """The OCO's take-profit is a reduce-only limit, no trigger: it is the TP, as its stop is the SL."""
    tp = order(1, "s", reduce_only=True, limit_price="102000")
    stop = order(2, "s", reduce_only=True, trigger_px="98000", is_market=True)
    guarded = protection([pos("0.01")], [tp, stop], MARK).of("BTC-PERP")
    assert guarded is not None and guarded.tp is not None and guarded.sl is not None
    assert (guarded.tp.price, guarded.sl.price) == (D(102000), D(98000))


def test_a_stop_for_a_third_of_the_position_says_so() -> None:
    """Long 0.01 with a 0.01 trailing stop, then 0.02 more bought: the stop covers 0.01 of 0.03."""
    guarded = protection([pos("0.03")], [order(1, "s", reduce_only=True, trigger_px="97000", is_market=True)], MARK).of(
        "BTC-PERP"
    )
    assert guarded is not None and guarded.sl is not None
    assert (guarded.sl.whole, guarded.sl.covered, guarded.sl.held) == (False, D("0.01"), D("0.03"))
    assert guarded.sl.words("SL") == "SL 97,000 covers 0.01 of 0.03"


def test_a_plain_order_on_the_closing_side_is_not_protection() -> None:
    """A sell limit that is not reduce-only may open a short: not counted; a stop buy above a long is not either."""
    orders = [order(1, "s", limit_price="101000"), order(2, "b", trigger_px="101000", is_market=True)]
    model = protection([pos("0.01")], orders, MARK)
    assert protective_orders(model, orders) == []


def test_a_tool_that_could_not_keep_it_covered_is_said() -> None:
    model = protection([pos("0.03")], [], MARK, {"BTC-PERP": "not covered: the stop covers 0.01 of 0.03"})
    guarded = model.of("BTC-PERP")
    assert guarded is not None and guarded.words() == "no stop-loss · not covered: the stop covers 0.01 of 0.03"


def test_stop_and_take_profit_are_told_by_the_mark_for_a_short() -> None:
    """A short's buy stop above the mark is its SL, one below its TP (no TP/SL mark from the exchange)."""
    orders = [
        order(1, "b", reduce_only=True, trigger_px="103000", is_market=True),
        order(2, "b", reduce_only=True, trigger_px="96000", is_market=True),
    ]
    guarded = protection([pos("-0.01", entry="104000")], orders, MARK).of("BTC-PERP")
    assert guarded is not None and guarded.sl is not None and guarded.tp is not None
    assert (guarded.sl.price, guarded.tp.price) == (D(103000), D(96000))


SIZES = st.decimals(D("0.001"), D("0.05"), places=3)


@settings(max_examples=300, deadline=None)
@given(
    held=st.decimals(D("-0.05"), D("0.05"), places=3),
    legs=st.lists(
        st.tuples(
            st.sampled_from("bs"), SIZES, st.decimals(D(90000), D(110000), places=0), st.booleans(), st.booleans()
        ),
        max_size=8,
    ),
)
def test_every_order_is_one_thing_and_cover_never_exceeds_the_position(held: Decimal, legs: list[tuple]) -> None:  # type: ignore[type-arg]
    """Each order is protection of at most one kind, stale, pending, or nothing; what is covered is the reduce-only
    orders on the closing side, added up and capped at the position."""
    orders = [
        order(i, side, str(size), reduce_only=ro, trigger_px=str(px) if trig else "0",
              limit_price="0" if trig else str(px), is_market=trig)
        for i, (side, size, px, ro, trig) in enumerate(legs, 1)
    ]  # fmt: skip
    model = protection([pos(str(held))] if held else [], orders, MARK)
    guarded = model.of("BTC-PERP")
    closing = "s" if held > 0 else "b"
    expected = sum((o.size for o in orders if o.reduce_only and o.side == closing), D(0)) if held else D(0)
    covers = [c for c in (guarded.tp, guarded.sl) if c is not None] if guarded else []
    assert sum((c.covered for c in covers), D(0)) <= 2 * abs(held)
    assert sum(sum((o.size for o in orders if o.order_id in c.orders), D(0)) for c in covers) == expected
    for o in orders:
        role = model.role(o)
        assert role in ("TP", "SL", "stale", "")
        assert (role == "stale") == (o.reduce_only and (not held or o.side != closing))
