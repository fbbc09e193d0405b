"""Waiting in tests on what a real process, socket or loop does: until a condition holds, looked at every
``POLL_S``, never for a length of time. A wait that runs out fails saying what it waited for.

``until`` (a check the event loop's own work makes true), ``until_answer`` (a check that awaits, such as a
query to an exchange) and ``until_sync`` (a check another thread or process makes true, from a test without a
loop)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

__all__ = ["DEADLINE_S", "POLL_S", "until", "until_answer", "until_sync"]

DEADLINE_S = 10.0  # generous: a busy CI machine is slow, and a wait that holds returns at once anyway
POLL_S = 0.01


async def until(ready: Callable[[], object], what: str, timeout_s: float = DEADLINE_S) -> None:
    """Until ``ready()`` is true; the loop runs in between."""
    await until_answer(_answered(ready), what, timeout_s)


async def until_answer(ready: Callable[[], Awaitable[object]], what: str, timeout_s: float = DEADLINE_S) -> None:
    """Until ``await ready()`` is true."""
    try:
        async with asyncio.timeout(timeout_s):
            while not await ready():
                await asyncio.sleep(POLL_S)
    except TimeoutError:
        raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}") from None


def until_sync(ready: Callable[[], object], what: str, timeout_s: float = DEADLINE_S) -> None:
    """Until ``ready()`` is true, from a test that has no event loop (another thread or process makes it so)."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}")
        time.sleep(POLL_S)


def _answered(ready: Callable[[], object]) -> Callable[[], Awaitable[object]]:
    async def answer() -> object:
        return ready()

    return answer
