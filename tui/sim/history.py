"""A past for the local exchange's charts: weeks of candles for every instrument, price type and resolution.

The exchange starts with no trades, so without this a chart opened at start holds one candle. The past is
generated from the market's seed, not replayed, and lazily: a resolution of a series (instrument, price type)
is made the first time it is asked for (``CandleStore.query``, or the open candle a ``chart`` event carries),
so start-up does none of this work and a chart no one opens costs nothing. Each is made once and then lives
in the candle store like any other candle, under the same cap per series.

It ends where the live market starts (the bucket and price of the engine's first candles), so the live chart
continues it without a jump: the last past close is the first live open. Going back from there, the path is
made in steps that get coarser with age (the coarse past from a few hundred steps, fine steps only where a
fine chart looks):

- the last 6 hours (back to a whole hour) minute by minute;
- before that, 2 days (back to midnight) in 5-minute steps;
- before that, 10 days in hourly steps;
- before that, about 150 days (back to a Monday) day by day.

A resolution's candles are the aggregates of every step no wider than it (open of the first, close of the
last, the highest high, the lowest low, the volumes summed), so a 1h candle is exactly its 1-minute candles
where those exist and its 5-minute ones before; a 5m chart reaches back over the minute and 5-minute parts
only, a 15m or 30m one likewise. Prices are whole ticks and volumes whole lots, so the sums are exact.
Counts at start: 1m 360 to 419, 5m ~650, 15m ~220, 30m ~110, 1h ~290, 4h ~73, 1D ~163, 1W ~23. Cost: a
resolution's first query walks only the steps it needs: ~2 ms for 1m, ~5 ms for 1h, ~9 ms for all eight.

The path is a random walk in log-price at the instrument's volatility (``ANNUAL_VOL``), in quiet and busy
stretches (volume follows the stretch and the size of each move, so it clusters); a stable pair is instead
pulled back to its peg within a basis point or two. A spot pair and a perp on the same asset share one path.
Index candles are the path; mark and last-trade candles add a little noise of their own; only last-trade
candles have volume (mark and index have none, live or past).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from .engine import Exchange
from .engine.candles import RESOLUTIONS, Candle, bucket_of

__all__ = ["ANNUAL_VOL", "BUSY", "DEFAULT_VOL", "QUIET", "YEAR_MS", "MarketPast", "PastSpec", "past_candles"]

MINUTE, FIVE, HOUR, DAY, WEEK = 60_000, 300_000, 3_600_000, 86_400_000, 604_800_000
# how far back each width of step goes before the next coarser one takes over (each back to a whole hour,
# day, day and Monday), and what that gives at start: 1m 360 to 419 candles; 5m ~650, 15m ~220, 30m ~110;
# 1h ~290, 4h ~73; 1D ~163, 1W ~23
MINUTE_HOURS = 6
FIVE_DAYS = 2
HOUR_DAYS = 10
DAILY_DAYS = 150
YEAR_MS = 365 * DAY
# annualised volatility by base asset (BTC: ~2.6% a day); other assets get DEFAULT_VOL
ANNUAL_VOL = {"BTC": 0.5, "ETH": 0.65, "SOL": 0.85, "HYPE": 1.0}
DEFAULT_VOL = 0.8
# a stretch multiplies volatility (and trading) by one of these; their mean square is ~1, so the long-run
# volatility stays ANNUAL_VOL
QUIET, BUSY = 0.6, 1.3
STRETCH_MS = {MINUTE: 45 * MINUTE, FIVE: 2 * HOUR, HOUR: 6 * HOUR, DAY: 7 * DAY}  # how long a stretch lasts, on average
PEG_BP = 1.0  # a stable pair's typical distance from its peg, in basis points
PEG_PULL = 0.3  # ... and the share of it that goes each step
NOISE = {"index": 0.0, "mark": 0.05, "ltp": 0.15}  # a price type's own noise, in units of a step's volatility
WICK = 0.4  # how far highs and lows reach beyond open and close, in units of a step's volatility


@dataclass(frozen=True, slots=True)
class PastSpec:
    """What the past of one series needs: where it ends, and how the instrument moves and trades."""

    seed: int
    instrument: str  # its name: the series' own randomness (wicks, noise, volume) is drawn from it
    chart_type: str  # mark, index or ltp
    tick: Decimal
    lot: Decimal
    end_ms: int  # the first live candle's bucket: the past ends just before it
    end_price: Decimal  # ... and closes at its open
    annual_vol: float
    stable: bool = False
    notional_per_minute: float = 50_000.0  # quote value traded in an ordinary minute (last-trade candles)
    path: str = ""  # the path's name (default: the instrument's): a spot pair and a perp on one asset share it


@dataclass(slots=True)
class _Part:
    """Steps of one width, oldest first: prices in ticks, volumes in lots."""

    step_ms: int
    start_ms: int
    opens: list[int]
    highs: list[int]
    lows: list[int]
    closes: list[int]
    volumes: list[int]


def _bounds(end_ms: int) -> list[tuple[int, int, int]]:
    """(step, from, to) of each part, newest first."""
    minutes_from = bucket_of(end_ms - MINUTE_HOURS * HOUR, HOUR)
    fives_from = bucket_of(minutes_from - FIVE_DAYS * DAY, DAY)
    hours_from = fives_from - HOUR_DAYS * DAY
    days_from = bucket_of(hours_from - DAILY_DAYS * DAY, WEEK)
    return [
        (MINUTE, minutes_from, end_ms),
        (FIVE, fives_from, minutes_from),
        (HOUR, hours_from, fives_from),
        (DAY, days_from, hours_from),
    ]


class _Steps:
    """The walk going back from the end, one part at a time; the path's randomness is the asset's and the
    seed's, the wicks', noise's and volume's the series' own."""

    def __init__(self, spec: PastSpec) -> None:
        self.spec = spec
        self.path_rng = random.Random(f"{spec.seed}:{spec.path or spec.instrument}:path")
        self.own_rng = random.Random(f"{spec.seed}:{spec.instrument}:{spec.chart_type}")
        self.x = 0.0  # log-price against the end price
        self.busy = False
        self.scale = float(spec.end_price / spec.tick)  # the end price in ticks
        self.peg = -math.log(float(spec.end_price)) if spec.stable else 0.0  # log of 1 against the end price
        self.lot_value = float(spec.lot * spec.end_price)
        self.at_end = True  # the newest step closes exactly at the end price, noise or not

    def part(self, step_ms: int, start_ms: int, end_ms: int) -> _Part:
        spec, path_rng, own = self.spec, self.path_rng, self.own_rng
        n = (end_ms - start_ms) // step_ms
        if spec.stable:  # a mean-reverting deviation from the peg, the same size at every step width
            sigma = PEG_BP * 1e-4
            shock = sigma * math.sqrt(1 - (1 - PEG_PULL) ** 2)
        else:
            sigma = spec.annual_vol * math.sqrt(step_ms / YEAR_MS)
        switch = step_ms / STRETCH_MS[step_ms]
        noise = NOISE[spec.chart_type] * sigma
        lots_per_step = spec.notional_per_minute * step_ms / MINUTE / self.lot_value if spec.chart_type == "ltp" else 0
        scale, exp, log, gauss, uniform = self.scale, math.exp, math.log, path_rng.gauss, own.random
        stable, peg, keep = spec.stable, self.peg, 1 - PEG_PULL
        opens, highs, lows, closes, volumes = [0] * n, [0] * n, [0] * n, [0] * n, [0] * n
        x = self.x
        px = scale * exp(x)  # the price at x, in ticks (a float)
        for i in range(n - 1, -1, -1):  # newest first: step i closes at x and opens where the walk goes back to
            if path_rng.random() < switch:
                self.busy = not self.busy
            stretch = BUSY if self.busy else QUIET
            if stable:
                older = peg + (x - peg) * keep + gauss(0.0, shock)
                s = sigma
            else:
                s = sigma * stretch
                older = x + gauss(0.0, s)
            po = scale * exp(older)
            pc = px * exp(own.gauss(0.0, noise)) if noise and not self.at_end else px
            self.at_end = False
            o, c = round(po), round(pc)
            hi = round(max(po, pc) * (1.0 - WICK * s * log(1.0 - uniform())))
            lo = round(min(po, pc) * (1.0 + WICK * s * log(1.0 - uniform())))
            opens[i], closes[i] = max(1, o), max(1, c)
            highs[i], lows[i] = max(1, o, c, hi), max(1, min(o, c, lo))
            if lots_per_step:
                size = stretch * (0.5 + abs(older - x) / s) * (0.5 + uniform()) / 1.3  # mean: stretch
                volumes[i] = int(lots_per_step * size)
            x, px = older, po
        self.x = x
        return _Part(step_ms, start_ms, opens, highs, lows, closes, volumes)


