"""The local exchange's past: charts open on weeks of candles, consistent across resolutions and with the
live market that continues from the last of them; served by /info ``chart`` and the chart channel."""

from __future__ import annotations

import itertools
from decimal import Decimal
from typing import Any

import pytest

from tests.conftest import client_for
from tests.waiting import until
from tui.api.models import Candle
from tui.api.ws import WsClient
from tui.sim.clock import FrozenClock
from tui.sim.engine.candles import RESOLUTIONS, CandleStore
from tui.sim.engine.candles import Candle as StoreCandle
from tui.sim.history import PastSpec, past_candles
from tui.sim.market import STEP_MS
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits

TARGETS = {"1": 300, "5": 600, "15": 200, "30": 100, "60": 200, "240": 60, "1D": 60, "1W": 20}  # at start, at least
HOUR, DAY = 3_600_000, 86_400_000
LONG_AGO = 400 * 86_400  # seconds asked for: more than the past holds


@pytest.fixture
def clock() -> FrozenClock:
    """Mid-minute in mid-hour on a Thursday: the first live candle of every resolution shares its bucket with
    the past's last (but the 1-minute one, which starts on the minute)."""
    return FrozenClock(1_767_225_600_000 + 17 * 60_000 + 23_456)


@pytest.fixture
def sim_config() -> SimConfig:
    return SimConfig(seed=11, market=True, limits=Limits(), network="mainnet")


async def chart(sim: LocalExchange, clock: FrozenClock, symbol_id: int, chart_type: str, res: str) -> list[Candle]:
    async with client_for(sim, None, clock) as c:
        now = clock.now_ms() // 1000
        return await c.chart(symbol_id, chart_type, res, now - LONG_AGO, now)


def ohlcv(c: Candle) -> tuple[Decimal, ...]:
    return (c.open, c.high, c.low, c.close, c.volume)


def aggregate(candles: list[Candle], res_ms: int) -> list[Candle]:
    """What a coarser chart should hold, from a finer one (weeks start on Mondays)."""
    out: list[Candle] = []
    for c in candles:
        off = 345_600_000 if res_ms == 7 * DAY else 0
        b = c.time - (c.time - off) % res_ms
        if out and out[-1].time == b:
            last = out[-1]
            out[-1] = Candle(
                open=last.open, high=max(last.high, c.high), low=min(last.low, c.low), close=c.close,
                volume=last.volume + c.volume, time=b,
            )  # fmt: skip
        else:
            out.append(Candle(open=c.open, high=c.high, low=c.low, close=c.close, volume=c.volume, time=b))
    return out


@pytest.mark.parametrize(
    ("symbol_id", "chart_type"), [(1, "ltp"), (1, "mark"), (2, "index"), (101, "ltp"), (103, "ltp")]
)
async def test_every_chart_opens_on_history(
    sim: LocalExchange, clock: FrozenClock, symbol_id: int, chart_type: str
) -> None:
    for resolution, least in TARGETS.items():
        candles = await chart(sim, clock, symbol_id, chart_type, resolution)
        assert len(candles) >= least, (chart_type, resolution, len(candles))
        assert all(b.time - a.time == RESOLUTIONS[resolution] for a, b in itertools.pairwise(candles)), "a hole"
        assert all(c.low <= min(c.open, c.close) and c.high >= max(c.open, c.close) for c in candles)
        assert all(c.low > 0 for c in candles)
        # only trades have volume: mark and index candles have none, in the past as live
        if chart_type == "ltp":
            assert sum(c.volume for c in candles) > 0
        else:
            assert all(c.volume == 0 for c in candles)
        moves = 3 if symbol_id == 103 else len(candles) // 4  # a stable pair moves a tick or two about its peg
        assert len({c.close for c in candles}) > moves, "a flat past"


