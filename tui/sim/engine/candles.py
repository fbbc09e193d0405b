"""OHLCV candles of mark, index and last-trade price at every chart resolution.

A price event updates only the open 1-minute candle; when a minute closes, its candle is folded into the
seven coarser series. A query (or a ``chart`` event) of a coarser resolution merges the open minute into
its last candle on the fly, so every answer is current while a trade costs one candle update. Buckets
are aligned to the Unix epoch, weeks to Monday 00:00 UTC. A bucket in which nothing happened is filled
with a flat candle at the previous close (up to ``max_candles`` of them), so charts have no holes.
Each series keeps at most ``max_candles`` candles. A series may have a past (``past``, from
``tui.sim.history``): each resolution's is put before its candles the first time it is asked for.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

from .values import ZERO

CHART_TYPES = ("mark", "index", "ltp")
RESOLUTIONS: dict[str, int] = {
    "1": 60_000,
    "5": 300_000,
    "15": 900_000,
    "30": 1_800_000,
    "60": 3_600_000,
    "240": 14_400_000,
    "1D": 86_400_000,
    "1W": 604_800_000,
}
_MONDAY = 345_600_000  # 1970-01-05T00:00:00Z, a Monday


def bucket_of(t_ms: int, res_ms: int) -> int:
    """Start of the bucket of width ``res_ms`` that holds ``t_ms``."""
    off = _MONDAY if res_ms == 604_800_000 else 0
    return t_ms - (t_ms - off) % res_ms


class Candle:
    """One candle; ``time`` is the bucket start in ms."""

    __slots__ = ("close", "high", "low", "open", "time", "volume")

    def __init__(self, time: int, price: Decimal, volume: Decimal) -> None:
        self.time = time
        self.open = self.high = self.low = self.close = price
        self.volume = volume

    def fold(self, price: Decimal, volume: Decimal) -> None:
        """A trade of ``volume`` at ``price`` in this candle's bucket."""
        if price > self.high:
            self.high = price
        elif price < self.low:
            self.low = price
        self.close = price
        self.volume += volume

    def record(self) -> dict[str, Any]:
        return {
            "time": self.time,
            "open": self.open,
            "high": self.high,
            "low": self.low,
            "close": self.close,
            "volume": self.volume,
        }


class Series:
    """Candles of one (instrument, chart type, resolution), oldest first."""

    __slots__ = ("candles", "max_candles", "res_ms", "times")

    def __init__(self, res_ms: int, max_candles: int) -> None:
        self.res_ms = res_ms
        self.max_candles = max_candles
        self.candles: list[Candle] = []
        self.times: list[int] = []

    def update(self, t_ms: int, price: Decimal, volume: Decimal) -> None:
        candles = self.candles
        b = bucket_of(t_ms, self.res_ms)
        if candles:
            last = candles[-1]
            if b <= last.time:  # same bucket (or a late event: folded into the open candle)
                last.fold(price, volume)
                return
            gap = (b - last.time) // self.res_ms - 1
            if gap > 0:
                start = last.time + max(0, gap - self.max_candles) * self.res_ms
                close = last.close
                for t in range(start + self.res_ms, b, self.res_ms):
                    candles.append(Candle(t, close, ZERO))
                    self.times.append(t)
        candles.append(Candle(b, price, volume))
        self.times.append(b)
        if len(candles) > self.max_candles + self.max_candles // 4:
            del candles[: len(candles) - self.max_candles]
            del self.times[: len(self.times) - self.max_candles]

    def fold(self, c: Candle) -> None:
        """Merge a closed finer candle into this (coarser) series."""
        candles = self.candles
        b = bucket_of(c.time, self.res_ms)
        last = candles[-1] if candles else None
        if last is not None and b <= last.time:
            last.high = max(last.high, c.high)
            last.low = min(last.low, c.low)
            last.close = c.close
            last.volume += c.volume
            return
        self.update(c.time, c.open, c.volume)
        new = candles[-1]
        new.high, new.low, new.close = c.high, c.low, c.close

    def with_open(self, minute: Candle | None, candles: list[Candle]) -> list[Candle]:
        """``candles`` (a tail slice of this series) with the open minute candle merged into the last one."""
        if minute is None:
            return candles
        b = bucket_of(minute.time, self.res_ms)
        last = self.candles[-1] if self.candles else None
        if last is not None and last.time == b:
            if not candles or candles[-1] is not last:
                return candles
            merged = Candle(b, last.open, last.volume + minute.volume)
            merged.high = max(last.high, minute.high)
            merged.low = min(last.low, minute.low)
            merged.close = minute.close
            return [*candles[:-1], merged]
        if last is not None and b < last.time:
            return candles
        fresh = Candle(b, minute.open, minute.volume)
        fresh.high, fresh.low, fresh.close = minute.high, minute.low, minute.close
        return [*candles, fresh]

    def between(self, from_ms: int, to_ms: int) -> list[Candle]:
        """Candles whose bucket overlaps [from_ms, to_ms]."""
        lo = bisect_left(self.times, bucket_of(from_ms, self.res_ms))
        hi = bisect_left(self.times, to_ms + 1)
        return self.candles[lo:hi]

    def last(self) -> Candle | None:
        return self.candles[-1] if self.candles else None

    def prepend(self, older: list[Candle]) -> None:
        """Put ``older`` (oldest first, ending where this series starts) before its candles, up to the cap.
        A bucket both hold is one candle: the older open, both ranges, the newer close, both volumes. A past
        that does not reach this series' first candle (trimmed away meanwhile) is left out: no holes."""
        if not older:
            return
        if self.candles:
            first, past = self.candles[0], older[-1]
            if past.time == first.time:
                first.open = past.open
                first.high = max(first.high, past.high)
                first.low = min(first.low, past.low)
                first.volume += past.volume
                older = older[:-1]
            elif past.time + self.res_ms != first.time:
                return
        keep = max(0, self.max_candles - len(self.candles))
        older = older[len(older) - keep :] if keep else []
        self.candles[:0] = older
        self.times[:0] = [c.time for c in older]


