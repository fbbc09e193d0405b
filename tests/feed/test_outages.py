"""The feed against a real `xtui sim` process that is killed -9 and restarted, or frozen with SIGSTOP and thawed.

Small liveness timeouts (constructor options) keep each test to a few seconds; every wait has a deadline.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from decimal import Decimal

import pytest

from tests.conftest import ALICE_KEY
from tests.feed.sim_process import SimProcess, running_feed, sim_process
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.feed.worker import Feed

QUICK = {"ping_interval": 0.2, "idle_timeout": 1.0}  # stale after 0.625 s of silence, dead after 1 s
BACK_S = 1.0  # the goal: live again within a second of the exchange's return
NOTICE_S = 2.0  # a frozen exchange noticed (dead after 1 s, with room for a busy machine)


async def place_bid(sim: SimProcess, price: str, size: str) -> None:
    async with Client(sim.url, signer=Signer(ALICE_KEY), testnet=True) as alice:
        await alice.place_order([order_item(1, "b", price, size)])


async def book_matches_info(feed: Feed, client: Client) -> bool:
    info = await client.orderbook("BTC-PERP", depth=20)
    book = feed.state.market.book
    bids = [(lv.price, lv.size) for lv in info.bids]
    asks = [(lv.price, lv.size) for lv in info.asks]
    return not book.stale and book.levels("bids", 20) == bids and book.levels("asks", 20) == asks


@pytest.fixture
async def exchange() -> AsyncIterator[SimProcess]:
    async with sim_process() as sim:
        yield sim


async def test_killed_and_restarted_exchange_is_live_again_within_a_second_with_its_book(
    exchange: SimProcess,
) -> None:
    feed, watcher, task, client = await running_feed(exchange, **QUICK)
    status, book = feed.state.status, feed.state.market.book
    try:
        await place_bid(exchange, "99000", "0.5")
        await watcher.until(lambda: book.size_at("bids", Decimal(99000)) == Decimal("0.5"), 10)

        await exchange.kill()  # its book dies with it: the restarted exchange starts empty
        await watcher.until(lambda: status.connection != "live", 10)
        assert book.stale  # the socket is gone: the book is marked so at once
        returned = await exchange.start()
        live = await watcher.until(lambda: status.connection == "live", 10)
        assert live - returned <= BACK_S, f"live again {live - returned:.2f} s after the exchange returned"
        assert status.reconnects == 1
        assert book.size_at("bids", Decimal(99000)) == 0  # the old exchange's bid is gone
        assert await book_matches_info(feed, client)

        await place_bid(exchange, "98000", "0.25")  # and the new socket delivers
        await watcher.until(lambda: book.size_at("bids", Decimal(98000)) == Decimal("0.25"), 10)
        assert await book_matches_info(feed, client)
    finally:
        await feed.stop()
        await task
        await client.aclose()


async def test_frozen_exchange_is_noticed_and_recovered_after_thaw(exchange: SimProcess) -> None:
    feed, watcher, task, client = await running_feed(exchange, http_timeout=1.0, **QUICK)
    status = feed.state.status
    seen: list[str] = []
    try:
        loop = asyncio.get_running_loop()
        frozen = loop.time()
        exchange.signal(signal.SIGSTOP)  # the socket stays open and says nothing: half-open
        noticed = await watcher.until(lambda: status.connection != "live", 10)
        assert noticed - frozen <= NOTICE_S, f"noticed after {noticed - frozen:.2f} s"
        seen.append(status.connection)
        await watcher.until(lambda: status.connection == "reconnecting", 10)  # taken for dead
        assert feed.state.market.book.stale

        exchange.signal(signal.SIGCONT)
        await watcher.until(lambda: status.connection == "live", 15)
        assert status.reconnects >= 1
        assert await book_matches_info(feed, client)
    finally:
        await feed.stop()
        await task
        await client.aclose()
    assert seen[0] in ("stale", "reconnecting", "polling")
