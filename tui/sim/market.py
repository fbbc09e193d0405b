"""The synthetic market: seeded random walks of index prices, makers quoting ladders, takers crossing.

It trades through the engine's own order entry, as exchange-owned accounts, so everything it does is
subject to the same rules as a user's orders and shows up in books, the tape, tickers and candles.
Prices move in whole ticks drawn from integers, so no float ever becomes money.

It moves like a market: each instrument at its own volatility (``tui.sim.history.ANNUAL_VOL``: BTC ~50% a
year, a few percent a day), in quiet and busy stretches (takers trade more in busy ones, so volume clusters
with volatility); a stable pair is pulled back to its peg, within a few basis points; a spot pair with a
perp on the same asset follows that perp's index. Perp makers quote around the index plus a premium that
wanders slowly (a few basis points either way), so the mark sits above or below the index for a while and
funding follows it. Makers quote a ladder on a fixed grid of prices (a level's size depends on its price),
so a small move changes the levels at the top of the book, not every level of it.

Charts open on a past (``tui.sim.history``) made from the same seed and volatilities, ending where this
market starts.
"""

from __future__ import annotations

import contextlib
import math
import random
from decimal import ROUND_CEILING, Decimal

from .engine import Exchange, OrderRequest, Rejected
from .engine.core import derived_address
from .engine.instruments import USDC_ID
from .engine.markets import Market
from .history import ANNUAL_VOL, BUSY, DEFAULT_VOL, QUIET, YEAR_MS, MarketPast, base_asset

STEP_MS = 250
LEVELS = 12  # per side
# ``--faults thin-book``: few levels, each a tenth of the size, ten grid steps apart, so size moves the price
THIN_LEVELS = 3
THIN_SIZE_DIVISOR = 10
THIN_GAP_MULTIPLE = 10
REQUOTE_EVERY = 8  # steps: sizes taken by takers are restored this often at the latest
TAKER_CHANCE = 0.25  # per market per step, in an ordinary stretch (scaled by the stretch's multiplier)
TAKER_NOTIONAL = 500  # quote value of a taker's smallest order
STRETCH_STEPS = 45 * 60_000 // STEP_MS  # a quiet or busy stretch lasts ~45 minutes on average
PEG_PULL = 0.1  # a stable pair's distance from its peg shrinks by this share a step ...
PEG_NOISE_TICKS = 0.4  # ... and moves by this much (its typical distance: ~1 tick, a basis point)
PREMIUM_BP = 3.0  # a perp's typical premium of its quotes over the index, in basis points ...
PREMIUM_STEPS = 20 * 60_000 // STEP_MS  # ... which changes over ~20 minutes
MAKER_USDC = Decimal(10) ** 12
ROBOT_HISTORY = 500  # finished orders, fills...: the robots re-quote every step, 10,000 of theirs held ~5 MB
MAX_CATCH_UP_STEPS = 40  # after a pause, jump ahead instead of replaying minutes of market
# what takers trade in an ordinary minute: chance x steps x size (1 + a geometric number, mean ~1.54)
NOTIONAL_PER_MINUTE = TAKER_CHANCE * (60_000 / STEP_MS) * TAKER_NOTIONAL * 2.54