class CandleStore:
    """All series of all instruments; remembers which (instrument, chart type) changed since the last flush."""

    def __init__(self, max_candles: int) -> None:
        self.max_candles = max_candles
        self.series: dict[tuple[int, str], list[Series]] = {}
        self.dirty: set[tuple[int, str]] = set()
        # the past of a series at some resolutions (``tui.sim.history``), added the first time each is asked
        # for: (instrument, chart type, resolutions) -> candles by resolution. None: charts start empty.
        self.past: Callable[[int, str, Iterable[str]], dict[str, list[Candle]]] | None = None
        self._with_past: set[tuple[int, str, str]] = set()

    def _add_past(self, inst_id: int, chart_type: str, resolutions: Iterable[str]) -> None:
        if self.past is None:
            return
        missing = [r for r in resolutions if (inst_id, chart_type, r) not in self._with_past]
        if not missing:
            return
        self._with_past.update((inst_id, chart_type, r) for r in missing)
        series = dict(zip(RESOLUTIONS, self._get(inst_id, chart_type), strict=True))
        for res, older in self.past(inst_id, chart_type, missing).items():
            series[res].prepend(older)

    def _get(self, inst_id: int, chart_type: str) -> list[Series]:
        key = (inst_id, chart_type)
        found = self.series.get(key)
        if found is None:
            found = self.series[key] = [Series(r, self.max_candles) for r in RESOLUTIONS.values()]
        return found

    def update(self, inst_id: int, chart_type: str, t_ms: int, price: Decimal, volume: Decimal = ZERO) -> None:
        series = self._get(inst_id, chart_type)
        minute = series[0]
        last = minute.candles[-1] if minute.candles else None
        if last is not None and t_ms - t_ms % 60_000 <= last.time:  # the open minute: the hot path
            last.fold(price, volume)
        else:
            if last is not None:
                for s in series[1:]:
                    s.fold(last)
            minute.update(t_ms, price, volume)
        self.dirty.add((inst_id, chart_type))

    def roll(self, inst_id: int, chart_type: str, t_ms: int, price: Decimal) -> None:
        """Open new candles at ``price`` if ``t_ms`` is past the open 1-minute candle (a quiet market
        still gets candles); otherwise nothing changes."""
        series = self._get(inst_id, chart_type)
        last = series[0].last()
        if last is None or bucket_of(t_ms, series[0].res_ms) > last.time:
            self.update(inst_id, chart_type, t_ms, price)

    def query(self, inst_id: int, chart_type: str, resolution: str, from_ms: int, to_ms: int) -> list[Candle]:
        self._add_past(inst_id, chart_type, (resolution,))
        all_series = self._get(inst_id, chart_type)
        i = list(RESOLUTIONS).index(resolution)
        found = all_series[i].between(from_ms, to_ms)
        if i == 0:
            return found
        minute = all_series[0].last()
        if minute is None or not from_ms <= minute.time <= to_ms:
            return found
        return all_series[i].with_open(minute, found)

    def current(self, inst_id: int, chart_type: str) -> list[tuple[str, Candle]]:
        """The open candle of every resolution, for ``chart`` events."""
        self._add_past(inst_id, chart_type, RESOLUTIONS)  # an open candle may begin in the past
        out: list[tuple[str, Candle]] = []
        series = self._get(inst_id, chart_type)
        minute = series[0].last()
        for res, s in zip(RESOLUTIONS, series, strict=True):
            tail = s.candles[-1:] if s is not series[0] else []
            merged = s.with_open(minute, tail) if s is not series[0] else tail + ([minute] if minute else [])
            if merged:
                out.append((res, merged[-1]))
        return out
