"""The market of a mirror: the source's index and mark, and makers quoting around that mark.

No random walk, no synthetic takers and no made-up past (the charts open on the source's own candles):
every price here is one the source gave. The
makers quote their usual ladder around the source's mark, so the user's orders match locally, and a
resting order fills when the source's price moves through it (the makers' new quotes cross it). While
the source is stale the makers pull their quotes and prices stay frozen; when it answers again they
follow it and quote again. An instrument the source's answer makes no sense for (``sanity``) is held the
same way on its own: its price kept, its quotes pulled, until the source is sane about it again.

Under the queue model (``--fills queue``, the default) the makers never quote across a user's resting order:
it fills only as the source's own trades through its price allow (``queue``). Under ``--fills optimistic`` it
fills as soon as the makers' quotes, following the source's mark, reach it.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal

from ..engine import Exchange, OrderRequest
from ..engine.markets import Market
from ..market import REQUOTE_EVERY, SyntheticMarket, _floor
from .past import SourcePast
from .queue import QueueModel
from .source import Mirror


class MirroredMarket(SyntheticMarket):
    def __init__(self, engine: Exchange, seed: int, mirror: Mirror) -> None:
        self.mirror = mirror
        self.applied = 0  # the mirror's price version last applied
        self.pulled = False  # the makers' quotes are withdrawn while the source is stale
        self.held: set[int] = set()  # markets whose quotes are withdrawn: the source's price for them is not sane
        self.source_last: dict[int, Decimal] = {}  # the source's last trade price as last applied, by market
        super().__init__(engine, seed)
        self.queue = QueueModel(engine, self.maker) if mirror.fills == "queue" else None
        self.by_name = {m.name: m for m in self.markets}
        self.follow()

    def _open_past(self) -> None:
        """Charts open on the source's own last hours (``past``): a past made up here would be invented."""
        self.engine.candles.past = SourcePast(self.mirror.past, self.engine.genesis_ms)

    def step(self, now_ms: int) -> None:
        if self.queue is not None:  # the queue ahead of an order is the source's book as it arrives
            self.queue.arrive(self.markets, self.mirror.tape)
        self.follow()
        super().step(now_ms)

    def follow(self) -> None:
        """Apply the prices of the mirror's latest poll, and pull the quotes while it is stale (a replay's last
        poll and its end can come in one step: its prices still apply)."""
        mirror, e = self.mirror, self.engine
        if mirror.live:
            self.pulled = False
            self._hold(mirror.stale)
        if mirror.version != self.applied:
            self.applied = mirror.version
            self._trade_through()
            self._apply_prices()
        if not mirror.live and not self.pulled:
            for m in self.markets:
                e.cancel_by_instrument(self.maker, m.id)
            self.quoted_at.clear()
            self.pulled = True

    def _apply_prices(self) -> None:
        mirror, e = self.mirror, self.engine
        for m in self.markets:
            price = mirror.prices.get(m.name)
            if price is None or m.id in self.held:  # a held price stays where the source last made sense
                continue
            if price.index != m.index:
                e.set_index_price(m.id, price.index)
            if price.mark != m.external_mark:
                e.set_mark_price(m.id, price.mark)
            # the source's trades move the last price; a local fill since keeps it until the source trades again
            if price.last is not None and price.last != self.source_last.get(m.id):
                self.source_last[m.id] = price.last
                e.set_last_price(m.id, price.last)

    def _trade_through(self) -> None:
        """The source's new trades: under the queue model they use up queues and fill what is past them."""
        trades, self.mirror.trades = self.mirror.trades, []
        if self.queue is None:
            return
        traded: set[int] = set()
        for trade in trades:
            m = self.by_name.get(trade.instrument)
            if m is not None:
                self.queue.trade(m, trade)
                traded.add(m.id)
        for m in self.markets:
            if m.id in traded and self.queue.fill(m):
                self.quoted_at.pop(m.id, None)  # the makers' quotes ahead of the order went: quote again

    def _quotable(self, m: Market, orders: list[OrderRequest]) -> list[OrderRequest]:
        """Under the queue model, no quote that would trade with a user's resting order."""
        if self.queue is None:
            return orders
        bid = next(self.queue.resting(m, True), None)
        ask = next(self.queue.resting(m, False), None)
        return [
            o
            for o in orders
            if not (o.is_buy and ask is not None and o.price >= ask.price)
            and not (not o.is_buy and bid is not None and o.price <= bid.price)
        ]

    def _hold(self, stale: dict[str, str]) -> None:
        """Pull the quotes of the markets the mirror holds; a market it follows again is quoted at the next step."""
        e = self.engine
        for m in self.markets:
            if m.name not in stale:
                self.held.discard(m.id)
            elif m.id not in self.held:
                e.cancel_by_instrument(self.maker, m.id)
                self.quoted_at.pop(m.id, None)
                self.held.add(m.id)

    def _step(self) -> None:
        self.steps += 1
        if self.pulled:
            return
        for m in self.markets:
            if m.id in self.held:
                continue
            bid, ask = self._touch(m)
            if self.quoted_at.get(m.id) != (bid, ask) or self.steps % REQUOTE_EVERY == 0:
                self._quote(m, bid, ask)

    def _touch(self, m: Market) -> tuple[Decimal, Decimal]:
        """The best bid and ask on the makers' grid, a grid step or more either side of the source's mark."""
        gap = self.gap[m.id]
        bid = _floor(m.mark - gap, gap)
        ask = (((m.mark + gap) / gap).to_integral_value(ROUND_CEILING)) * gap
        return bid, ask
