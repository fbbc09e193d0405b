"""Change notifications are coalesced: a burst of updates becomes a few calls carrying every topic."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import msgspec

from tests.conftest import client_for
from tests.feed.conftest import Changes
from tui.bench.feed import bench_feed, synthetic_frames
from tui.feed.worker import Feed
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

parse = msgspec.json.Decoder(float_hook=Decimal).decode  # as the WebSocket client parses frames


async def test_a_burst_becomes_few_calls_with_the_union_of_topics(sim: LocalExchange, clock: FrozenClock) -> None:
    async with client_for(sim, None, clock) as client:
        changes = Changes()
        feed = Feed(client, sim.ws_url, account=None, on_change=changes, coalesce_s=0.05)
        snapshot, frames = synthetic_frames(3_000)
        feed.frames.handle_book(parse(snapshot))
        await changes.until(lambda: len(changes.calls) == 1)  # the first change after quiet: at once
        assert changes.calls[0] == {"book", "status"}

        loop = asyncio.get_running_loop()
        start = loop.time()
        for i, (is_book, raw) in enumerate(frames):
            (feed.frames.handle_book if is_book else feed.frames.handle_trades)(parse(raw))
            if i % 100 == 99:
                await asyncio.sleep(0.002)  # the socket delivers in bursts; the loop runs in between
        elapsed = loop.time() - start
        feed.frames.handle_ticker(
            {
                "symbol": "ETH-PERP", "best_bid_price": 1, "best_ask_price": 2, "best_bid_size": 1,
                "best_ask_size": 1, "mark_price": 1, "mid_price": 1, "index_price": 1, "funding_rate": 0,
                "open_interest": 0, "volume_24h": 0, "change_24h": 0, "max_trading_price": 9,
                "min_trading_price": 0, "last_price": 1,
            }
        )  # fmt: skip
        await changes.until(lambda: "markets" in changes.calls[-1])  # what is pending is delivered

        burst = changes.calls[1:]
        assert len(burst) <= elapsed / 0.05 + 2 and len(burst) < 100
        assert frozenset().union(*burst) == {"book", "trades", "markets"}
        assert feed.state.market.book.sequence == 2_400 and len(feed.state.market.trades) == 200
        assert feed.state.status.bad_frames == 0 and feed.state.status.resyncs == 0


def test_bench_feed_runs_headless() -> None:
    assert bench_feed(500) > 0  # the figure itself is for `xtui bench`, not asserted here


async def test_the_first_full_picture_is_not_held_back_by_the_interval(sim: LocalExchange, clock: FrozenClock) -> None:
    """Tried: a feed whose notifier allows one call a minute. The first call ("connecting") goes at once; the
    first full picture (instruments, book) follows as soon as it is loaded, not a minute later: the dashboard's
    first frame waits for it. After it, the interval holds again."""
    async with client_for(sim, None, clock) as client:
        changes = Changes()
        feed = Feed(client, sim.ws_url, account=None, on_change=changes, coalesce_s=60)
        changes.feed = feed
        task = asyncio.create_task(feed.run())
        try:
            await changes.until(lambda: any("book" in call for call in changes.calls), timeout=5)
            calls = len(changes.calls)
            assert feed.state.market.book.loaded and calls <= 2  # "connecting" (unless it came with it), the picture
            status = feed.state.status
            heard = status.messages.total()
            sim.step(1000)  # trades, book updates, a block: news the interval holds back now
            async with asyncio.timeout(5):
                while status.messages.total() == heard:  # the news is in, unannounced: no call to wait on
                    await asyncio.sleep(0.01)
            await asyncio.sleep(0)  # a call scheduled with the news (call_soon) would have run
            assert len(changes.calls) == calls
        finally:
            await feed.stop()
            await task
