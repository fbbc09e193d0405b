"""The synthetic market: a seeded random walk of index prices, makers quoting ladders, takers crossing.

It trades through the engine's own order entry, as exchange-owned accounts, so everything it does is
subject to the same rules as a user's orders and shows up in books, the tape, tickers and candles.
Prices move in whole ticks drawn from integers, so no float ever becomes money.
"""

from __future__ import annotations

import contextlib
import random
from decimal import Decimal

from .engine import Exchange, OrderRequest, Rejected
from .engine.core import derived_address
from .engine.instruments import USDC_ID
from .engine.markets import Market

STEP_MS = 250
LEVELS = 12  # per side
REQUOTE_EVERY = 8  # steps; sooner when the index has moved
TAKER_CHANCE = 0.25  # per market per step
MAKER_USDC = Decimal(10) ** 12
MAX_CATCH_UP_STEPS = 40  # after a pause, jump ahead instead of replaying minutes of market


class SyntheticMarket:
    def __init__(self, engine: Exchange, seed: int) -> None:
        self.engine = engine
        self.rng = random.Random(seed)
        self.markets: list[Market] = sorted(engine.markets.values(), key=lambda m: m.id)
        self.anchor = {m.id: m.index for m in self.markets}
        self.maker = derived_address("market-maker")
        self.taker = derived_address("market-taker")
        for who in (self.maker, self.taker):
            engine.deposit(who, USDC_ID, MAKER_USDC)
            for c in engine.collaterals.values():
                engine.deposit(who, c.id, MAKER_USDC if c.id == USDC_ID else Decimal(10) ** 7, spot=True)
        self.quoted_at: dict[int, Decimal] = {}
        self.steps = 0
        self.next_ms = engine.clock.now_ms()

    def step(self, now_ms: int) -> None:
        """Run every market step due by ``now_ms``."""
        if now_ms - self.next_ms > MAX_CATCH_UP_STEPS * STEP_MS:
            self.next_ms = now_ms - MAX_CATCH_UP_STEPS * STEP_MS
        while self.next_ms <= now_ms:
            self._step()
            self.next_ms += STEP_MS

    def _step(self) -> None:
        self.steps += 1
        for m in self.markets:
            self._walk(m)
            quoted = self.quoted_at.get(m.id)
            tick = m.tick
            if quoted is None or abs(m.index - quoted) >= 2 * tick or self.steps % REQUOTE_EVERY == 0:
                self._quote(m)
            if self.rng.random() < TAKER_CHANCE:
                self._take(m)

    def _walk(self, m: Market) -> None:
        """Move the index by a whole number of ticks: ~0.04% a step, pulled gently back to its start."""
        tick = m.tick
        price = m.index
        ticks_per_sigma = max(1, int(price * Decimal("0.0004") / tick))
        pull = -int((price - self.anchor[m.id]) / (self.anchor[m.id] * Decimal("0.02")))  # reverts past ~2%
        move = round(self.rng.gauss(pull * 0.05, 1.0) * ticks_per_sigma)
        new = price + move * tick
        if new > 0 and move:
            self.engine.set_index_price(m.id, new)

    def _quote(self, m: Market) -> None:
        e = self.engine
        tick, lot = m.tick, m.lot
        e.cancel_by_instrument(self.maker, m.id)
        index = m.index
        gap = max(tick, _floor(index * Decimal("0.0001"), tick))
        half_spread = max(tick, _floor(index * Decimal("0.0002"), tick))
        base_size = max(lot, _floor(Decimal(2_000) / index, lot))
        orders = []
        for i in range(LEVELS):
            size = base_size * (1 + self.rng.randrange(8) + i // 3)
            bid = _floor(index - half_spread - i * gap, tick)
            ask = _floor(index + half_spread + i * gap, tick) + tick
            if bid > 0:
                orders.append(OrderRequest(m.id, True, bid, size, post_only=False))
            orders.append(OrderRequest(m.id, False, ask, size))
        with contextlib.suppress(Rejected):  # a quote the rules refuse (a price band after a jump) is skipped
            e.place_orders(self.maker, orders)
        self.quoted_at[m.id] = index

    def _take(self, m: Market) -> None:
        buy = self.rng.random() < 0.5
        base = max(m.lot, _floor(Decimal(500) / m.index, m.lot))
        size = base * (1 + int(self.rng.expovariate(0.5)))
        bound = m.index * (Decimal("1.01") if buy else Decimal("0.99"))
        price = _floor(bound, m.tick)
        with contextlib.suppress(Rejected):  # nothing to hit at a sane price
            self.engine.place_orders(self.taker, [OrderRequest(m.id, buy, price, size, tif="IOC", is_market=True)])


def _floor(value: Decimal, step: Decimal) -> Decimal:
    return (value // step) * step
