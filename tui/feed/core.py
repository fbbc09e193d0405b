"""What every part of the feed shares: the client, the state, the clocks, change notification, error reporting,
background jobs and the generations that tell a late answer from a current one.

``Feed`` builds one ``FeedCore`` and hands it to its parts (``FrameHandlers``, ``ChannelSubscriptions``); each
part keeps its own state and reaches the others only through the methods they expose.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from tui.api.client import Client
from tui.api.errors import ClientError, RequestTimeout
from tui.api.models import DecodeError

from .book import BookState
from .drift import DriftMeter
from .events import EventLog
from .notify import ChangeNotifier
from .state import AccountState, FeedState, FeedStatus, MarketState

__all__ = ["FeedCore"]

log = logging.getLogger("tui.feed")  # the feed's log, one name for all its parts
T = TypeVar("T")

_LOGGED_ERRORS = 20  # then debug level, so a flood of bad frames does not flood the log


class FeedCore:
    """The feed's shared services. ``clock`` (monotonic seconds) stamps ``status.updated`` and paces
    notifications; ``wall`` (epoch seconds) is compared with the exchange's time; ``on_info_timeouts`` is
    told of every /info call timing out, with ``info_timeouts`` (in a row) counted."""

    def __init__(
        self,
        client: Client,
        *,
        account: str | None,
        symbol: str,
        on_change: Callable[[frozenset[str]], None] | None,
        coalesce_s: float,
        clock: Callable[[], float],
        wall: Callable[[], float],
        on_info_timeouts: Callable[[], None],
    ) -> None:
        self.client = client
        self.state = FeedState(
            MarketState(instruments={}, tickers={}, selected=symbol, book=BookState(symbol)),
            AccountState(address=account, events=EventLog(wall_ms=lambda: int(wall() * 1000))),
            FeedStatus(),
        )
        self.clock = clock
        self.wall = wall
        self.notify = ChangeNotifier(on_change, coalesce_s, clock)
        self.drift = DriftMeter(self.state.status, wall=wall, clock=clock, changed=lambda: self.notify.mark("status"))
        self.ready = asyncio.Event()
        self.wake = asyncio.Event()  # cuts the poll loop's wait short: the socket went down, stop(), a push
        self.market_gen = 0  # bumped on select(): late answers for the old instrument are dropped
        self.chart_gen = 0  # bumped on select() and set_chart(): late candles of the old chart are dropped
        self.info_timeouts = 0  # /info calls timed out in a row: evidence the exchange is unreachable
        self._on_info_timeouts = on_info_timeouts
        self._tasks: set[asyncio.Task[Any]] = set()

    # ---- status and notification ----------------------------------------------------------------

    def touch(self, topic: str, now: float) -> None:
        self.state.status.updated[topic] = now
        self.notify.mark(topic)

    def error(self, where: str, exc: BaseException | str) -> None:
        status = self.state.status
        status.errors += 1
        status.last_error = f"{where}: {exc}"
        status.error_source = where
        log.log(logging.WARNING if status.errors <= _LOGGED_ERRORS else logging.DEBUG, "feed %s", status.last_error)
        self.notify.mark("status")

    def bad(self, channel: str, exc: BaseException) -> None:
        self.state.status.bad_frames += 1
        self.error(f"bad {channel} data", exc)

    def recovered(self, source: str) -> None:
        """``source`` works again: the error it left in the status bar goes."""
        status = self.state.status
        if status.error_source == source:
            status.last_error = status.error_source = None
            self.notify.mark("status")

    def check_ready(self) -> None:
        s = self.state
        if self.ready.is_set():
            return
        if s.market.instruments and s.market.book.loaded and (s.account.address is None or s.account.loaded):
            self.ready.set()
            # the first full picture goes out now, not when the notifier's interval allows: the dashboard's
            # first frame waits for it (up to 75 ms after the "connecting" status it was sent just before)
            self.notify.soon()

    # ---- background jobs and /info calls --------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T | None]:
        task = asyncio.create_task(self._guard(coro, name), name=f"feed {name}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def cancel_jobs(self) -> None:
        """Cancel every background job and wait for them to end."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _guard(self, coro: Coroutine[Any, Any, T], name: str) -> T | None:
        """Run a background job; a bug in it is reported as an error, not a dead feed."""
        try:
            return await coro
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("feed job %s failed", name)
            self.error(name, exc)
            return None

    async def fetch(self, what: str, call: Coroutine[Any, Any, T]) -> T | None:
        """One /info call: its result, or None with the error reported (transport, 429, bad record)."""
        sent = self.clock()
        try:
            result = await call
        except (ClientError, DecodeError) as exc:
            self.error(what, exc)
            if isinstance(exc, RequestTimeout):
                self.info_timeouts += 1
                self._on_info_timeouts()
            return None
        self.info_timeouts = 0
        self.drift.dated(self.client.last_server_date, sent)  # read as it arrived: a late or failed one says nothing
        self.recovered(what)
        return result