@pytest.mark.long
async def test_coarser_candles_are_the_aggregates_of_finer_ones(sim: LocalExchange, clock: FrozenClock) -> None:
    for _ in range(45 * 60_000 // (4 * STEP_MS)):  # 45 minutes of live market: the hour of the seam is whole
        sim.step(4 * STEP_MS)
    charts = {res: await chart(sim, clock, 2, "ltp", res) for res in ("1", "5", "60", "240", "1D", "1W")}
    for fine, coarse in (("1", "5"), ("1", "60"), ("60", "240"), ("60", "1D"), ("1D", "1W")):
        made = aggregate(charts[fine], RESOLUTIONS[coarse])
        whole = made[1:]  # the first may be only part of its bucket
        have = {c.time: c for c in charts[coarse]}
        assert len(whole) >= 5, (fine, coarse)
        for c in whole:
            assert ohlcv(c) == ohlcv(have[c.time]), (fine, coarse, c.time)


async def test_the_live_market_continues_from_the_past(sim: LocalExchange, clock: FrozenClock) -> None:
    index = sim.engine.markets[1].index
    start = clock.now_ms() - clock.now_ms() % 60_000
    assert start != clock.now_ms()
    *past, live = await chart(sim, clock, 1, "index", "1")
    assert live.time == start and live.open == index  # the minute open now, at the price the market starts at
    assert past[-1].close == index and past[-1].time == start - 60_000  # the past ends where it starts
    for _ in range(3 * 60_000 // STEP_MS):  # three minutes of market, a step at a time
        sim.step(STEP_MS)
    after = await chart(sim, clock, 1, "index", "1")
    assert after[: len(past)] == past  # the past stays as it was
    assert after[len(past)].open == past[-1].close  # no jump where the live market starts
    assert len(after) == len(past) + 4 and after[-1].close == sim.engine.markets[1].index
    assert after[-2].close != past[-1].close  # and the live market moves on


async def test_the_chart_channel_continues_the_past(sim: LocalExchange, clock: FrozenClock) -> None:
    """A subscriber's open weekly candle begins in the past, whether or not anyone has asked /info first."""
    pictures: list[Any] = []
    async with WsClient(sim.ws_url) as ws:
        await ws.wait_live()
        await ws.subscribe("chart", pictures.append, instrument_id=3, chart_type="mark", resolution="1W")
        await until(lambda: pictures, "the weekly chart's first picture")
    weeks = await chart(sim, clock, 3, "mark", "1W")
    days = [d for d in await chart(sim, clock, 3, "mark", "1D") if d.time >= weeks[-1].time]
    assert len(weeks) >= 20 and len(days) == 4  # Monday to Thursday
    first = pictures[0]
    assert (first["time"], first["open"], first["high"], first["low"]) == (
        weeks[-1].time, days[0].open, max(d.high for d in days), min(d.low for d in days),
    )  # fmt: skip
    assert first["open"] != sim.engine.markets[3].index  # this week began before the market did


async def test_a_seed_plays_the_same_past_and_another_does_not(clock: FrozenClock) -> None:
    def chart(seed: int, inst: int = 1, chart_type: str = "ltp") -> list[dict[str, Any]]:
        engine = LocalExchange(SimConfig(seed=seed, market=True), clock).engine
        return engine.chart(inst, chart_type, "60", 0, clock.now_ms())

    assert chart(3) == chart(3) and len(chart(3)) > 200
    assert [c["close"] for c in chart(3)] != [c["close"] for c in chart(4)]
    # spot BTC had the perp's index, but trades of its own
    assert [c["close"] for c in chart(3, 1, "index")] == [c["close"] for c in chart(3, 101, "index")]
    assert [c["volume"] for c in chart(3, 1)] != [c["volume"] for c in chart(3, 101)]


def test_the_past_is_made_in_whole_ticks_and_lots_and_ends_where_asked() -> None:
    end = 1_767_225_600_000 + 17 * 60_000
    spec = PastSpec(5, "ETH-PERP", "ltp", Decimal("0.01"), Decimal("0.01"), end, Decimal("3500.00"), 0.65)
    past = past_candles(spec)
    assert past["1"][-1].close == Decimal("3500.00") and past["1"][-1].time == end - 60_000
    for res, candles in past.items():
        assert all(c.close % Decimal("0.01") == 0 and c.volume % Decimal("0.01") == 0 for c in candles), res
        assert candles[-1].time == end - 60_000 - (end - 60_000) % RESOLUTIONS[res] or res == "1W"
    only = past_candles(spec, ["60"])  # one resolution alone is the same as among all
    assert [c.record() for c in only["60"]] == [c.record() for c in past["60"]]
    assert list(only) == ["60"]


def test_a_stable_pair_keeps_to_its_peg_in_the_past() -> None:
    spec = PastSpec(3, "USDT/USDC", "ltp", Decimal("0.0001"), Decimal("0.01"), 1_767_225_600_000, Decimal(1), 0.8, True)
    for res, candles in past_candles(spec).items():
        assert all(Decimal("0.999") <= c.low and c.high <= Decimal("1.001") for c in candles), res  # 10 bp


def test_a_past_never_grows_a_series_beyond_its_cap() -> None:
    store = CandleStore(max_candles=100)
    t0 = 1_767_225_600_000

    def long_past(inst: int, chart_type: str, resolutions: Any) -> dict[str, list[StoreCandle]]:
        out = {}
        for res in resolutions:
            step = RESOLUTIONS[res]
            start = t0 - t0 % step
            out[res] = [StoreCandle(start - k * step, Decimal(1), Decimal(0)) for k in range(1_000, 0, -1)]
        return out

    store.past = long_past
    store.update(1, "ltp", t0, Decimal(1))
    for k in range(300):  # five hours of minutes, the last queried at every resolution
        store.update(1, "ltp", t0 + k * 60_000, Decimal(1))
    for res in RESOLUTIONS:
        store.query(1, "ltp", res, 0, t0 + DAY)
    assert all(len(s.candles) <= 125 for s in store.series[(1, "ltp")])  # the cap, and the slack before a trim
    times = store.series[(1, "ltp")][0].times
    assert all(b - a == 60_000 for a, b in itertools.pairwise(times))  # a past is put only where it fits


async def test_the_warm_up_changes_no_answer(sim_config: SimConfig) -> None:
    """Tried: two exchanges of one seed at one time, one warmed up ahead (as ``xtui sim`` does once it
    listens), one not: their tickers and every mark chart say the same, the market moving on after."""
    warmed, cold = (LocalExchange(sim_config, FrozenClock(1_767_225_600_000)) for _ in range(2))
    for _ in warmed.engine.warm_up():
        pass
    for sim in (warmed, cold):
        for _ in range(40):
            sim.step(250)
    assert warmed.engine.ticker() == cold.engine.ticker()
    now = warmed.clock.now_ms()
    for m in warmed.engine.markets.values():
        for res in RESOLUTIONS:
            answers = [
                sim.engine.candles.query(m.id, "mark", res, now - LONG_AGO * 1000, now) for sim in (warmed, cold)
            ]
            assert [c.record() for c in answers[0]] == [c.record() for c in answers[1]], (m.name, res)
