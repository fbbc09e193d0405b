"""Client-side rate-limit governor, so that the client itself never exceeds the interface's limits.

It keeps its own sliding-window budgets per endpoint (/info 5,000 a minute and 200,000 an hour,
/exchange 20,000 a minute), adopts the server's counts from ``X-RateLimit-1m``, ``X-RateLimit-1h`` and
``X-Used-Weight-1m`` when they are higher than its own, waits ``Retry-After`` after a 429 and refuses
to call at all until a 418 ban ends.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping

import msgspec

from .errors import Banned

__all__ = ["Budget", "Governor", "GovernorStatus", "Window"]

INFO_PER_MINUTE = 5_000
INFO_PER_HOUR = 200_000
EXCHANGE_PER_MINUTE = 20_000


class Window:
    """A sliding window of ``span`` seconds counted in one-second buckets (memory bounded by ``span``)."""

    def __init__(self, limit: int, span: float) -> None:
        self.limit = limit
        self.span = span
        self._buckets: deque[list[float]] = deque()  # [second, count]
        self._count = 0.0

    def _expire(self, now: float) -> None:
        horizon = now - self.span
        while self._buckets and self._buckets[0][0] <= horizon:
            self._count -= self._buckets.popleft()[1]

    def used(self, now: float) -> int:
        self._expire(now)
        return int(self._count)

    def add(self, now: float, n: float = 1) -> None:
        second = float(int(now))
        if self._buckets and self._buckets[-1][0] == second:
            self._buckets[-1][1] += n
        else:
            self._buckets.append([second, n])
        self._count += n

    def wait_for_slot(self, now: float) -> float:
        """Seconds until one more call fits (0 when it fits now)."""
        self._expire(now)
        if self._count < self.limit:
            return 0.0
        excess = self._count - self.limit + 1
        for second, n in self._buckets:
            excess -= n
            if excess <= 0:
                return max(0.0, second + self.span - now) + 0.001
        return self.span

    def adopt(self, now: float, server_used: int) -> None:
        """Raise our count to the server's when it has seen more (calls from elsewhere on this address)."""
        mine = self.used(now)
        if server_used > mine:
            self.add(now, server_used - mine)


class Budget(msgspec.Struct, frozen=True):
    used: int
    limit: int


class GovernorStatus(msgspec.Struct, frozen=True):
    """Figures for the status bar."""

    info_1m: Budget
    info_1h: Budget
    exchange_1m: Budget
    waiting_s: float  # how long the next call would wait now
    banned_until: float | None  # wall-clock seconds, or None
    banned_s: float = 0.0  # how long the ban still lasts now


def parse_used(value: str | None) -> tuple[int, int] | None:
    """``"<used>/<limit>"`` → (used, limit); None when absent or malformed."""
    if not value:
        return None
    used, _, limit = value.partition("/")
    try:
        return int(used), int(limit)
    except ValueError:
        return None


class Governor:
    """Paces calls per endpoint. ``clock`` gives seconds; ``sleep`` waits (injectable for tests)."""

    def __init__(
        self,
        *,
        info_per_minute: int = INFO_PER_MINUTE,
        info_per_hour: int = INFO_PER_HOUR,
        exchange_per_minute: int = EXCHANGE_PER_MINUTE,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._clock = clock
        self._sleep = sleep
        self.windows: dict[str, list[Window]] = {
            "info": [Window(info_per_minute, 60), Window(info_per_hour, 3600)],
            "exchange": [Window(exchange_per_minute, 60)],
        }
        self.windows["explorer"] = self.windows["info"]  # [inf] explorer calls share the /info budget
        self.windows["faucet"] = self.windows["exchange"]  # the local exchange's faucet counts as an action
        self._resume_at = 0.0
        self._banned_until: float | None = None

    def _wait(self, endpoint: str, now: float) -> float:
        if self._banned_until is not None and now >= self._banned_until:
            self._banned_until = None
        if self._banned_until is not None:
            return self._banned_until - now
        waits = [w.wait_for_slot(now) for w in self.windows[endpoint]]
        return max([self._resume_at - now, *waits, 0.0])

    async def acquire(self, endpoint: str) -> None:
        """Wait until a call to ``endpoint`` fits the budget; raise ``Banned`` while a ban lasts."""
        while True:
            now = self._clock()
            if self._banned_until is not None and now < self._banned_until:
                left = self._banned_until - now
                raise Banned(f"banned by the server for {left:.0f} more seconds; not calling", left)
            wait = self._wait(endpoint, now)
            if wait <= 0:
                for w in self.windows[endpoint]:
                    w.add(now)
                return
            await self._sleep(wait)

    def observe(self, endpoint: str, headers: Mapping[str, str]) -> None:
        """Keep in step with the server's rate-limit headers."""
        now = self._clock()
        windows = self.windows[endpoint]
        one_min = parse_used(headers.get("x-ratelimit-1m"))
        if one_min:
            windows[0].limit = min(windows[0].limit, one_min[1]) if one_min[1] > 0 else windows[0].limit
            windows[0].adopt(now, one_min[0])
        elif (weight := headers.get("x-used-weight-1m")) and weight.isdigit():
            windows[0].adopt(now, int(weight))
        one_hour = parse_used(headers.get("x-ratelimit-1h"))
        if one_hour and len(windows) > 1:
            windows[1].adopt(now, one_hour[0])

    def rate_limited(self, retry_after: float) -> None:
        """A 429 arrived: nothing is sent until ``retry_after`` seconds have passed."""
        self._resume_at = max(self._resume_at, self._clock() + retry_after)

    def banned(self, seconds: float) -> None:
        """A 418 arrived: nothing is sent until the ban ends."""
        self._banned_until = self._clock() + seconds

    def status(self) -> GovernorStatus:
        now = self._clock()
        info_1m, info_1h = self.windows["info"]
        exchange_1m = self.windows["exchange"][0]
        banned = self._banned_until if self._banned_until and self._banned_until > now else None
        return GovernorStatus(
            info_1m=Budget(info_1m.used(now), info_1m.limit),
            info_1h=Budget(info_1h.used(now), info_1h.limit),
            exchange_1m=Budget(exchange_1m.used(now), exchange_1m.limit),
            waiting_s=max(0.0, self._resume_at - now),
            banned_until=banned,
            banned_s=banned - now if banned is not None else 0.0,
        )
