"""Clocks for the local exchange: the wall clock, and a frozen one that tests step by hand."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now_ms(self) -> int:
        """Milliseconds since the Unix epoch."""
        ...


class SystemClock:
    """Wall-clock time, scaled by ``speed`` from the moment it is made (``--speed``: hours pass fast)."""

    def __init__(self, speed: float = 1.0, start_ms: int | None = None) -> None:
        self.speed = speed
        self._wall0 = time.time() if start_ms is None else start_ms / 1000  # a replay starts where its recording did
        self._mono0 = time.monotonic()

    def now_ms(self) -> int:
        return int((self._wall0 + (time.monotonic() - self._mono0) * self.speed) * 1000)


class FrozenClock:
    """Time that moves only when told to."""

    def __init__(self, start_ms: int = 1_767_225_600_000) -> None:  # 2026-01-01T00:00:00Z
        self._now = start_ms

    def now_ms(self) -> int:
        return self._now

    def advance(self, ms: int) -> int:
        if ms < 0:
            raise ValueError("a clock does not go backwards")
        self._now += ms
        return self._now

    def set(self, now_ms: int) -> None:
        if now_ms < self._now:
            raise ValueError("a clock does not go backwards")
        self._now = now_ms
