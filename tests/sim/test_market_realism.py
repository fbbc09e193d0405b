"""The synthetic market moves like a market: volatility in a realistic range, a stable pair on its peg, spot
following its perp, funding following the premium, volume clustering with volatility, a book that changes at
the top rather than all over, and a fresh market each start unless a seed is given. One simulated hour on a
frozen clock, stepped as the server steps it."""

from __future__ import annotations

import argparse
import functools
import itertools
import math
import statistics
from dataclasses import dataclass, field
from decimal import Decimal

import pytest

from tui.sim.clock import FrozenClock
from tui.sim.history import PastSpec, past_candles
from tui.sim.market import STEP_MS
from tui.sim.options import add_sim_arguments
from tui.sim.server.local_exchange import LocalExchange, SimConfig

# The tests share one simulated hour (one_hour, cached per process): run in parallel, they go to one worker
# (``--dist loadgroup``, in pyproject.toml) so that the hour is simulated once, not once a worker.
pytestmark = pytest.mark.xdist_group("market-hour")

MINUTE_STEPS = 60_000 // STEP_MS
YEAR_MINUTES = 365 * 24 * 60
SEED = 5


@dataclass
class Hour:
    """What one hour of market showed, sampled at every step."""

    minute_closes: dict[int, list[float]] = field(default_factory=dict)  # instrument -> index at each minute
    usdt: list[Decimal] = field(default_factory=list)  # USDT/USDC index, mark and last trade
    basis: list[float] = field(default_factory=list)  # |spot BTC - BTC-PERP| / BTC-PERP, indexes
    premium: list[float] = field(default_factory=list)  # BTC-PERP (mark - index) / index
    funding: list[float] = field(default_factory=list)  # BTC-PERP's funding rate after each step
    interest: float = 0.0
    still_steps: int = 0  # steps in which BTC-PERP's touch stayed ...
    still_changes: int = 0  # ... and the levels that changed in them


@functools.cache
def one_hour(seed: int) -> Hour:
    sim = LocalExchange(SimConfig(seed=seed, market=True), FrozenClock())
    markets = sim.engine.markets
    btc, spot_btc, usdt = markets[1], markets[101], markets[103]
    hour = Hour(interest=float(sim.engine.config.funding_interest))
    last_book = _levels(sim)
    for step in range(60 * MINUTE_STEPS):
        sim.step(STEP_MS)
        hour.usdt += [usdt.index, usdt.mark] + ([usdt.last] if usdt.last is not None else [])
        hour.basis.append(abs(float(spot_btc.index - btc.index)) / float(btc.index))
        hour.premium.append(float((btc.mark - btc.index) / btc.index))
        hour.funding.append(float(btc.funding_rate))
        if step % MINUTE_STEPS == 0:
            for m in (1, 2, 3, 4):
                hour.minute_closes.setdefault(m, []).append(float(markets[m].index))
        book = _levels(sim)
        if book[0][:1] == last_book[0][:1] and book[1][:1] == last_book[1][:1]:
            hour.still_steps += 1
            for side, before in zip(book, last_book, strict=True):
                hour.still_changes += sum(a != b for a, b in zip(before, side, strict=False))
                hour.still_changes += abs(len(side) - len(before))
        last_book = book
    return hour


def _levels(sim: LocalExchange) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """BTC-PERP's bids and asks, 12 a side, as (price, size)."""
    book = sim.engine.orderbook("BTC-PERP", 12)
    bids = [(str(b["price"]), str(b["size"])) for b in book["bids"]]
    return bids, [(str(a["price"]), str(a["size"])) for a in book["asks"]]


def annualised(closes: list[float]) -> float:
    returns = [math.log(b / a) for a, b in itertools.pairwise(closes)]
    return statistics.pstdev(returns) * math.sqrt(YEAR_MINUTES)


@pytest.mark.long
def test_volatility_is_that_of_a_market_not_of_a_coin_toss() -> None:
    hour = one_hour(SEED)
    # BTC ~50% a year in the long run, ~30% in a quiet stretch, ~65% in a busy one: not 0.5% a minute
    assert 0.15 < annualised(hour.minute_closes[1]) < 1.0
    for m in (2, 3, 4):  # the others a little busier, none wild
        assert 0.15 < annualised(hour.minute_closes[m]) < 1.6, m
    closes = hour.minute_closes[1]
    assert max(closes) / min(closes) < 1.03  # no hour moves BTC more than a few percent


def test_a_stable_pair_stays_on_its_peg() -> None:
    usdt = one_hour(SEED).usdt
    assert max(abs(p - 1) for p in usdt) <= Decimal("0.0005")  # index, mark, trades: within 5 bp, always
    assert len(set(usdt)) > 2  # but not frozen


def test_spot_follows_its_perp() -> None:
    assert max(one_hour(SEED).basis) < 0.0005


def test_funding_follows_the_premium() -> None:
    hour = one_hour(SEED)
    assert 0.5e-4 < statistics.pstdev(hour.premium) < 20e-4  # the mark leaves the index by basis points
    # funding is the premium averaged since the last settlement, / 8, plus interest: it leaves the interest
    # rate, to the side the premium has been on
    excess = [f - hour.interest for f in hour.funding]
    assert max(abs(x) for x in excess) > 2e-6
    sides = []
    for i in range(MINUTE_STEPS, len(excess), MINUTE_STEPS):
        premium = statistics.mean(hour.premium[: i + 1])
        if abs(premium) > 2e-5:
            sides.append(premium * excess[i] > 0)
    assert len(sides) > 10 and sum(sides) >= 0.9 * len(sides)


def test_the_book_changes_at_the_top_not_all_over() -> None:
    hour = one_hour(SEED)
    # while the touch stays, a step changes a level or two (a taker's fill, the refill), not the whole ladder
    assert hour.still_steps > 1_000 and hour.still_changes / hour.still_steps < 2


def test_volume_clusters_with_volatility() -> None:
    spec = PastSpec(9, "BTC-PERP", "ltp", Decimal("0.1"), Decimal("0.001"), 1_767_225_600_000, Decimal(100_000), 0.5)
    minutes = past_candles(spec, ["1"])["1"]
    volume = [float(c.volume) for c in minutes]
    size = [float(c.high - c.low) for c in minutes]
    assert statistics.correlation(volume, size) > 0.3  # busy minutes trade more
    assert statistics.correlation(volume[:-1], volume[1:]) > 0.2  # and come in runs


def test_a_fresh_market_each_start_unless_a_seed_is_given() -> None:
    clock = FrozenClock()
    seeds = {LocalExchange(SimConfig(market=False), clock).seed for _ in range(3)}
    assert len(seeds) == 3
    assert LocalExchange(SimConfig(seed=42, market=False), clock).seed == 42
    parser = argparse.ArgumentParser()
    add_sim_arguments(parser)
    assert parser.parse_args([]).seed is None and parser.parse_args(["--seed", "42"]).seed == 42
    one, two = (LocalExchange(SimConfig(seed=s, market=True), clock).engine for s in (42, 42))
    assert one.chart(1, "ltp", "1D", 0, clock.now_ms()) == two.chart(1, "ltp", "1D", 0, clock.now_ms())