def _aggregate(parts: list[_Part], res_ms: int, tick: Decimal, lot: Decimal) -> list[Candle]:
    """The steps of ``parts`` (oldest first) merged into buckets of ``res_ms``."""
    out: list[Candle] = []
    t = b = -1
    o = h = low = c = v = 0

    def flush() -> None:
        candle = Candle(b, tick * o, lot * v)
        candle.high, candle.low, candle.close = tick * h, tick * low, tick * c
        out.append(candle)

    for p in parts:
        step = p.step_ms
        for i in range(len(p.opens)):
            t = p.start_ms + i * step
            bucket = bucket_of(t, res_ms)
            if bucket != b:
                if b >= 0:
                    flush()
                b, o, h, low, v = bucket, p.opens[i], p.highs[i], p.lows[i], 0
            elif p.highs[i] > h:
                h = p.highs[i]
            if p.lows[i] < low:
                low = p.lows[i]
            c = p.closes[i]
            v += p.volumes[i]
    if b >= 0:
        flush()
    return out


def past_candles(spec: PastSpec, resolutions: Iterable[str] = RESOLUTIONS) -> dict[str, list[Candle]]:
    """The candles of the past of ``spec``'s series, oldest first and ending before ``end_ms``, at each of
    ``resolutions``; only the steps those need are walked."""
    wanted = [r for r in resolutions if r in RESOLUTIONS]
    if not wanted:
        return {}
    bounds = _bounds(spec.end_ms)
    widest = max(RESOLUTIONS[r] for r in wanted)
    steps = _Steps(spec)
    newest_first = [steps.part(*b) for b in bounds if b[0] <= widest]
    parts = newest_first[::-1]
    return {
        r: _aggregate([p for p in parts if p.step_ms <= RESOLUTIONS[r]], RESOLUTIONS[r], spec.tick, spec.lot)
        for r in wanted
    }


