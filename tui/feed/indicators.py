"""The chart's indicators without Textual: SMA and EMA of the close, VWAP anchored at 00:00 UTC (the candles' typical
price × volume), RSI (Wilder's, of the close) and the volume by price of the candles shown.

Each study folds closed candles into a small immutable state (``fold``) and values a candle from the state of those
before it (``value``): the live candle, which every tick changes, is valued without being folded in. ``Tracker``
keeps every study's values in step with a candle list as the feed changes it: a tick (the live candle changed)
reads the last two candles, a new candle three, and only a list replaced or of another length (another chart, a
gap reloaded, a late candle inserted) is read whole again; an older candle revised in place, which the feed does
not do, would be seen at the next such reading. Values are Decimals: the running sums are exact, so the
values kept step by step are those computed from scratch.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, Protocol

from tui.api.models import Candle

__all__ = [
    "INDICATORS",
    "INDICATOR_TITLES",
    "Ema",
    "Rsi",
    "Sma",
    "Study",
    "Tracker",
    "Vwap",
    "indicator_title",
    "studies_for",
    "volume_profile",
]

INDICATORS = ("sma", "ema", "vwap", "profile", "rsi")  # the order the chooser, the legend and the file use
INDICATOR_TITLES = {  # at the default periods; ``indicator_title`` says a profile's
    "sma": "SMA 20 and 50",
    "ema": "EMA 20 and 50",
    "vwap": "VWAP from 00:00 UTC",
    "profile": "Volume profile",
    "rsi": "RSI 14",
}
MA_PERIODS = (20, 50)
RSI_PERIOD = 14
DAY_MS = 86_400_000
_HUNDRED = Decimal(100)


class Study(Protocol):
    name: str  # as the legend says it: "SMA20", "VWAP", "RSI14"

    def start(self) -> Any: ...

    def fold(self, state: Any, c: Candle) -> Any: ...

    def value(self, state: Any, c: Candle) -> Decimal | None: ...


class Sma:
    """The mean of the last ``period`` closes. State: (the last ``period - 1`` closes, their sum)."""

    def __init__(self, period: int) -> None:
        self.period, self.name = period, f"SMA{period}"

    def start(self) -> tuple[tuple[Decimal, ...], Decimal]:
        return (), Decimal(0)

    def fold(self, state: tuple[tuple[Decimal, ...], Decimal], c: Candle) -> tuple[tuple[Decimal, ...], Decimal]:
        window, total = state
        window, total = (*window, c.close), total + c.close
        if len(window) >= self.period:
            window, total = window[1:], total - window[0]
        return window, total

    def value(self, state: tuple[tuple[Decimal, ...], Decimal], c: Candle) -> Decimal | None:
        window, total = state
        return (total + c.close) / self.period if len(window) == self.period - 1 else None


class Ema:
    """The exponential mean of the closes (k = 2 / (period + 1)), seeded with the mean of the first ``period``.
    State: (closes folded, their sum until ``period`` of them, then the EMA of the last)."""

    def __init__(self, period: int) -> None:
        self.period, self.name = period, f"EMA{period}"
        self.k = Decimal(2) / (period + 1)

    def start(self) -> tuple[int, Decimal]:
        return 0, Decimal(0)

    def _next(self, state: tuple[int, Decimal], close: Decimal) -> Decimal:
        count, acc = state
        if count + 1 < self.period:
            return acc + close
        if count + 1 == self.period:
            return (acc + close) / self.period
        return acc + (close - acc) * self.k

    def fold(self, state: tuple[int, Decimal], c: Candle) -> tuple[int, Decimal]:
        return state[0] + 1, self._next(state, c.close)

    def value(self, state: tuple[int, Decimal], c: Candle) -> Decimal | None:
        return self._next(state, c.close) if state[0] + 1 >= self.period else None


def typical(c: Candle) -> Decimal:
    return (c.high + c.low + c.close) / 3


class Vwap:
    """Σ typical price × volume / Σ volume since 00:00 UTC of the candle's day. State: (day, Σ pv, Σ v)."""

    name = "VWAP"

    def start(self) -> tuple[int, Decimal, Decimal]:
        return -1, Decimal(0), Decimal(0)

    def fold(self, state: tuple[int, Decimal, Decimal], c: Candle) -> tuple[int, Decimal, Decimal]:
        day, pv, vol = state
        if c.time // DAY_MS != day:
            day, pv, vol = c.time // DAY_MS, Decimal(0), Decimal(0)
        return day, pv + typical(c) * c.volume, vol + c.volume

    def value(self, state: tuple[int, Decimal, Decimal], c: Candle) -> Decimal | None:
        _, pv, vol = self.fold(state, c)
        return pv / vol if vol > 0 else None


class Rsi:
    """Wilder's RSI of the closes: the mean gain and loss of the first ``period`` changes, then smoothed by 1/period.
    State: (the last close, changes folded, the sums (then means) of gains and losses)."""

    def __init__(self, period: int = RSI_PERIOD) -> None:
        self.period, self.name = period, f"RSI{period}"

    def start(self) -> tuple[Decimal | None, int, Decimal, Decimal]:
        return None, 0, Decimal(0), Decimal(0)

    def fold(
        self, state: tuple[Decimal | None, int, Decimal, Decimal], c: Candle
    ) -> tuple[Decimal | None, int, Decimal, Decimal]:
        last, count, gain, loss = state
        if last is None:
            return c.close, 0, gain, loss
        up, down = max(c.close - last, Decimal(0)), max(last - c.close, Decimal(0))
        count += 1
        if count < self.period:
            return c.close, count, gain + up, loss + down
        if count == self.period:
            return c.close, count, (gain + up) / self.period, (loss + down) / self.period
        keep = self.period - 1
        return c.close, count, (gain * keep + up) / self.period, (loss * keep + down) / self.period

    def value(self, state: tuple[Decimal | None, int, Decimal, Decimal], c: Candle) -> Decimal | None:
        _, count, gain, loss = self.fold(state, c)
        if count < self.period:
            return None
        if loss == 0:
            return _HUNDRED if gain > 0 else Decimal(50)
        return _HUNDRED - _HUNDRED / (1 + gain / loss)


