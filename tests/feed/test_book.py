"""BookState: absolute level updates, lazily sorted reads, grouping."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.api.models import BookLevel
from tui.feed.book import BookState

D = Decimal


def lv(price: str | int, size: str | int) -> BookLevel:
    return BookLevel(price=D(price), size=D(size))


def book_of(bids: list[BookLevel], asks: list[BookLevel]) -> BookState:
    book = BookState("BTC-PERP")
    book.replace(bids, asks, 10, 0, 1.0)
    return book


def test_levels_are_best_first_and_updates_are_absolute() -> None:
    book = book_of([lv(99, 1), lv(100, 2), lv(98, 3)], [lv(102, 1), lv(101, 2)])
    assert book.levels("bids", 2) == [(D(100), D(2)), (D(99), D(1))]
    assert book.levels("asks", 5) == [(D(101), D(2)), (D(102), D(1))]
    assert (book.best_bid, book.best_ask, book.mid, book.spread) == (D(100), D(101), D("100.5"), D(1))
    book.apply([lv(100, 0), lv(99, 5), lv("99.5", 1)], [lv(101, 0)], 11, 0, 2.0)
    assert book.levels("bids", 5) == [(D("99.5"), D(1)), (D(99), D(5)), (D(98), D(3))]
    assert book.levels("asks", 5) == [(D(102), D(1))]
    assert (book.sequence, book.updated) == (11, 2.0)
    book.apply([lv(98, 0), lv(99, 0), lv("99.5", 0)], [], 12, 0, 3.0)
    assert book.best_bid is None and book.mid is None and book.spread is None


def test_grouping_floors_bids_and_ceils_asks() -> None:
    book = book_of(
        [lv("100.4", 1), lv("100.1", 2), lv("99.9", 3), lv("99.0", 4), lv("97.5", 5)],
        [lv("100.6", 1), lv("101.0", 2), lv("101.2", 3)],
    )
    assert book.levels("bids", 10, D(1)) == [(D(100), D(3)), (D(99), D(7)), (D(97), D(5))]
    assert book.levels("bids", 2, D(1)) == [(D(100), D(3)), (D(99), D(7))]
    assert book.levels("asks", 10, D(1)) == [(D(101), D(3)), (D(102), D(3))]
    assert book.levels("asks", 1, D("0.5")) == [(D(101), D(3))]
    with pytest.raises(ValueError):
        book.levels("bids", 5, D(0))


def test_negative_size_is_bad_data() -> None:
    book = book_of([lv(100, 1)], [])
    with pytest.raises(ValueError):
        book.apply([lv(99, -1)], [], 11, 0, 2.0)


updates = st.lists(
    st.lists(st.tuples(st.booleans(), st.integers(1, 40), st.integers(0, 3)), max_size=6), min_size=1, max_size=40
)


@given(updates)
def test_any_update_sequence_reads_like_a_sorted_dict(frames: list[list[tuple[bool, int, int]]]) -> None:
    book = book_of([], [])
    model: dict[str, dict[Decimal, Decimal]] = {"bids": {}, "asks": {}}
    for n, frame in enumerate(frames):
        bids = [lv(p, s) for is_bid, p, s in frame if is_bid]
        asks = [lv(p, s) for is_bid, p, s in frame if not is_bid]
        book.apply(bids, asks, 11 + n, 0, float(n))
        for side, levels in (("bids", bids), ("asks", asks)):
            for level in levels:
                if level.size:
                    model[side][level.price] = level.size
                else:
                    model[side].pop(level.price, None)
        book.levels("bids", 3)  # reads in between must not leave a stale cache behind
        want_bids = sorted(model["bids"].items(), reverse=True)
        assert book.levels("bids", 100) == want_bids
        assert book.levels("asks", 100) == sorted(model["asks"].items())
        assert book.best_bid == (want_bids[0][0] if want_bids else None)
