"""A runner's pause between looks at the exchange that a cancel ends at once (the chase's, the OCO's, the trailing
stop's, the TWAP's)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

__all__ = ["sleep_unless_woken"]


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
