"""What a mirror reads from its source on each poll: the tickers, and each instrument's new trades and book.

Prices come from the tickers, as before. The trades and the book feed the queue model (``queue``): a resting
order here fills only after the source's volume at or through its price has used up what queued ahead of it
there. Trades are the source's ``trades`` endpoint, kept from the second poll on (those of the first poll are
the source's past: the high-water mark of each instrument's trade ids); the book is its ``orderbook`` to
``BOOK_DEPTH`` levels. A trade or book request that fails leaves that instrument out of this poll only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import cast

from tui.api import models as m
from tui.api.client import Client

__all__ = ["BOOK_DEPTH", "TRADES_LIMIT", "SourceAnswer", "SourceTape", "TapeTrade", "read_answer"]

BOOK_DEPTH = 20  # levels a side: deeper than any order placed near the touch waits behind
TRADES_LIMIT = 100  # trades an instrument may print between two polls before some go unseen


@dataclass(frozen=True, slots=True)
class SourceAnswer:
    """One poll of the source: its tickers, and each instrument's latest trades (oldest first) and book."""

    tickers: list[m.Ticker]
    trades: dict[str, list[m.Trade]] = field(default_factory=dict)
    books: dict[str, m.OrderBook] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TapeTrade:
    """A trade printed on the source since the last poll."""

    instrument: str
    price: Decimal
    size: Decimal


async def read_answer(client: Client, names: Iterable[str]) -> SourceAnswer:
    """Tickers (a failure raises: the source cannot be followed), then each instrument's trades and book."""
    names = sorted(names)
    calls = [client.trades(n, TRADES_LIMIT) for n in names] + [client.orderbook(n, BOOK_DEPTH) for n in names]
    got_tickers, *rest = await asyncio.gather(client.ticker(), *calls, return_exceptions=True)
    if isinstance(got_tickers, BaseException):
        raise got_tickers
    tickers = cast("list[m.Ticker]", got_tickers)
    trades = {
        n: sorted(got, key=lambda t: t.trade_id)
        for n, got in zip(names, rest[: len(names)], strict=True)
        if isinstance(got, list)
    }
    books = {n: got for n, got in zip(names, rest[len(names) :], strict=True) if isinstance(got, m.OrderBook)}
    return SourceAnswer(tickers, trades, books)


class SourceTape:
    """The source's books as last read, and which of its trades were already seen (by trade id)."""

    def __init__(self) -> None:
        self.books: dict[str, m.OrderBook] = {}
        self.seen: dict[str, int] = {}  # instrument -> the highest trade id read

    def take(self, answer: SourceAnswer) -> list[TapeTrade]:
        """The answer's trades not seen before, oldest first; its books replace the last ones."""
        self.books.update(answer.books)
        fresh: list[TapeTrade] = []
        for name in sorted(answer.trades):
            trades = answer.trades[name]
            last = self.seen.get(name)
            self.seen[name] = max(trades[-1].trade_id if trades else 0, last or 0)
            if last is None:  # the first read: the source's past, not trades made while this mirror listened
                continue
            fresh += [TapeTrade(name, t.price, t.size) for t in trades if t.trade_id > last]
        return fresh

    def queued(self, name: str, is_buy: bool, price: Decimal) -> Decimal:
        """The size resting on the source at ``price`` on that side, as last read (0: no such level)."""
        book = self.books.get(name)
        if book is None:
            return Decimal(0)
        for level in book.bids if is_buy else book.asks:
            if level.price == price:
                return level.size
        return Decimal(0)
