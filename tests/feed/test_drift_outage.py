"""Clock drift is measured on fresh stamps only: a killed exchange never makes a drift warning.

A real `xtui sim` process is killed -9 just as it has pushed a book update, and the feed's wall clock is stepped
1.2 s while the update waits unread (as when the dashboard's loop stalls at a disconnect): that update, read
late, is no measure of the clocks, and the polls that fail meanwhile measure nothing. Once the exchange is back,
its fresh stamps do measure the step. Nothing sleeps: the wall clock is stepped, waits have deadlines.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from decimal import Decimal

import pytest
from websockets.sync.client import connect

from tests.feed.sim_process import START_S, SimProcess, Watcher, sim_process
from tests.feed.test_outages import QUICK, place_bid
from tests.waiting import until
from tui.api.client import Client
from tui.feed.worker import Feed
from tui.ui.widgets.status_bar import drift_warning

STEP_S = 1.2  # the wall clock's step while the last update waits unread: past the warning's second


@pytest.fixture
async def exchange() -> AsyncIterator[SimProcess]:
    async with sim_process() as sim:
        yield sim


def place_blocking(sim: SimProcess, price: str, size: str) -> None:
    """Place a bid from another thread, this loop held meanwhile, until a socket of the thread's own has had the
    exchange's update of it: the feed's copy, pushed beside it, waits unread."""

    def place_and_hear() -> None:
        with connect(sim.ws_url, open_timeout=START_S) as ws:
            ws.send(json.dumps({"jsonrpc": "2.0", "method": "subscribe", "id": 1,
                                "params": {"channel": "orderbook", "symbol": "BTC-PERP"}}))  # fmt: skip
            ws.recv(START_S)  # the subscription's answer (or its first picture)
            asyncio.run(place_bid(sim, price, size))
            deadline = time.monotonic() + START_S
            while price not in str(ws.recv(START_S)) and time.monotonic() < deadline:
                pass

    done = threading.Thread(target=place_and_hear)
    done.start()
    done.join(START_S)


async def test_a_killed_exchange_never_makes_a_drift_warning(exchange: SimProcess) -> None:
    step = [0.0]
    client = Client(exchange.url, testnet=True, timeout=1.0)
    watcher = Watcher()
    feed = Feed(
        client, exchange.ws_url, account=None, on_change=watcher, coalesce_s=0.01, poll_s=0.2,
        wall_clock=lambda: time.time() + step[0], ws_options=QUICK,
    )  # fmt: skip
    task = asyncio.create_task(feed.run())
    try:
        await asyncio.wait_for(feed.wait_ready(), START_S)
        status, book = feed.state.status, feed.state.market.book
        await until(lambda: status.connection == "live", "the feed live", START_S)
        await place_bid(exchange, "99000", "0.5")
        await until(lambda: book.size_at("bids", Decimal(99000)) == Decimal("0.5"), "the first bid")
        before = status.clock_drift_ms
        assert before is not None and abs(before) < 250, before  # measured, and the clocks agree

        place_blocking(exchange, "98000", "0.25")  # its update is pushed, not yet read
        step[0] = STEP_S  # before the loop runs again: the update is read after the step
        await exchange.kill()
        await until(lambda: status.connection != "live", "the outage seen")
        # the late update was read (the book has it) and measured nothing; the failed polls neither
        await until(lambda: book.size_at("bids", Decimal(98000)) == Decimal("0.25"), "the late update read")
        await until(lambda: "cannot connect" in str(status.last_error), "a poll failing")
        assert status.clock_drift_ms is not None and abs(status.clock_drift_ms - before) < 250, status.clock_drift_ms
        assert drift_warning(status.clock_drift_ms) is None

        # back: its fresh stamps measure the step (this clock now runs STEP_S ahead of the exchange's)
        await exchange.start()
        await until(lambda: status.connection == "live", "live again", START_S)
        await until(lambda: drift_warning(status.clock_drift_ms) is not None, "the step measured")
        assert status.clock_drift_ms is not None and abs(status.clock_drift_ms + STEP_S * 1000) < 250
    finally:
        await feed.stop()
        await task
        await client.aclose()
