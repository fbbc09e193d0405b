"""Closed positions rebuilt from fills: opens, adds, partial closes, flips, funding, a history that starts
mid-position; hand-checked numbers, and a property over random fill sequences."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.api import models as m
from tui.feed.position_history import POSITION_COLUMNS, position_book, position_rows

T0 = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def fill(n: int, side: str, size: str, price: str, *, start: str, fee: str = "0", name: str = "BTC-PERP") -> m.Fill:
    """Fill number ``n`` (its trade id, ``n`` minutes after T0) of ``size`` at ``price`` from position ``start``."""
    s, q = D(start), D(size)
    signed = q if side == "b" else -q
    opening = not s or (s > 0) == (signed > 0)
    direction = ("openLong" if signed > 0 else "openShort") if opening else ("closeLong" if s > 0 else "closeShort")
    return m.Fill(
        instrument_id=1, instrument=name, account="0xa", order_id=n, cloid="", trade_id=n, side=side,
        position_side="BOTH", direction=direction, price=D(price), size=q, closed_pnl=D(0), fee=D(fee),
        broker_fee=D(0), fee_token_id=1, crossed=True, tx_hash="0x", fill_type=0, start_size=s, start_price=D(0),
        notional_value=q * D(price), block_timestamp=(T0 + dt.timedelta(minutes=n)).isoformat().replace("+00:00", "Z"),
    )  # fmt: skip


def funding(minute: int, payment: str) -> m.FundingRecord:
    at = (T0 + dt.timedelta(minutes=minute)).isoformat()
    return m.FundingRecord(
        user="0xa", instrument_id=1, settlement_currency=1, funding_payment=D(payment), funding_rate=D("0.0001"),
        mark_price=D(100), size=D(1), timestamp=at,
    )  # fmt: skip


def test_add_partial_close_and_close_by_hand() -> None:
    """Buy 1 @ 100, add 1 @ 110, sell 0.5 @ 120, sell 1.5 @ 90: one long of size 2, entry 105, exit
    (60 + 135) / 2 = 97.5, realized (97.5 - 105) x 2 = -15, fees 0.1+0.1+0.05+0.15 = 0.4, funding -0.3 + 0.1."""
    fills = [
        fill(1, "b", "1", "100", start="0", fee="0.1"),
        fill(2, "b", "1", "110", start="1", fee="0.1"),
        fill(3, "s", "0.5", "120", start="2", fee="0.05"),
        fill(4, "s", "1.5", "90", start="1.5", fee="0.15"),
    ]
    book = position_book(
        list(reversed(fills)), [funding(2, "-0.3"), funding(3, "0.1"), funding(9, "5")], {1: "BTC-PERP"}
    )
    assert not book.open
    (p,) = book.closed
    assert (p.side, p.size, p.peak, p.entry, p.exit) == ("long", D(2), D(2), D(105), D("97.5"))
    assert p.realized == D(-15)
    assert p.fees == D("0.4")
    assert p.funding == D("-0.2")
    assert p.net == D("-15.6")
    assert p.duration == dt.timedelta(minutes=3)
    assert book.unplaced_funding == 1  # paid at minute 9, when nothing was held


def test_flip_splits_the_fill_and_its_fee() -> None:
    """Short 2 @ 50, then buy 3 @ 40 (fee 0.3): the short closes with realized (50 - 40) x 2 = 20 and fee 0.2 of
    the flip; a long of 1 @ 40 opens with the other 0.1 and stays open (not closed)."""
    book = position_book([fill(1, "s", "2", "50", start="0"), fill(2, "b", "3", "40", start="-2", fee="0.3")])
    (short,) = book.closed
    assert (short.side, short.size, short.entry, short.exit, short.realized, short.fees) == (
        "short", D(2), D(50), D(40), D(20), D("0.2"),
    )  # fmt: skip
    (long,) = book.open
    assert (long.side, long.held, long.entry, long.fees, long.closed) == ("long", D(1), D(40), D("0.1"), None)


def test_history_starting_mid_position_leaves_that_position_out() -> None:
    """The oldest fill read closes 1 of a position of 3 whose start is older than the history: that position is
    unknown until flat; the next one (from flat) is rebuilt."""
    fills = [
        fill(1, "s", "1", "100", start="3"),
        fill(2, "s", "2", "100", start="2"),
        fill(3, "b", "1", "10", start="0"),
        fill(4, "s", "1", "12", start="1"),
    ]
    book = position_book(fills)
    assert book.unknown_fills == 2
    (p,) = book.closed
    assert (p.entry, p.exit, p.realized) == (D(10), D(12), D(2))


def test_instruments_and_spot_are_apart() -> None:
    """Two instruments interleaved make two positions; a spot fill (direction buy) makes none."""
    spot = fill(5, "b", "1", "1", start="0", name="ETH/USDC").__replace__(direction="buy")  # type: ignore[attr-defined]
    fills = [
        fill(1, "b", "1", "100", start="0"),
        fill(2, "s", "1", "10", start="0", name="ETH-PERP"),
        fill(3, "s", "1", "101", start="1"),
        fill(4, "b", "1", "9", start="-1", name="ETH-PERP"),
        spot,
    ]
    book = position_book(fills)
    assert [(p.instrument, p.realized) for p in book.closed] == [("ETH-PERP", D(1)), ("BTC-PERP", D(1))]
    assert not book.open


def test_export_rows() -> None:
    """A row per position under POSITION_COLUMNS: exact decimals, ISO times, the duration in seconds."""
    book = position_book([fill(1, "b", "1", "3", start="0"), fill(2, "b", "2", "4", start="1"),
                          fill(4, "s", "3", "5", start="3", fee="0.01")])  # fmt: skip
    (row,) = position_rows(book.closed)
    got = dict(zip(POSITION_COLUMNS, row, strict=True))
    assert got["entry"] == "3.666666666667"  # 11 / 3, to 12 places
    assert (got["size"], got["exit"], got["realized_pnl"], got["fees"], got["net_pnl"]) == (
        "3",
        "5",
        "4",
        "0.01",
        "3.99",
    )
    assert (got["duration"], got["closed"]) == ("180", "2026-11-01T00:04:00+00:00")


steps = st.lists(
    st.tuples(st.sampled_from(["BTC-PERP", "ETH-PERP"]), st.sampled_from(["b", "s"]),
              st.integers(1, 40), st.integers(1, 500), st.integers(0, 30)),
    max_size=40,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(steps)
def test_realized_plus_open_basis_is_the_cash_flow(seq: list[tuple[str, str, int, int, int]]) -> None:
    """For any fills (adds, partial closes, flips, two instruments): the realized PnL of every position, less the
    cost basis of what is still held (long; plus, short), equals the fills' cash flow -sum(signed size x price);
    the fees add up to the fills' fees; a closed position's realized is (exit - entry) x size."""
    held: dict[str, D] = {}
    fills = []
    for i, (name, side, q, px, fee) in enumerate(seq):
        size, price = D(q) / 10, D(px) / 4
        fills.append(
            fill(i, side, str(size), str(price), start=str(held.get(name, D(0))), fee=str(D(fee) / 100), name=name)
        )
        held[name] = held.get(name, D(0)) + (size if side == "b" else -size)
    book = position_book(fills)
    cash = -sum(((f.size if f.side == "b" else -f.size) * f.price for f in fills), D(0))
    positions = [*book.closed, *book.open]
    near = D("1e-20")  # a partial close's share of the basis, and a flip's share of its fee, are divisions
    assert abs(sum((p.realized - p.basis * p.sign for p in positions), D(0)) - cash) < near
    assert abs(sum((p.fees for p in positions), D(0)) - sum((f.fee for f in fills), D(0))) < near
    assert book.unknown_fills == 0
    for p in book.closed:
        assert p.held == 0 and p.closed_size == p.size
        assert p.exit is not None and abs((p.exit - p.entry) * p.size * p.sign - p.realized) < near
    for p in book.open:
        assert p.held * p.sign == held[p.instrument]
