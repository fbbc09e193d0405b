"""The charts' past on a mirror: the source's own last hours of 1-minute candles, read once at start.

A synthetic past would be invented prices, so a mirror's charts open on the source's real candles instead:
the last ``PAST_MINUTES`` of 1-minute candles of each mirrored instrument and price type (one ``chart``
request each at start; a series the source does not give simply starts when the mirror does). Coarser
resolutions are their aggregates (so a 4h or 1D chart holds only those hours). Minutes the source has no
candle for, between its last one and the mirror's first, carry the last close with no volume, as a quiet
market's chart does, so the live chart continues the past without a hole.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from decimal import Decimal

from tui.api import models as m
from tui.api.client import Client

from ..engine.candles import RESOLUTIONS, Candle

__all__ = ["PAST_MINUTES", "SourcePast", "read_past"]

PAST_MINUTES = 360
CHART_TYPES = ("ltp", "mark", "index")
MINUTE_MS = 60_000

Minutes = list[m.Candle]


async def read_past(client: Client, instrument_ids: Iterable[int], now_ms: int) -> dict[tuple[int, str], Minutes]:
    """The source's last minutes by (instrument id, chart type); a request that fails leaves its series out."""
    to_s = now_ms // 1000
    keys = [(i, t) for i in instrument_ids for t in CHART_TYPES]
    calls = [client.chart(i, t, "1", to_s - PAST_MINUTES * 60, to_s) for i, t in keys]
    answers = await asyncio.gather(*calls, return_exceptions=True)
    return {key: sorted(a, key=lambda c: c.time) for key, a in zip(keys, answers, strict=True) if isinstance(a, list)}


class SourcePast:
    """``CandleStore.past`` for a mirror: the source's minutes, ending where the mirror's own candles begin."""

    def __init__(self, minutes: dict[tuple[int, str], Minutes], start_ms: int) -> None:
        self.minutes = minutes
        self.first_minute = start_ms - start_ms % MINUTE_MS  # the mirror's first live candle

    def __call__(self, instrument_id: int, chart_type: str, resolutions: Iterable[str]) -> dict[str, list[Candle]]:
        minutes = self._filled(self.minutes.get((instrument_id, chart_type), []))
        return {res: _aggregate(minutes, RESOLUTIONS[res]) for res in resolutions}

    def _filled(self, source: Minutes) -> list[Candle]:
        """The source's minutes before the mirror's first, the silent ones carrying the last close."""
        out: list[Candle] = []
        for c in source:
            t = c.time - c.time % MINUTE_MS
            if t > self.first_minute or (out and t <= out[-1].time):
                continue
            while out and out[-1].time + MINUTE_MS < t:
                out.append(Candle(out[-1].time + MINUTE_MS, out[-1].close, Decimal(0)))
            out.append(_candle(t, c.open, c.high, c.low, c.close, c.volume))
        while out and out[-1].time + MINUTE_MS < self.first_minute:
            out.append(Candle(out[-1].time + MINUTE_MS, out[-1].close, Decimal(0)))
        return out


def _candle(t: int, open_: Decimal, high: Decimal, low: Decimal, close: Decimal, volume: Decimal) -> Candle:
    c = Candle(t, open_, volume)
    c.high, c.low, c.close = high, low, close
    return c


def _aggregate(minutes: list[Candle], res_ms: int) -> list[Candle]:
    out: list[Candle] = []
    for c in minutes:
        t = c.time - c.time % res_ms
        if out and out[-1].time == t:
            last = out[-1]
            last.high, last.low = max(last.high, c.high), min(last.low, c.low)
            last.close = c.close
            last.volume += c.volume
        else:
            out.append(_candle(t, c.open, c.high, c.low, c.close, c.volume))
    return out
