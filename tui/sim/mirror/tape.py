"""What a mirror reads from its source on each poll: the tickers, and each instrument's new trades and book.

Prices come from the tickers, as before. The trades and the book feed the queue model (``queue``): a resting
order here fills only after the source's volume at or through its price has used up what queued ahead of it
there. Trades are the source's ``trades`` endpoint, kept from the second poll on (those of the first poll are
the source's past: the high-water mark of each instrument's trade ids); the book is its ``orderbook`` to
``BOOK_DEPTH`` levels. A trade or book request that fails leaves that instrument out of this poll only.

Two requests an instrument a poll would soon pass the source's hourly /info limit (200,000: ~55 a second) on an
exchange with many instruments, and a limited ticker leaves the mirror stale. So a poll reads the trades and
books of at most ``DEPTH_READS_PER_S`` instruments a second (``SourceTape.depth_names``): those with a user's
order resting on them every poll (the queue model needs them), the others in turn.
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
DEPTH_READS_PER_S = 12  # instruments whose trades and book are read a second: ~25 requests with the ticker


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
        self.book_ms: dict[str, int] = {}  # instrument -> when its book was last read (the exchange's clock)
        self.seen: dict[str, int] = {}  # instrument -> the highest trade id read
        self.watched: set[str] = set()  # instruments with a user's order resting: read every poll
        self._turn = 0  # where the next poll's reading of the other instruments starts

    def depth_names(self, names: Iterable[str], poll_ms: int) -> list[str]:
        """The instruments whose trades and book this poll reads: the watched ones, then the others in turn."""
        budget = max(1, -(-DEPTH_READS_PER_S * poll_ms // 1000))
        names = sorted(names)
        watched = [n for n in names if n in self.watched]
        others = [n for n in names if n not in self.watched]
        room = max(0, budget - len(watched))
        if room >= len(others):
            return watched + others
        start = self._turn % len(others)
        self._turn = start + room
        return watched + (others + others)[start : start + room]

    def take(self, answer: SourceAnswer, now_ms: int) -> list[TapeTrade]:
        """The answer's trades not seen before, oldest first; its books (read at ``now_ms``) replace the last ones."""
        self.books.update(answer.books)
        self.book_ms.update(dict.fromkeys(answer.books, now_ms))
        fresh: list[TapeTrade] = []
        for name in sorted(answer.trades):
            trades = answer.trades[name]
            last = self.seen.get(name)
            self.seen[name] = max(trades[-1].trade_id if trades else 0, last or 0)
            if last is None:  # the first read: the source's past, not trades made while this mirror listened
                continue
            fresh += [TapeTrade(name, t.price, t.size) for t in trades if t.trade_id > last]
        return fresh

    def unseen(self, answer: SourceAnswer) -> SourceAnswer:
        """``answer`` with only the trades ``take`` would use (what a recording keeps): those not seen before, and
        of an instrument read for the first time its last trade alone (its high-water mark)."""
        trades = {}
        for name, got in answer.trades.items():
            last = self.seen.get(name)
            trades[name] = got[-1:] if last is None else [t for t in got if t.trade_id > last]
        return SourceAnswer(answer.tickers, trades, answer.books)

    def queued(self, name: str, is_buy: bool, price: Decimal, since_ms: int) -> Decimal | None:
        """The size resting on the source at ``price`` on that side (0: no such level) in a book read at
        ``since_ms`` or later; None until such a book is read."""
        book = self.books.get(name)
        if book is None or self.book_ms.get(name, since_ms - 1) < since_ms:
            return None
        for level in book.bids if is_buy else book.asks:
            if level.price == price:
                return level.size
        return Decimal(0)
