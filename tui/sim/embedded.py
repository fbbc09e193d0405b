"""The local exchange in a background thread with its own asyncio loop: what ``xtui`` runs when a profile has no
URL, and what the snapshot tests and the screenshots run, so the synthetic market never takes a frame from the UI.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar

from tui.sim.clock import Clock, SystemClock
from tui.sim.server.local_exchange import LocalExchange, SimConfig, open_exchange

T = TypeVar("T")

__all__ = ["EmbeddedExchange", "EmbeddedExchangeError"]


class EmbeddedExchangeError(RuntimeError):
    """The local exchange did not start, or is not running."""


class EmbeddedExchange:
    """The local exchange on a free loopback port, served from a background thread and its own loop."""

    def __init__(self, config: SimConfig | None = None, clock: Clock | None = None) -> None:
        self._config = config
        self._clock = clock
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None
        self.exchange: LocalExchange | None = None
        self.url = ""

    def start(self, timeout: float = 20.0) -> str:
        """Start serving and return the base URL; raises what the server raised while starting."""
        self._thread = threading.Thread(target=self._run, name="xtui-local-exchange", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise EmbeddedExchangeError("the local exchange did not start in time")
        if self._error is not None:
            raise EmbeddedExchangeError(f"the local exchange did not start: {self._error}")
        return self.url

    def _run(self) -> None:
        async def serve() -> None:
            self._stop = asyncio.Event()
            try:  # a mirror reads its source first (up to ``mirror.OPEN_TIMEOUT_S``)
                self.exchange = await open_exchange(self._config or SimConfig(), self._clock or SystemClock())
                self.url = await self.exchange.start()
            except BaseException as exc:
                self._error = exc
                self._ready.set()
                return
            self._ready.set()
            try:
                await self._stop.wait()
            finally:
                await self.exchange.stop()

        self._loop = asyncio.new_event_loop()
        try:
            self._loop.run_until_complete(serve())
        finally:
            self._loop.close()

    def call(self, fn: Callable[[LocalExchange], T], timeout: float = 30.0) -> T:
        """Run ``fn(exchange)`` on the exchange's own loop (``step`` a frozen clock, say) and return its result."""
        loop, exchange = self._loop, self.exchange
        if loop is None or exchange is None:
            raise EmbeddedExchangeError("the local exchange is not running")

        async def run() -> T:
            return fn(exchange)

        return asyncio.run_coroutine_threadsafe(run(), loop).result(timeout)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and wait for the thread."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> EmbeddedExchange:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
