"""Values no exchange sends on purpose: prices at or below 0, negative sizes.

The records already refuse numbers that are not finite (``tui.api.models.base``); these checks refuse
the finite ones that make no sense. A pushed payload holding one is dropped whole before it reaches the
state, and counted as bad data (``FeedStatus.bad_frames``). Each check returns what is wrong, or None.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import TypeVar

from tui.api.models import BookData, BookLevel, Candle, Position, Ticker, Trade, WsFill, WsOrder

__all__ = [
    "absurd_book",
    "absurd_candle",
    "absurd_fill",
    "absurd_order",
    "absurd_position",
    "absurd_ticker",
    "absurd_trade",
    "first_absurd",
]

_ZERO = Decimal(0)
T = TypeVar("T")


def _levels(side: str, levels: Iterable[BookLevel]) -> str | None:
    for lv in levels:
        if lv.price <= _ZERO:
            return f"{side} price {lv.price} is not above 0"
        if lv.size < _ZERO:
            return f"{side} size {lv.size} at {lv.price} is negative"
    return None


def absurd_book(books: BookData) -> str | None:
    """A level priced at or below 0, or with a negative size (0 deletes a level: allowed)."""
    return _levels("bid", books.bids) or _levels("ask", books.asks)


def _positive(**values: Decimal) -> str | None:
    return next((f"{name} {v} is not above 0" for name, v in values.items() if v <= _ZERO), None)


def _not_negative(**values: Decimal | None) -> str | None:
    return next((f"{name} {v} is negative" for name, v in values.items() if v is not None and v < _ZERO), None)


def absurd_trade(t: Trade) -> str | None:
    return _positive(price=t.price, size=t.size)


def absurd_fill(f: WsFill) -> str | None:
    return _positive(price=f.price, size=f.size)


def absurd_candle(c: Candle) -> str | None:
    return _positive(open=c.open, high=c.high, low=c.low, close=c.close) or _not_negative(volume=c.volume)


def absurd_ticker(t: Ticker) -> str | None:
    """Prices and sizes below 0 (0 is an empty book or no trade yet); rates and changes may be negative."""
    return _not_negative(
        mark_price=t.mark_price,
        mid_price=t.mid_price,
        index_price=t.index_price,
        last_price=t.last_price,
        best_bid_price=t.best_bid_price,
        best_ask_price=t.best_ask_price,
        best_bid_size=t.best_bid_size,
        best_ask_size=t.best_ask_size,
        open_interest=t.open_interest,
        volume_24h=t.volume_24h,
    )


def absurd_order(o: WsOrder) -> str | None:
    """A negative price, size or unfilled size (a market order's price may be 0)."""
    return _not_negative(limit_price=o.limit_price, size=o.size, unfilled=o.unfilled)


def absurd_position(p: Position) -> str | None:
    """A negative entry price (the size is signed: negative is short)."""
    return _not_negative(entry_price=p.entry_price)


def first_absurd(records: Iterable[T], check: Callable[[T], str | None]) -> str | None:
    """What is wrong with the first absurd record of ``records`` under ``check``, or None."""
    return next((why for r in records if (why := check(r)) is not None), None)