def base_asset(name: str) -> str:
    """``BTC`` of ``BTC-PERP`` and of ``BTC/USDC``."""
    return name.split("-")[0].split("/")[0]


class MarketPast:
    """The past of the engine's instruments, for ``CandleStore.past``. It ends where the engine's candles start:
    made when the engine is, before the market first moves."""

    def __init__(self, engine: Exchange, seed: int, notional_per_minute: float) -> None:
        self.engine = engine
        self.seed = seed
        self.notional_per_minute = notional_per_minute
        now = engine.clock.now_ms()
        self.end = {m.id: (bucket_of(now, MINUTE), m.index) for m in engine.markets.values()}

    def __call__(self, instrument_id: int, chart_type: str, resolutions: Iterable[str]) -> dict[str, list[Candle]]:
        m = self.engine.markets[instrument_id]
        end_ms, end_price = self.end[instrument_id]
        asset = base_asset(m.name)
        stable = bool(getattr(m.spec, "stable_pair", False))
        spec = PastSpec(
            self.seed,
            m.name,
            chart_type,
            m.tick,
            m.lot,
            end_ms,
            end_price,
            ANNUAL_VOL.get(asset, DEFAULT_VOL),
            stable,
            self.notional_per_minute,
            path=m.name if stable else asset,
        )
        return past_candles(spec, resolutions)
