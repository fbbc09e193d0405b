"""The order book on its own: levels sorted best-last, FIFO per level, totals, changed-level tracking."""

from __future__ import annotations

from decimal import Decimal

from tui.sim.engine.accounts import Account, Order
from tui.sim.engine.book import OrderBook

ACCT = Account("0x" + "1" * 40, "0x" + "1" * 40, 0, 10)
_oid = iter(range(1, 10_000))


def mk(is_buy: bool, price: str, size: str) -> Order:
    return Order(
        next(_oid),
        ACCT,
        1,
        is_buy,
        Decimal(price),
        Decimal(size),
        "GTC",
        0,
        "",
        False,
        False,
        False,
        Decimal(0),
        "",
        "",
        None,
        Decimal(0),
    )


def test_best_prices_and_level_order() -> None:
    book = OrderBook()
    for p in ("99", "101", "100", "98"):
        book.add(mk(True, p, "1"))
    for p in ("103", "102", "105"):
        book.add(mk(False, p, "2"))
    assert book.best_bid() == Decimal("101")
    assert book.best_ask() == Decimal("102")
    assert [lv.price for lv in book.levels(True, 10)] == [Decimal(x) for x in ("101", "100", "99", "98")]
    assert [lv.price for lv in book.levels(False, 2)] == [Decimal("102"), Decimal("103")]
    assert [lv.price for lv in book.iter_levels(False)] == [Decimal(x) for x in ("102", "103", "105")]
    assert book.mid() == Decimal("101.5")


def test_fifo_within_a_level_and_totals() -> None:
    book = OrderBook()
    first, second = mk(False, "100", "1"), mk(False, "100", "3")
    book.add(first)
    book.add(second)
    level = book.best_level(False)
    assert level is not None
    assert list(level.orders) == [first, second]
    assert level.total == Decimal(4)
    first.unfilled -= Decimal(1)
    book.consumed(level, False, Decimal(1))
    assert list(level.orders) == [second]
    assert book.size_at(False, Decimal(100)) == Decimal(3)


def test_remove_deletes_empty_levels_anywhere() -> None:
    book = OrderBook()
    orders = [mk(True, p, "1") for p in ("97", "98", "99")]
    for o in orders:
        book.add(o)
    book.remove(orders[1])  # a middle level
    assert book.bid_keys == [Decimal(97), Decimal(99)]
    book.remove(orders[2])  # the best level
    assert book.best_bid() == Decimal(97)
    book.remove(orders[0])
    assert book.best_bid() is None and not book.bids
    assert book.mid() is None


def test_changed_levels_are_recorded() -> None:
    book = OrderBook()
    bid, ask = mk(True, "10", "1"), mk(False, "11", "1")
    book.add(bid)
    book.add(ask)
    assert book.changed_bids == {Decimal(10)} and book.changed_asks == {Decimal(11)}
    book.changed_bids.clear()
    book.changed_asks.clear()
    book.remove(ask)
    assert book.changed_asks == {Decimal(11)} and not book.changed_bids
