"""A runner's jobs as tasks, and their pause between looks at the exchange that a cancel ends at once (the chase's,
the OCO's, the trailing stop's, the TWAP's)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

__all__ = ["Runs", "sleep_unless_woken"]


async def sleep_unless_woken(
    wake: asyncio.Event, sleep: Callable[[float], Awaitable[None]], seconds: float | None
) -> None:
    """Until ``seconds`` of ``sleep`` have passed or ``wake`` is set, whichever comes first (None: until woken)."""
    tasks: set[asyncio.Future[object]] = {asyncio.ensure_future(wake.wait())}
    if seconds is not None:
        tasks.add(asyncio.ensure_future(sleep(seconds)))
    _, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()


class Runs:
    """A runner's jobs by id: each one's task, and the event that ends its wait (a cancel, a pause, a stop)."""

    def __init__(self, sleep: Callable[[float], Awaitable[None]]) -> None:
        self._sleep = sleep
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._wake: dict[int, asyncio.Event] = {}

    def start(self, job: int, run: Coroutine[Any, Any, None]) -> None:
        """Run ``run`` as job ``job``'s task."""
        self._wake[job] = asyncio.Event()
        self._tasks[job] = asyncio.get_running_loop().create_task(run)

    def wake(self, job: int) -> None:
        """End job ``job``'s wait now: what it waits for has changed."""
        self._wake[job].set()

    async def wait(self, job: int, seconds: float | None) -> None:
        """Until ``seconds`` have passed (None: until woken), or job ``job`` is woken."""
        event = self._wake[job]
        event.clear()
        await sleep_unless_woken(event, self._sleep, seconds)

    async def join(self) -> None:
        """Until every job's task has ended."""
        for task in list(self._tasks.values()):
            with contextlib.suppress(asyncio.CancelledError):
                await task
