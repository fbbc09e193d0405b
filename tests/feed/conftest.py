"""Feeds on the local exchange (frozen clock), and a recorder of their change notifications."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from tests.conftest import QUIET_WS, client_for
from tui.api.client import Client
from tui.feed.worker import Feed
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

WAIT_S = 10.0  # network delivery on loopback; far more than it takes


class Changes:
    """``on_change`` for a feed: records every call and lets a test wait for a condition on the state."""

    def __init__(self) -> None:
        self.calls: list[frozenset[str]] = []
        self.connections: list[str] = []  # the status's connection at each call
        self.feed: Feed | None = None
        self.also: list[Callable[[], object]] = []  # called at every notice too, before a waiting test looks
        self._event = asyncio.Event()

    def __call__(self, topics: frozenset[str]) -> None:
        self.calls.append(topics)
        if self.feed is not None:
            self.connections.append(self.feed.state.status.connection)
        for call in self.also:
            call()
        self._event.set()

    async def until(self, pred: Callable[[], bool], timeout: float = WAIT_S) -> None:
        """Wait (bounded) until ``pred()`` holds, checking after every notification."""
        async with asyncio.timeout(timeout):
            while not pred():
                self._event.clear()
                await self._event.wait()


MakeFeed = Callable[..., Awaitable[tuple[Feed, Changes]]]


@pytest.fixture
async def make_feed(sim: LocalExchange, clock: FrozenClock) -> AsyncIterator[MakeFeed]:
    """``await make_feed(account=..., **feed_kwargs)``: a running feed on ``sim``, ready."""
    running: list[tuple[Feed, asyncio.Task[None], Client]] = []

    async def make(account: str | None = None, *, ready: bool = True, **kwargs: Any) -> tuple[Feed, Changes]:
        client = kwargs.pop("client", None) or client_for(sim, None, clock)
        changes = Changes()
        options = {"coalesce_s": 0.01, "ws_options": {**QUIET_WS, "backoff_min": 0.05, "backoff_max": 0.2}, **kwargs}
        feed = Feed(client, sim.ws_url, account=account, on_change=changes, **options)
        changes.feed = feed
        task = asyncio.create_task(feed.run())
        running.append((feed, task, client))
        if ready:
            async with asyncio.timeout(WAIT_S):
                await feed.wait_ready()
            # every channel subscribed: each instrument's ticker, the market's three, the account's five
            want = len(feed.state.market.instruments) + 3 + (5 if account else 0)
            await changes.until(lambda: feed.state.status.subscriptions == want)
        return feed, changes

    yield make
    for feed, task, client in running:
        await feed.stop()
        await task
        await client.aclose()
