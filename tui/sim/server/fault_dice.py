"""The faults' decisions, seeded, and the waits they impose, on the wall clock or on a frozen one.

Each kind of fault draws from its own stream (``random.Random`` seeded with the fault seed and the kind's name),
so one seed gives one sequence of decisions per kind, whatever the other kinds are asked meanwhile: the tenth
/info request of a run hangs or not whatever the WebSocket frames drew before it.

Waits go through ``Waits``: ``WallWaits`` sleeps; ``ClockWaits`` waits for a ``FrozenClock`` that tests step
(``LocalExchange.step`` wakes it), so a test sees a 300 ms latency as "not answered at +299 ms, answered at
+300 ms" without measuring wall time.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import random
from decimal import Decimal
from typing import Protocol

from ..clock import Clock
from .fault_plan import FaultPlan, Latency

__all__ = ["ClockWaits", "FaultDice", "Waits", "WallWaits"]

KINDS = ("http", "ws-feed", "ws-ack", "refuse", "info-timeout", "partial-fill")


class FaultDice:
    """Seeded decisions for a plan: one stream per kind of fault, and a count of each fault injected."""

    def __init__(self, plan: FaultPlan, seed: int) -> None:
        self.plan = plan
        self.seed = seed
        self._rng = {kind: random.Random(f"xtui-faults:{seed}:{kind}") for kind in KINDS}
        self.injected: dict[str, int] = dict.fromkeys(KINDS, 0)

    def _delay(self, kind: str, latency: Latency) -> int:
        if not latency:
            return 0
        self.injected[kind] += 1
        return self._rng[kind].randint(latency.lo_ms, latency.hi_ms)

    def _happens(self, kind: str, rate: Decimal) -> bool:
        if not rate:
            return False
        hit = self._rng[kind].random() < float(rate)  # a share of requests, not money
        self.injected[kind] += hit
        return hit

    def http_ms(self) -> int:
        return self._delay("http", self.plan.http)

    def ws_feed_ms(self) -> int:
        return self._delay("ws-feed", self.plan.ws_feed)

    def ws_ack_ms(self) -> int:
        return self._delay("ws-ack", self.plan.ws_ack)

    def refuse(self) -> bool:
        return self._happens("refuse", self.plan.refuse_rate)

    def info_timeout(self) -> bool:
        return self._happens("info-timeout", self.plan.info_timeout_rate)

    def partial_fill(self) -> bool:
        return self._happens("partial-fill", self.plan.partial_fill_rate)


class Waits(Protocol):
    def now_ms(self) -> float: ...

    async def until(self, due_ms: float) -> None:
        """Return once ``now_ms()`` has reached ``due_ms``."""
        ...


class WallWaits:
    """The event loop's monotonic clock."""

    def now_ms(self) -> float:
        return asyncio.get_running_loop().time() * 1000

    async def until(self, due_ms: float) -> None:
        delay = due_ms - self.now_ms()
        if delay > 0:
            await asyncio.sleep(delay / 1000)


class ClockWaits:
    """Waits on a clock that moves only when stepped: ``wake()`` after each step releases what is due."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._due: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now_ms(self) -> float:
        return float(self.clock.now_ms())

    @property
    def waiting(self) -> int:
        """How many waits are pending (tests wait for a request to be held before they step)."""
        return sum(not f.done() for _, _, f in self._due)

    async def until(self, due_ms: float) -> None:
        if due_ms <= self.now_ms():
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._due, (due_ms, next(self._order), future))
        await future

    def wake(self) -> None:
        now = self.now_ms()
        while self._due and self._due[0][0] <= now:
            _, _, future = heapq.heappop(self._due)
            if not future.done():
                future.set_result(None)
