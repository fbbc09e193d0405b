"""The order book of the selected instrument, kept as two price → size dicts.

Updates touch only the levels they name (O(changed levels)); nothing is sorted per message. The sorted
price lists are built when someone reads the book and cached until a level appears or disappears, so
a stream that only changes sizes never re-sorts at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Literal

from tui.api.models import BookLevel

__all__ = ["BookState", "Side"]

Side = Literal["bids", "asks"]


def _apply_side(book: dict[Decimal, Decimal], levels: Iterable[BookLevel]) -> bool:
    """Set absolute sizes (0 deletes); True when the set of prices changed (the sort cache is stale)."""
    reshaped = False
    for level in levels:
        price, size = level.price, level.size
        if size > 0:
            if price not in book:
                reshaped = True
            book[price] = size
        elif size == 0:
            if book.pop(price, None) is not None:
                reshaped = True
        else:
            raise ValueError(f"negative size {size} at price {price}")
    return reshaped


class BookState:
    """One instrument's book: ``sequence`` is the last applied update, ``updated`` the monotonic time
    of the last change. ``loaded`` is False until a snapshot arrived; ``stale`` is True after a
    sequence gap until the next snapshot (the levels may then be wrong)."""

    __slots__ = (
        "_ask_prices",
        "_asks",
        "_bid_prices",
        "_bids",
        "loaded",
        "sequence",
        "snapshots",
        "stale",
        "symbol",
        "timestamp_ms",
        "updated",
    )

    def __init__(self, symbol: str) -> None:
        self.symbol = symbol
        self.sequence = -1
        self.updated = 0.0
        self.timestamp_ms: int | None = None  # the exchange's time of the last frame
        self.loaded = False
        self.stale = False
        self.snapshots = 0  # counts replacements, so a resync can tell a newer snapshot came meanwhile
        self._bids: dict[Decimal, Decimal] = {}
        self._asks: dict[Decimal, Decimal] = {}
        self._bid_prices: list[Decimal] | None = None  # best first; None when stale
        self._ask_prices: list[Decimal] | None = None

    # ---- writing --------------------------------------------------------------------------------

    def replace(
        self, bids: Iterable[BookLevel], asks: Iterable[BookLevel], sequence: int, timestamp_ms: int, now: float
    ) -> None:
        """Take a full snapshot (levels of size 0 are left out)."""
        new_bids: dict[Decimal, Decimal] = {}
        new_asks: dict[Decimal, Decimal] = {}
        _apply_side(new_bids, bids)
        _apply_side(new_asks, asks)
        self._bids, self._asks = new_bids, new_asks
        self._bid_prices = self._ask_prices = None
        self.sequence = sequence
        self.timestamp_ms = timestamp_ms
        self.updated = now
        self.loaded = True
        self.stale = False
        self.snapshots += 1

    def apply(
        self, bids: Iterable[BookLevel], asks: Iterable[BookLevel], sequence: int, timestamp_ms: int, now: float
    ) -> None:
        """Apply one update of absolute level sizes. A negative size raises ``ValueError`` (bad data);
        levels before it are applied, so the caller marks the book stale and resyncs."""
        if _apply_side(self._bids, bids):
            self._bid_prices = None
        if _apply_side(self._asks, asks):
            self._ask_prices = None
        self.sequence = sequence
        self.timestamp_ms = timestamp_ms
        self.updated = now

    # ---- reading --------------------------------------------------------------------------------

    def _prices(self, side: Side) -> list[Decimal]:
        if side == "bids":
            if self._bid_prices is None:
                self._bid_prices = sorted(self._bids, reverse=True)
            return self._bid_prices
        if side == "asks":
            if self._ask_prices is None:
                self._ask_prices = sorted(self._asks)
            return self._ask_prices
        raise ValueError(f"side must be 'bids' or 'asks', not {side!r}")

    def levels(self, side: Side, depth: int, group: Decimal | None = None) -> list[tuple[Decimal, Decimal]]:
        """Best first; with group, prices bucketed to multiples of group (bids floor, asks ceil) and sizes summed."""
        prices = self._prices(side)
        sizes = self._bids if side == "bids" else self._asks
        if group is None:
            return [(p, sizes[p]) for p in prices[:depth]]
        if group <= 0:
            raise ValueError("group must be positive")
        rounding = ROUND_FLOOR if side == "bids" else ROUND_CEILING
        out: list[tuple[Decimal, Decimal]] = []
        bucket: Decimal | None = None
        total = Decimal(0)
        for p in prices:
            b = (p / group).to_integral_value(rounding) * group
            if b != bucket:
                if bucket is not None:
                    out.append((bucket, total))
                    if len(out) >= depth:
                        return out
                bucket, total = b, Decimal(0)
            total += sizes[p]
        if bucket is not None and len(out) < depth:
            out.append((bucket, total))
        return out

    def size_at(self, side: Side, price: Decimal) -> Decimal:
        """The size resting at ``price`` (0 when none)."""
        return (self._bids if side == "bids" else self._asks).get(price, Decimal(0))

    def depth(self, side: Side) -> int:
        """How many levels the side holds."""
        return len(self._bids if side == "bids" else self._asks)

    @property
    def best_bid(self) -> Decimal | None:
        prices = self._prices("bids")
        return prices[0] if prices else None

    @property
    def best_ask(self) -> Decimal | None:
        prices = self._prices("asks")
        return prices[0] if prices else None

    @property
    def mid(self) -> Decimal | None:
        bid, ask = self.best_bid, self.best_ask
        return (bid + ask) / 2 if bid is not None and ask is not None else None

    @property
    def spread(self) -> Decimal | None:
        bid, ask = self.best_bid, self.best_ask
        return ask - bid if bid is not None and ask is not None else None

    def __repr__(self) -> str:
        return f"BookState({self.symbol} seq={self.sequence} bids={len(self._bids)} asks={len(self._asks)})"