class SyntheticMarket:
    def __init__(self, engine: Exchange, seed: int, *, thin: bool = False) -> None:
        self.engine = engine
        self.thin = thin
        self.levels = THIN_LEVELS if thin else LEVELS
        self.rng = random.Random(seed)
        self.seed = seed
        self.markets: list[Market] = sorted(engine.markets.values(), key=lambda m: m.id)
        perps = {base_asset(m.name): m for m in self.markets if m.is_perp}
        # a spot pair follows the perp on the same asset; the others walk on their own
        self.twin = {
            m.id: perps[base_asset(m.name)] for m in self.markets if not m.is_perp and base_asset(m.name) in perps
        }
        self.stable = {m.id for m in self.markets if getattr(m.spec, "stable_pair", False)}
        self.sigma = {
            m.id: ANNUAL_VOL.get(base_asset(m.name), DEFAULT_VOL) * math.sqrt(STEP_MS / YEAR_MS) for m in self.markets
        }
        self.busy = {m.id: False for m in self.markets}
        self.premium = {m.id: 0.0 for m in self.markets if m.is_perp}  # in basis points
        # the makers' ladder: levels ~1 basis point of the starting index apart, in whole ticks, for good
        self.gap = {m.id: max(m.tick, _floor(m.index * Decimal("0.0001"), m.tick)) for m in self.markets}
        if thin:
            self.gap = {i: gap * THIN_GAP_MULTIPLE for i, gap in self.gap.items()}
        self.maker = derived_address("market-maker")
        self.taker = derived_address("market-taker")
        for who in (self.maker, self.taker):
            engine.deposit(who, USDC_ID, MAKER_USDC)
            engine.accounts[who.lower()].keep_history(ROBOT_HISTORY)
            for c in engine.collaterals.values():
                engine.deposit(who, c.id, MAKER_USDC if c.id == USDC_ID else Decimal(10) ** 7, spot=True)
        self.quoted_at: dict[int, tuple[Decimal, Decimal]] = {}  # market -> (best bid, best ask) quoted
        self.steps = 0
        self.next_ms = engine.clock.now_ms()
        self._open_past()

    def _open_past(self) -> None:
        """Charts open on weeks of this market's past, which ends where it starts: made now, before it moves."""
        self.engine.candles.past = MarketPast(self.engine, self.seed, NOTIONAL_PER_MINUTE)

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
            if self.rng.random() < 1 / STRETCH_STEPS:
                self.busy[m.id] = not self.busy[m.id]
            self._walk(m)
            bid, ask = self._touch(m)
            if self.quoted_at.get(m.id) != (bid, ask) or self.steps % REQUOTE_EVERY == 0:
                self._quote(m, bid, ask)
            if self.rng.random() < TAKER_CHANCE * self._stretch(m):
                self._take(m)

    def _stretch(self, m: Market) -> float:
        return BUSY if self.busy[m.id] else QUIET

    def _walk(self, m: Market) -> None:
        """Move the index by a whole number of ticks (and a perp's premium)."""
        if m.id in self.premium:
            keep = 1 - 1 / PREMIUM_STEPS
            self.premium[m.id] = self.premium[m.id] * keep + self.rng.gauss(0.0, PREMIUM_BP * math.sqrt(1 - keep**2))
        tick = m.tick
        price = m.index
        twin = self.twin.get(m.id)
        if twin is not None:  # a spot pair: its perp's index, within a tick or two
            new = (twin.index // tick) * tick + self.rng.choice((-1, 0, 0, 1)) * tick
        elif m.id in self.stable:  # pulled back to its peg of 1
            off = (price - 1) / tick
            new = 1 + round(float(off) * (1 - PEG_PULL) + self.rng.gauss(0.0, PEG_NOISE_TICKS)) * tick
        else:
            sigma_ticks = float(price / tick) * self.sigma[m.id] * self._stretch(m)
            new = price + round(self.rng.gauss(0.0, sigma_ticks)) * tick
        if new > 0 and new != price:
            self.engine.set_index_price(m.id, new)

    def _touch(self, m: Market) -> tuple[Decimal, Decimal]:
        """Where the makers' best bid and ask go now: on the grid, a grid step or more from the index plus
        the premium."""
        gap = self.gap[m.id]
        center = m.index
        if m.id in self.premium:
            center += _floor(m.index * Decimal(round(self.premium[m.id] * 100)) / 1_000_000, m.tick)
        bid = _floor(center - gap, gap)
        ask = (((center + gap) / gap).to_integral_value(ROUND_CEILING)) * gap
        return bid, ask

    def _size(self, m: Market, price: Decimal, base: Decimal) -> Decimal:
        """A level's size: a function of its price (and the seed), so a level keeps its size as the ladder moves."""
        h = (int(price / m.tick) * 2_654_435_761 + self.seed * 97 + m.id) % 4_294_967_291
        return base * (1 + h % 8)

    def _quote(self, m: Market, best_bid: Decimal, best_ask: Decimal) -> None:
        e = self.engine
        e.cancel_by_instrument(self.maker, m.id)
        gap = self.gap[m.id]
        notional = Decimal(2_000) / THIN_SIZE_DIVISOR if self.thin else Decimal(2_000)
        base_size = max(m.lot, _floor(notional / m.index, m.lot))
        orders = []
        for i in range(self.levels):
            bid, ask = best_bid - i * gap, best_ask + i * gap
            if bid > 0:
                orders.append(OrderRequest(m.id, True, bid, self._size(m, bid, base_size), post_only=False))
            orders.append(OrderRequest(m.id, False, ask, self._size(m, ask, base_size)))
        orders = self._quotable(m, orders)
        with contextlib.suppress(Rejected):  # a quote the rules refuse (a price band after a jump) is skipped
            e.place_orders(self.maker, orders)
        self.quoted_at[m.id] = (best_bid, best_ask)

    def _quotable(self, m: Market, orders: list[OrderRequest]) -> list[OrderRequest]:
        """The makers' quotes to place (a mirror's queue model keeps those that would fill a user's order)."""
        return orders

    def _take(self, m: Market) -> None:
        buy = self.rng.random() < 0.5
        base = max(m.lot, _floor(TAKER_NOTIONAL / m.index, m.lot))
        size = base * (1 + int(self.rng.expovariate(0.5)))
        bound = m.index * (Decimal("1.01") if buy else Decimal("0.99"))
        price = _floor(bound, m.tick)
        with contextlib.suppress(Rejected):  # nothing to hit at a sane price
            self.engine.place_orders(self.taker, [OrderRequest(m.id, buy, price, size, tif="IOC", is_market=True)])


def _floor(value: Decimal, step: Decimal) -> Decimal:
    return (value // step) * step
