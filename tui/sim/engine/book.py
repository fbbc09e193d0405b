"""The price-time-priority order book of one instrument (its orders: ``accounts.Order``).

The book is built for the matching hot path: each side is a dict price -> ``Level`` (a FIFO deque of
orders and the level's total size) plus a sorted list of keys with the best price at the END, so that
inserting or consuming near the top moves few list items. Bids are keyed by price, asks by ``-price``.
Every level whose total changes is remembered in ``changed_bids`` / ``changed_asks`` so the WebSocket
layer can send absolute sizes for exactly those levels.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import deque
from collections.abc import Iterator
from decimal import Decimal
from typing import TYPE_CHECKING

from .values import ZERO

if TYPE_CHECKING:
    from .accounts import Order


class Level:
    """The orders resting at one price, oldest first, and their total unfilled size."""

    __slots__ = ("orders", "price", "total")

    def __init__(self, price: Decimal) -> None:
        self.price = price
        self.orders: deque[Order] = deque()
        self.total = ZERO


class OrderBook:
    """Both sides of one instrument's book."""

    __slots__ = ("ask_keys", "asks", "bid_keys", "bids", "changed_asks", "changed_bids")

    def __init__(self) -> None:
        self.bids: dict[Decimal, Level] = {}
        self.asks: dict[Decimal, Level] = {}
        self.bid_keys: list[Decimal] = []  # ascending prices; best bid last
        self.ask_keys: list[Decimal] = []  # ascending negated prices; best ask last
        self.changed_bids: set[Decimal] = set()
        self.changed_asks: set[Decimal] = set()

    def best_bid(self) -> Decimal | None:
        return self.bid_keys[-1] if self.bid_keys else None

    def best_ask(self) -> Decimal | None:
        return -self.ask_keys[-1] if self.ask_keys else None

    def best_level(self, bids: bool) -> Level | None:
        """The best level of one side, or None if that side is empty."""
        if bids:
            return self.bids[self.bid_keys[-1]] if self.bid_keys else None
        return self.asks[-self.ask_keys[-1]] if self.ask_keys else None

    def add(self, order: Order) -> None:
        """Rest ``order`` at the back of its price level."""
        price = order.price
        if order.is_buy:
            level = self.bids.get(price)
            if level is None:
                level = self.bids[price] = Level(price)
                keys = self.bid_keys
                if not keys or price > keys[-1]:
                    keys.append(price)
                else:
                    insort(keys, price)
            self.changed_bids.add(price)
        else:
            level = self.asks.get(price)
            if level is None:
                level = self.asks[price] = Level(price)
                keys = self.ask_keys
                key = -price
                if not keys or key > keys[-1]:
                    keys.append(key)
                else:
                    insort(keys, key)
            self.changed_asks.add(price)
        level.orders.append(order)
        level.total += order.unfilled

    def remove(self, order: Order) -> None:
        """Take a resting order out of the book (cancel, or a reduce-only order that can no longer fill)."""
        side = self.bids if order.is_buy else self.asks
        level = side[order.price]
        level.orders.remove(order)
        level.total -= order.unfilled
        self._touch(level, order.is_buy)

    def consumed(self, level: Level, is_bid: bool, size: Decimal) -> None:
        """Record that ``size`` was filled from the front order of ``level`` (the caller updated it)."""
        level.total -= size
        front = level.orders[0]
        if not front.unfilled:
            level.orders.popleft()
        self._touch(level, is_bid)

    def _touch(self, level: Level, is_bid: bool) -> None:
        price = level.price
        if is_bid:
            self.changed_bids.add(price)
            if not level.orders:
                del self.bids[price]
                keys = self.bid_keys
                if keys[-1] == price:
                    keys.pop()
                else:
                    del keys[bisect_left(keys, price)]
        else:
            self.changed_asks.add(price)
            if not level.orders:
                del self.asks[price]
                keys = self.ask_keys
                key = -price
                if keys[-1] == key:
                    keys.pop()
                else:
                    del keys[bisect_left(keys, key)]

    def levels(self, bids: bool, depth: int) -> list[Level]:
        """The best ``depth`` levels of one side, best first."""
        if bids:
            return [self.bids[k] for k in self.bid_keys[: -depth - 1 : -1]]
        return [self.asks[-k] for k in self.ask_keys[: -depth - 1 : -1]]

    def iter_levels(self, bids: bool) -> Iterator[Level]:
        """Levels of one side, best first, lazily (stop early when walking for liquidity)."""
        if bids:
            for k in reversed(self.bid_keys):
                yield self.bids[k]
        else:
            for k in reversed(self.ask_keys):
                yield self.asks[-k]

    def size_at(self, bids: bool, price: Decimal) -> Decimal:
        """Total resting size at ``price`` on one side (zero if no level)."""
        level = (self.bids if bids else self.asks).get(price)
        return level.total if level is not None else ZERO

    def mid(self) -> Decimal | None:
        """Midpoint of the best bid and ask, or None if a side is empty."""
        if self.bid_keys and self.ask_keys:
            return (self.bid_keys[-1] - self.ask_keys[-1]) / 2
        return None
