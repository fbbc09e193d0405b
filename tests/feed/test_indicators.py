"""The chart's indicators (``tui.feed.indicators``): on random candle streams, changed as the feed changes them
(``MarketState.apply_candle``: a tick on the live candle, a new candle, the oldest let go at the cap, the candle
before the live one revised), the values kept step by step are those computed from scratch by plain formulas, and
a tick or a new candle reads at most three candles, never the history."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.api.models import Candle
from tui.feed.indicators import DAY_MS, INDICATORS, Tracker, studies_for, volume_profile
from tui.feed.state import BookState, MarketState

T0 = 1_700_006_400_000 - 20 * 60_000  # 20 minutes before a UTC midnight: VWAP starts again in the stream
STEP = 60_000
CAP = 40  # the candles kept, for the test (the feed keeps 1,000)


class CountingList(list[Candle]):
    """A candle list that counts the candles read from it."""

    reads = 0

    def __getitem__(self, i: Any) -> Any:  # type: ignore[override]
        got = super().__getitem__(i)
        self.reads += len(got) if isinstance(i, slice) else 1
        return got

    def __iter__(self) -> Iterator[Candle]:
        self.reads += len(self)
        return super().__iter__()


def candle(t: int, close: Decimal, prev: Decimal, volume: Decimal) -> Candle:
    return Candle(prev, max(prev, close) + Decimal("0.5"), min(prev, close) - Decimal("0.3"), close, volume, t)


# plain formulas, from scratch
def sma(closes: list[Decimal], n: int) -> list[Decimal | None]:
    return [sum(closes[i + 1 - n : i + 1]) / n if i + 1 >= n else None for i in range(len(closes))]


def ema(closes: list[Decimal], n: int) -> list[Decimal | None]:
    out: list[Decimal | None] = []
    k = Decimal(2) / (n + 1)
    e = Decimal(0)
    for i, c in enumerate(closes):
        if i + 1 < n:
            out.append(None)
            continue
        e = sum(closes[:n]) / n if i + 1 == n else e + (c - e) * k
        out.append(e)
    return out


def vwap(candles: list[Candle]) -> list[Decimal | None]:
    out: list[Decimal | None] = []
    day, pv, vol = -1, Decimal(0), Decimal(0)
    for k in candles:
        if k.time // DAY_MS != day:
            day, pv, vol = k.time // DAY_MS, Decimal(0), Decimal(0)
        pv, vol = pv + (k.high + k.low + k.close) / 3 * k.volume, vol + k.volume
        out.append(pv / vol if vol > 0 else None)
    return out


def rsi(closes: list[Decimal], n: int = 14) -> list[Decimal | None]:
    out: list[Decimal | None] = [None]
    gain = loss = Decimal(0)
    for i in range(1, len(closes)):
        up, down = max(closes[i] - closes[i - 1], Decimal(0)), max(closes[i - 1] - closes[i], Decimal(0))
        if i < n:
            gain, loss = gain + up, loss + down
            out.append(None)
            continue
        if i == n:
            gain, loss = (gain + up) / n, (loss + down) / n
        else:
            gain, loss = (gain * (n - 1) + up) / n, (loss * (n - 1) + down) / n
        out.append((Decimal(100) if gain > 0 else Decimal(50)) if loss == 0 else 100 - 100 / (1 + gain / loss))
    return out


def from_scratch(candles: list[Candle]) -> dict[str, list[Decimal | None]]:
    closes = [c.close for c in candles]
    out = {f"SMA{n}": sma(closes, n) for n in (20, 50)} | {f"EMA{n}": ema(closes, n) for n in (20, 50)}
    return out | {"VWAP": vwap(candles), "RSI14": rsi(closes)}


prices = st.decimals(min_value=90, max_value=110, places=1)
volumes = st.decimals(min_value=0, max_value=5, places=2)
steps = st.lists(
    st.tuples(st.sampled_from(["tick", "tick", "tick", "new", "new", "gap", "revise"]), prices, volumes), max_size=60
)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=70), prices, steps)
def test_kept_step_by_step_equals_from_scratch_and_a_tick_reads_o1_candles(
    start: int, first: Decimal, ops: list[tuple[str, Decimal, Decimal]]
) -> None:
    market = MarketState(instruments={}, tickers={}, selected="BTC-PERP", book=BookState("BTC-PERP"))
    candles = CountingList()
    market.candles = candles
    tracker = Tracker(studies_for(INDICATORS))
    with mock.patch("tui.feed.state.CANDLES_KEPT", CAP):
        close = first
        for i in range(start):
            close += Decimal((i * 7) % 11 - 5) / 10
            market.apply_candle(candle(T0 + i * STEP, close, close, Decimal(i % 4)))
        tracker.update(candles)
        seen = {c.time: c for c in candles}  # every candle since the list was last read whole (the cap lets go of
        for kind, price, volume in ops:  # the oldest, whose part in the averages stays)
            last = candles[-1] if candles else None
            if kind == "tick" and last is not None:
                c = candle(last.time, price, last.open, last.volume + volume)
            elif kind == "revise" and len(candles) > 1:
                prev = candles[-2]
                c = candle(prev.time, price, prev.open, prev.volume + volume)
            else:
                t = last.time + (2 if kind == "gap" else 1) * STEP if last is not None else T0
                c = candle(t, price, last.close if last is not None else price, volume)
            market.apply_candle(c)
            seen[c.time] = c
            rebuilds, candles.reads = tracker.rebuilds, 0
            tracker.update(candles)
            if rebuilds == tracker.rebuilds:
                assert candles.reads <= 3, (kind, candles.reads)
            else:  # read whole only to start (fewer than two candles before)
                assert len(candles) <= 3, kind
                seen = {c.time: c for c in candles}
            want = from_scratch([seen[t] for t in sorted(seen)])
            assert tracker.values == {name: values[-len(candles) :] for name, values in want.items()}, kind


def test_a_tick_reads_the_last_two_candles_of_a_thousand() -> None:
    candles = CountingList(candle(T0 + i * STEP, Decimal(100 + i % 9), Decimal(100), Decimal(1)) for i in range(1000))
    every = list(candles)
    tracker = Tracker(studies_for(INDICATORS))
    tracker.update(candles)
    candles[-1] = candle(candles[-1].time, Decimal(120), Decimal(100), Decimal(2))
    candles.reads = 0
    tracker.update(candles)
    assert candles.reads == 2
    candles.append(candle(candles[-1].time + STEP, Decimal(121), Decimal(120), Decimal(1)))
    every[-1:] = candles[-2:]
    del candles[0]  # the oldest let go, as the feed does at its cap
    candles.reads = 0
    tracker.update(candles)
    assert candles.reads == 3 and tracker.rebuilds == 1
    assert tracker.values == {name: values[1:] for name, values in from_scratch(every).items()}


def test_a_replaced_list_is_read_again() -> None:
    """Another chart, or history merged after a gap: a new list, computed whole."""
    a = [candle(T0 + i * STEP, Decimal(100 + i % 3), Decimal(100), Decimal(1)) for i in range(30)]
    tracker = Tracker(studies_for(["sma"]))
    tracker.update(a)
    b = [candle(T0 + i * STEP, Decimal(200 + i % 5), Decimal(200), Decimal(1)) for i in range(30)]
    tracker.update(b)
    assert tracker.rebuilds == 2 and tracker.values == {k: from_scratch(b)[k] for k in ("SMA20", "SMA50")}


def test_rsi_is_100_when_only_rising_and_50_when_flat() -> None:
    rising = [candle(T0 + i * STEP, Decimal(100 + i), Decimal(100 + i), Decimal(1)) for i in range(20)]
    flat = [candle(T0 + i * STEP, Decimal(100), Decimal(100), Decimal(1)) for i in range(20)]
    for series, want in ((rising, 100), (flat, 50)):
        tracker = Tracker(studies_for(["rsi"]))
        tracker.update(series)
        assert tracker.values["RSI14"][:14] == [None] * 14 and tracker.values["RSI14"][-1] == want


def test_vwap_starts_again_at_midnight_utc() -> None:
    series = [candle(T0 + i * STEP, Decimal(100 + i), Decimal(100 + i), Decimal(1)) for i in range(25)]
    tracker = Tracker(studies_for(["vwap"]))
    tracker.update(series)
    midnight = next(i for i, c in enumerate(series) if c.time % DAY_MS == 0)
    c = series[midnight]
    assert tracker.values["VWAP"][midnight] == (c.high + c.low + c.close) / 3


def test_volume_profile_puts_each_candles_volume_in_its_band() -> None:
    series = [
        candle(T0, Decimal(100), Decimal(100), Decimal(3)),
        candle(T0 + STEP, Decimal(90), Decimal(90), Decimal(2)),
    ]
    bands = volume_profile(series, Decimal(80), Decimal(110), 3)
    assert bands == [Decimal(3), Decimal(2), Decimal(0)] and sum(bands) == 5
