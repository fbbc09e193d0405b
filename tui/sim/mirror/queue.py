"""The queue model of a mirror: a resting order fills no sooner than it would have on the source.

When an order rests here, the size resting on the source at its price and side, in the first book of the source
read after the order arrived (``SourceTape.queued``), is what queued ahead of it; until that book is read, the
order is not in the queue and the source's trades do not fill it. Each trade the source prints at its price or
through it (at or below a bid's price, at or above an ask's) first uses up that queue; what trades beyond it is
this order's to fill. The makers never quote across such an order (``MirroredMarket``), so it fills only here:
at its own price, from the makers' account, at most what the source traded past its queue. Orders fill in this
book's price-time priority, so an order waits while one ahead of it on its side has nothing to fill yet.

Two orders of this exchange at one price are each credited the source's volume in full (neither counts the
other as ahead): the source never saw either of them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from decimal import Decimal

from ..engine import Exchange, OrderRequest, Rejected
from ..engine.accounts import Order
from ..engine.markets import Market
from .tape import SourceTape, TapeTrade

__all__ = ["FILL_MODELS", "QueueModel"]

FILL_MODELS = ("queue", "optimistic")  # optimistic: a resting order fills when the makers' quotes reach it


class QueueModel:
    def __init__(self, engine: Exchange, maker: str) -> None:
        self.engine = engine
        self.maker = maker
        self.ahead: dict[int, Decimal] = {}  # order id -> the source's volume still queued ahead of it
        self.owed: dict[int, Decimal] = {}  # order id -> volume traded past its queue, not yet filled here

    def resting(self, m: Market, is_buy: bool) -> Iterator[Order]:
        """The orders of this exchange's users resting on one side of ``m``, best first, oldest first."""
        book = m.book
        keys, levels = (book.bid_keys, book.bids) if is_buy else (book.ask_keys, book.asks)
        for key in reversed(keys):
            for order in levels[key if is_buy else -key].orders:
                if order.account.addr != self.maker:
                    yield order

    def arrive(self, markets: Iterable[Market], tape: SourceTape) -> None:
        """Note the queue ahead of each order not seen before; forget the orders that are gone."""
        live: set[int] = set()
        tape.watched.clear()
        for m in markets:
            for is_buy in (True, False):
                for order in self.resting(m, is_buy):
                    live.add(order.oid)
                    tape.watched.add(m.name)
                    if order.oid not in self.ahead:
                        ahead = tape.queued(m.name, is_buy, order.price, order.created_ms)
                        if ahead is not None:  # else noted once the source's book is read after it arrived
                            self.ahead[order.oid] = ahead
                            self.owed[order.oid] = Decimal(0)
        for oid in self.ahead.keys() - live:  # filled or cancelled
            del self.ahead[oid], self.owed[oid]

    def trade(self, m: Market, trade: TapeTrade) -> None:
        """A source trade: it uses up the queue of every order at or behind its price, then is theirs."""
        for is_buy in (True, False):
            for order in self.resting(m, is_buy):
                through = trade.price <= order.price if is_buy else trade.price >= order.price
                ahead = self.ahead.get(order.oid)
                if not through or ahead is None:
                    continue
                used = min(ahead, trade.size)
                self.ahead[order.oid] = ahead - used
                self.owed[order.oid] += trade.size - used

    def fill(self, m: Market) -> bool:
        """Fill what the source traded past each order's queue, in price-time priority; True if anything filled."""
        filled = False
        for is_buy in (True, False):
            for order in list(self.resting(m, is_buy)):
                owed = self.owed.get(order.oid, Decimal(0))
                size = (min(owed, order.unfilled) // m.lot) * m.lot
                if size <= 0:
                    break  # the orders behind this one wait for it, as price-time priority has it
                before = order.unfilled
                # the makers take it (their own quotes ahead of it are cancelled: self-trade prevention), however
                # small: a remainder below the minimum notional fills as the source traded it
                take = OrderRequest(m.id, not is_buy, order.price, size, "IOC")
                with contextlib.suppress(Rejected):
                    self.engine.place_order(self.maker, take, any_notional=True)
                done = before - order.unfilled
                self.owed[order.oid] = owed - done
                filled = filled or done > 0
                if order.unfilled:
                    break
        return filled