def studies_for(
    chosen: Sequence[str], ma_periods: Sequence[int] = MA_PERIODS, rsi_period: int = RSI_PERIOD
) -> list[Study]:
    """The studies the chosen indicators draw, with the profile's periods (the volume profile is not one: it is of
    the candles shown)."""
    lines: dict[str, list[Study]] = {
        "sma": [Sma(p) for p in ma_periods],
        "ema": [Ema(p) for p in ma_periods],
        "vwap": [Vwap()],
        "rsi": [Rsi(rsi_period)],
    }
    return [s for name in INDICATORS if name in chosen for s in lines.get(name, [])]


def indicator_title(name: str, ma_periods: Sequence[int] = MA_PERIODS, rsi_period: int = RSI_PERIOD) -> str:
    """An indicator as the chooser and its notice say it: "SMA 20 and 50", "EMA 9, 21 and 50", "RSI 14"."""
    periods = [str(p) for p in ma_periods]
    said = periods[0] if len(periods) == 1 else f"{', '.join(periods[:-1])} and {periods[-1]}"
    return {"sma": f"SMA {said}", "ema": f"EMA {said}", "rsi": f"RSI {rsi_period}"}.get(name) or INDICATOR_TITLES[name]


class Tracker:
    """The values of ``studies`` at every candle of a list, kept in step with it (``update``) at the cost of the
    candles that changed. ``values[name][i]`` is the study's value at ``candles[i]`` (None before it has enough)."""

    def __init__(self, studies: Sequence[Study]) -> None:
        self.studies = list(studies)
        self.values: dict[str, list[Decimal | None]] = {s.name: [] for s in self.studies}
        self._source: Sequence[Candle] | None = None  # the list followed (held: its identity says it is the same)
        self._count = 0
        self._live: Candle | None = None  # the last candle, not folded in
        self._closed: Candle | None = None  # the one before it, folded in
        self._before: Candle | None = None  # the one before that
        self._state: list[Any] = []  # after every candle but the live one
        self._prior: list[Any] = []  # the same before the last closed candle
        self.rebuilds = 0  # lists read whole (a test counts them)

    def update(self, candles: Sequence[Candle]) -> None:
        n = len(candles)
        if candles is not self._source or n < 2 or self._live is None or self._closed is None:
            self._rebuild(candles)
            return
        live, prev = candles[-1], candles[-2]
        if n == self._count and live.time == self._live.time:
            if prev is not self._closed:  # the candle before the live one was revised
                if prev.time != self._closed.time or (n > 2 and candles[-3] is not self._before):
                    self._rebuild(candles)
                    return
                self._state = [s.fold(p, prev) for s, p in zip(self.studies, self._prior, strict=True)]
                for s, p in zip(self.studies, self._prior, strict=True):
                    self.values[s.name][-2] = s.value(p, prev)
                self._closed = prev
            self._live = live
            for s, st in zip(self.studies, self._state, strict=True):
                self.values[s.name][-1] = s.value(st, live)
            return
        dropped = self._count + 1 - n  # a new candle; the oldest may have been let go
        if n < 3 or prev.time != self._live.time or live.time <= prev.time or dropped not in (0, 1):
            self._rebuild(candles)
            return
        if candles[-3] is not self._closed:
            self._rebuild(candles)
            return
        self._prior, self._before, self._closed = self._state, self._closed, prev
        self._state = [s.fold(p, prev) for s, p in zip(self.studies, self._prior, strict=True)]
        for s, p, st in zip(self.studies, self._prior, self._state, strict=True):
            kept = self.values[s.name]
            kept[-1] = s.value(p, prev)
            kept.append(s.value(st, live))
            if dropped:
                del kept[0]
        self._live, self._count = live, n

    def _rebuild(self, candles: Sequence[Candle]) -> None:
        self.rebuilds += 1
        self._source, self._count = candles, len(candles)
        every = list(candles)
        self._live = every[-1] if every else None
        self._closed = every[-2] if len(every) > 1 else None
        self._before = every[-3] if len(every) > 2 else None
        states = [s.start() for s in self.studies]
        self._prior = states
        for s in self.studies:
            self.values[s.name] = []
        for i, c in enumerate(every):
            for s, st in zip(self.studies, states, strict=True):
                self.values[s.name].append(s.value(st, c))
            if i < len(every) - 1:
                self._prior = states
                states = [s.fold(st, c) for s, st in zip(self.studies, states, strict=True)]
        self._state = states

    def tail(self, count: int) -> dict[str, list[Decimal | None]]:
        """Each study's values at the last ``count`` candles."""
        return {name: kept[-count:] if count else [] for name, kept in self.values.items()}


def volume_profile(candles: Sequence[Candle], low: Decimal, high: Decimal, buckets: int) -> list[Decimal]:
    """The volume of ``candles`` by price, in ``buckets`` equal bands from ``high`` (the first) down to ``low``:
    each candle's volume in the band of its typical price."""
    out = [Decimal(0)] * max(0, buckets)
    if buckets <= 0 or high <= low:
        return out
    span = high - low
    for c in candles:
        i = int((high - typical(c)) / span * buckets)
        out[max(0, min(buckets - 1, i))] += c.volume
    return out
