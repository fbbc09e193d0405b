"""Coalesced change notifications: thousands of updates a second become a few calls a second.

``mark(topic)`` is on the hot path, so it only adds to a set and, when nothing is scheduled yet,
schedules one call on the event loop: at once after a quiet period, else when ``interval`` has passed
since the last call. The call carries the union of the topics marked meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

__all__ = ["ChangeNotifier"]

log = logging.getLogger(__name__)


class ChangeNotifier:
    """Calls ``callback(topics)`` at most once per ``interval`` seconds (``clock`` in seconds)."""

    def __init__(
        self, callback: Callable[[frozenset[str]], None] | None, interval: float, clock: Callable[[], float]
    ) -> None:
        self._callback = callback
        self._interval = interval
        self._clock = clock
        self._pending: set[str] = set()
        self._handle: asyncio.Handle | None = None
        self._last = float("-inf")
        self.calls = 0

    def mark(self, topic: str) -> None:
        """Note that ``topic`` changed."""
        if self._callback is None:
            return
        self._pending.add(topic)
        if self._handle is None:
            self._schedule()

    def _schedule(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a synchronous caller): the next mark in a loop delivers it
            return
        delay = self._last + self._interval - self._clock()
        self._handle = loop.call_soon(self._fire) if delay <= 0 else loop.call_later(delay, self._fire)

    def _fire(self) -> None:
        self._handle = None
        if not self._pending or self._callback is None:
            return
        topics = frozenset(self._pending)
        self._pending.clear()
        self._last = self._clock()
        self.calls += 1
        try:
            self._callback(topics)
        except Exception:  # the UI's trouble must not stop the feed
            log.exception("on_change callback failed")

    @property
    def pending(self) -> bool:
        """Whether changes are noted that ``callback`` has not been told yet."""
        return bool(self._pending)

    def soon(self) -> None:
        """Deliver what is pending at the loop's next turn, whatever the interval (once: the first picture)."""
        if self._callback is None or not self._pending:
            return
        if self._handle is not None:
            self._handle.cancel()
        self._handle = asyncio.get_running_loop().call_soon(self._fire)

    def flush(self) -> None:
        """Deliver what is pending now (on stop, so the last state change is not lost)."""
        if self._handle is not None:
            self._handle.cancel()
        self._fire()

    def close(self) -> None:
        """Cancel a scheduled call; nothing more is delivered."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._callback = None
        self._pending.clear()
