"""`xtui sim` as a real child process on a fixed port, to kill -9, restart, freeze and thaw; and a headless feed on it.

Every wait is bounded by a deadline; nothing sleeps for time to pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

from tui.api.client import Client
from tui.feed.worker import Feed

START_S = 30.0  # a cold `python -m tui` start on a busy machine, with room to spare


@contextlib.asynccontextmanager
async def sim_process() -> AsyncIterator[SimProcess]:
    """A real `xtui sim` process on a free port, stopped at the end whatever the test did to it (froze, killed)."""
    sim = SimProcess(free_port())
    await sim.start()
    try:
        yield sim
    finally:
        await sim.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class SimProcess:
    """``python -m tui sim --port PORT --quiet-market`` (only orders move the book), and ``flags`` after it
    (``--faults brutal``); the first ``said`` lines it writes to its standard error are kept in ``said``."""

    def __init__(self, port: int, *flags: str, said: int = 0) -> None:
        self.port = port
        self.flags = flags
        self.proc: asyncio.subprocess.Process | None = None
        self.said_lines = said
        self.said: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/"

    async def start(self) -> float:
        """Start it; returns the loop time at which it said it was listening."""
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tui", "sim", "--port", str(self.port), "--quiet-market", *self.flags,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE if self.said_lines else asyncio.subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        assert self.proc.stdout is not None
        async with asyncio.timeout(START_S):
            line = await self.proc.stdout.readline()
            if self.said_lines:
                assert self.proc.stderr is not None
                self.said = [(await self.proc.stderr.readline()).decode().rstrip() for _ in range(self.said_lines)]
        if not line.startswith(b"listening on"):
            raise RuntimeError(f"xtui sim did not start: {line!r}")
        return asyncio.get_running_loop().time()

    def signal(self, sig: signal.Signals) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    async def kill(self) -> None:
        """kill -9: no close frames, no goodbyes."""
        assert self.proc is not None
        self.proc.kill()
        async with asyncio.timeout(START_S):
            await self.proc.wait()

    async def stop(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        self.proc.send_signal(signal.SIGCONT)  # a frozen process would not hear SIGTERM
        self.proc.terminate()
        try:
            async with asyncio.timeout(10):
                await self.proc.wait()
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


class Watcher:
    """``on_change`` for a feed: lets the caller wait, bounded, for a condition on the feed's state."""

    def __init__(self) -> None:
        self.feed: Feed | None = None
        self._event = asyncio.Event()

    def __call__(self, topics: frozenset[str]) -> None:
        self._event.set()

    async def until(self, pred: Callable[[], bool], timeout: float) -> float:
        """Wait until ``pred()`` holds; returns the loop time it was first seen to hold."""
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(timeout):
            while not pred():
                self._event.clear()
                with contextlib.suppress(TimeoutError):  # also look now and then: a poll may change nothing
                    async with asyncio.timeout(0.01):
                        await self._event.wait()
        return loop.time()


async def running_feed(
    sim: SimProcess, *, http_timeout: float = 5.0, **ws_options: Any
) -> tuple[Feed, Watcher, asyncio.Task[None], Client]:
    """A headless feed (no account) on ``sim``, ready; the caller stops it and closes the client."""
    client = Client(sim.url, testnet=True, timeout=http_timeout)
    watcher = Watcher()
    feed = Feed(client, sim.ws_url, account=None, on_change=watcher, coalesce_s=0.01, ws_options=ws_options)
    watcher.feed = feed
    task = asyncio.create_task(feed.run())
    async with asyncio.timeout(START_S):
        await feed.wait_ready()
    await watcher.until(lambda: feed.state.status.connection == "live", START_S)
    return feed, watcher, task, client
