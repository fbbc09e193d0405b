"""The feed counts the pushes it receives by channel (the diagnostics overlay's messages a second): the same
frames a second subscriber of the same channels receives, no more, no fewer."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.conftest import QUIET_WS
from tests.feed.conftest import MakeFeed
from tests.waiting import until
from tui.api import wire
from tui.api.client import Client
from tui.api.ws import WsClient
from tui.sim.server.local_exchange import LocalExchange


async def test_messages_by_channel_match_a_second_subscriber(
    make_feed: MakeFeed, sim: LocalExchange, alice: Client, bob: Client
) -> None:
    await alice.cancel_all()  # the faucet
    await bob.cancel_all()
    feed, _ = await make_feed()
    counted = feed.state.status.messages
    assert counted["orderbook"] >= 1 and counted["ticker"] >= 1  # the snapshots the subscriptions began with

    seen: Counter[str] = Counter()
    observer = WsClient(sim.ws_url, **QUIET_WS)
    await observer.start()
    try:

        def count(channel: str) -> Any:
            return lambda _data: seen.update([channel])

        await observer.subscribe("orderbook", count("orderbook"), symbol="BTC-PERP")
        await observer.subscribe("trades", count("trades"), symbol="BTC-PERP")
        await until(lambda: seen["orderbook"] >= 1, "the observer's snapshot")
        before, seen_before = Counter(counted), Counter(seen)
        for i in range(5):  # resting orders (book frames), then one that trades with two of them (trades)
            await alice.place_order([wire.order_item(1, "b", str(99_000 - 10 * i), "0.01")])
        await bob.place_order([wire.order_item(1, "s", "98980", "0.02", tif="IOC")])

        def grown(channel: str) -> tuple[int, int]:
            return counted[channel] - before[channel], seen[channel] - seen_before[channel]

        await until(lambda: grown("trades")[1] >= 1 and grown("orderbook")[1] >= 6, "the observer's frames")
        await until(lambda: grown("orderbook") == (grown("orderbook")[1],) * 2, f"orderbook {grown('orderbook')}")
        await until(lambda: grown("trades") == (grown("trades")[1],) * 2, f"trades {grown('trades')}")
        assert grown("orderbook")[0] >= 6 and grown("trades")[0] >= 1, (grown("orderbook"), grown("trades"))
    finally:
        await observer.close()
