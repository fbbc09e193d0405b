"""Whether one socket is still alive: pings while it is quiet, calls it stale, then dead.

Any frame counts as life, data or pong. A socket whose peer froze (or whose network path died without a
reset) stays open for minutes and tells nothing; only a deadline on hearing from it notices. Times are
the event loop's own (monotonic) seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable
from typing import Any

from .connection import Connection
from .protocol import ConnectionLost

__all__ = ["Liveness"]

log = logging.getLogger("tui.api.ws")  # one log for the package


class Liveness:
    """One socket's watchdog. See the module docstring.

    After ``ping_interval`` s of quiet a ping goes out, and again every ``ping_interval`` s while the quiet
    lasts; after ``stale_after`` s ``on_stale(True)`` (``on_stale(False)`` at the next frame); after
    ``dead_after`` s the socket is dead: ``run`` fails the connection and returns. ``suspect()`` (outside
    evidence, such as /info timing out) pings at once and gives the socket ``ping_interval`` s to answer.
    ``on_pong(latency_s, server_ms)`` gets each answered ping (``server_ms`` None when the pong has no
    ``timestamp``).
    """

    def __init__(
        self,
        conn: Connection,
        *,
        ping_interval: float,
        stale_after: float,
        dead_after: float,
        on_stale: Callable[[bool], None],
        on_pong: Callable[[float, int | None], None],
    ) -> None:
        self._conn = conn
        self._loop = asyncio.get_running_loop()
        self._ping_interval = ping_interval
        self._stale_after = stale_after
        self._dead_after = dead_after
        self._on_stale = on_stale
        self._on_pong = on_pong
        self.last_frame = self._loop.time()
        self.stale = False
        self.dead = False
        self._last_ping = -math.inf
        self._answer_by = math.inf  # set by suspect(): a frame must come before then
        self._wake = asyncio.Event()
        self._pings: set[asyncio.Task[None]] = set()

    @property
    def quiet_s(self) -> float:
        """Seconds since the last frame."""
        return self._loop.time() - self.last_frame

    def heard(self) -> None:
        """A frame arrived."""
        self.last_frame = self._loop.time()
        self._answer_by = math.inf
        if self.stale:
            self.stale = False
            self._on_stale(False)

    def suspect(self) -> None:
        """Outside evidence that the socket may be dead: ping now, and declare it dead unless it answers."""
        if self.dead or self._answer_by < math.inf:
            return
        self._answer_by = self._loop.time() + self._ping_interval
        self._last_ping = -math.inf
        self._wake.set()

    async def run(self) -> None:
        """Watch until the socket is dead (then fail the connection) or lost otherwise."""
        try:
            while self._conn.lost is None:
                now = self._loop.time()
                quiet = now - self.last_frame
                if quiet >= self._dead_after or now >= self._answer_by:
                    self._declare_dead(quiet)
                    return
                if quiet >= self._stale_after and not self.stale:
                    self.stale = True
                    self._on_stale(True)
                pinging = quiet >= self._ping_interval or self._answer_by < math.inf
                if pinging and now - self._last_ping >= self._ping_interval:
                    self._ping(now)
                await self._sleep_until(self._next_check(now))
        finally:
            for task in self._pings:
                task.cancel()

    def _next_check(self, now: float) -> float:
        times = [self.last_frame + self._dead_after, self._answer_by]
        if not self.stale:
            times.append(self.last_frame + self._stale_after)
        times.append(max(self.last_frame, self._last_ping) + self._ping_interval)
        return max(now, min(times))

    async def _sleep_until(self, when: float) -> None:
        self._wake.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout_at(when):
                await self._wake.wait()

    def _declare_dead(self, quiet: float) -> None:
        self.dead = True
        log.warning("WebSocket silent for %.1f s: taken for dead, reconnecting", quiet)
        self._conn.idle = True  # a half-open socket would not answer a close handshake
        self._conn.fail(ConnectionLost(f"WebSocket silent for {quiet:.1f} s"))

    def _ping(self, now: float) -> None:
        """Send a ping without waiting on the send (the message limiter may hold it)."""
        self._last_ping = now
        conn = self._conn
        rid = conn.next_id()

        def pong(msg: dict[str, Any]) -> None:
            if msg.get("error") is not None:
                return
            result = msg.get("result")
            stamp = result.get("timestamp") if isinstance(result, dict) else None
            ok = isinstance(stamp, int) and not isinstance(stamp, bool)
            self._on_pong(self._loop.time() - now, stamp if ok else None)

        conn.pending[rid] = (None, pong)
        task = asyncio.create_task(self._send_ping(rid))
        self._pings.add(task)
        task.add_done_callback(self._pings.discard)

    async def _send_ping(self, rid: str) -> None:
        with contextlib.suppress(ConnectionLost):
            await self._conn.send({"jsonrpc": "2.0", "method": "ping", "id": rid})
