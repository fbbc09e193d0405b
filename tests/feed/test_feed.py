"""The feed against the local exchange: loading, following orders, resync, reconnect, bad data."""

from __future__ import annotations

import asyncio
import contextlib
import time
from decimal import Decimal
from typing import Any

from tests.conftest import QUIET_WS, client_for
from tests.feed.conftest import WAIT_S, Changes, MakeFeed
from tests.waiting import until
from tui.api import wire
from tui.api.client import Client
from tui.feed.worker import Feed
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

D = Decimal


async def info_levels(client: Client, symbol: str = "BTC-PERP") -> tuple[int, list[Any], list[Any]]:
    ob = await client.orderbook(symbol)
    return ob.sequence_number, [(x.price, x.size) for x in ob.bids], [(x.price, x.size) for x in ob.asks]


async def assert_book_matches_info(feed: Feed, changes: Changes, client: Client) -> None:
    seq, bids, asks = await info_levels(client, feed.state.market.selected)
    await changes.until(lambda: feed.state.market.book.sequence >= seq)
    book = feed.state.market.book
    assert book.sequence == seq and not book.stale
    assert book.levels("bids", 50) == bids
    assert book.levels("asks", 50) == asks


def address(client: Client) -> str:
    assert client.signer is not None
    return client.signer.address


async def test_loads_instruments_book_tickers_and_clock(make_feed: MakeFeed, alice: Client, clock: FrozenClock) -> None:
    await alice.place_order([wire.order_item(1, "b", "99000", "0.5"), wire.order_item(1, "s", "101000", "0.25")])
    feed, _ = await make_feed(address(alice))
    market = feed.state.market
    assert list(market.instruments)[:4] == ["BTC-PERP", "ETH-PERP", "SOL-PERP", "HYPE-PERP"]
    btc, spot = market.instruments["BTC-PERP"], market.instruments["BTC/USDC"]
    assert (btc.id, btc.kind, btc.tick_size, btc.max_leverage) == (1, "perp", D("0.1"), 50)
    assert (spot.kind, spot.max_leverage, spot.min_notional) == ("spot", 1, D(10))
    assert set(market.tickers) == set(market.instruments)
    assert market.book.levels("bids", 5) == [(D(99000), D("0.5"))]
    assert (market.book.best_ask, market.book.spread) == (D(101000), D(2000))
    assert [o.limit_price for o in feed.state.account.open_orders] == [D(101000), D(99000)]
    status = feed.state.status
    assert status.connection == "live" and status.last_error is None and status.rate is not None
    # the exchange's clock is frozen at 2026-01-01: the drift is its distance from this machine's clock
    assert status.clock_drift_ms is not None
    assert abs(status.clock_drift_ms - (clock.now_ms() - time.time() * 1000)) < 5_000
    assert {"book", "markets", "orders", "account"} <= set(status.updated)


async def test_book_trades_and_account_follow_orders(make_feed: MakeFeed, alice: Client, bob: Client) -> None:
    await alice.cancel_all()  # the first action opens (and funds) the account
    feed, changes = await make_feed(address(alice))
    account, market = feed.state.account, feed.state.market
    assert account.summary is not None and account.open_orders == [] and account.positions == []

    await alice.place_order([wire.order_item(1, "b", "99500", "0.4")])
    await changes.until(lambda: market.book.best_bid == D(99500) and len(account.open_orders) == 1)
    assert account.open_orders[0].unfilled == D("0.4")

    await bob.place_order([wire.order_item(1, "s", "99500", "0.1", tif="IOC")])
    await changes.until(lambda: len(market.trades) == 1 and len(account.positions) == 1 and len(account.fills) == 1)
    trade = market.trades[0]
    assert (trade.price, trade.size, trade.side) == (D(99500), D("0.1"), "s")
    assert market.book.levels("bids", 1) == [(D(99500), D("0.3"))]
    await changes.until(lambda: account.open_orders[0].unfilled == D("0.3"))
    assert account.positions[0].size == D("0.1") and account.positions[0].entry_price == D(99500)
    assert account.fills[0].price == D(99500) and account.fills[0].direction == "openLong"
    await changes.until(lambda: account.summary is not None and "BTC-PERP" in account.summary.perp_positions)

    await alice.cancel_all()
    await changes.until(lambda: account.open_orders == [] and market.book.best_bid is None)
    # a poll agrees with what the pushes built, and brings the exchange's full fill record
    await feed.refresh_account()
    assert account.open_orders == [] and [p.size for p in account.positions] == [D("0.1")]
    assert account.fills[0].start_size == 0 and account.fills[0].notional_value == D(9950)


async def test_book_equals_info_after_a_burst(make_feed: MakeFeed, alice: Client, bob: Client) -> None:
    feed, changes = await make_feed()
    for i in range(10):
        await alice.place_order(
            [
                wire.order_item(1, "b", str(99_000 + 10 * i), "0.3"),
                wire.order_item(1, "s", str(101_000 - 10 * i), "0.2"),
            ]
        )
    await bob.place_order([wire.order_item(1, "s", "99050", "1.1", tif="IOC")])  # eats several bid levels
    await bob.place_order([wire.order_item(1, "b", "100930", "0.5", tif="IOC")])  # partly eats one ask level
    await alice.cancel_by_oid([(2, 1), (4, 1)])
    await assert_book_matches_info(feed, changes, alice)
    assert len(feed.state.market.trades) >= 4


async def test_sequence_gap_reloads_the_book_from_info(make_feed: MakeFeed, sim: LocalExchange, alice: Client) -> None:
    sim.hub.repeat_after_s = ()  # a late repeat of the subscription's snapshot would heal the gap this test makes
    await alice.place_order([wire.order_item(1, "b", "99000", "0.5")])
    feed, changes = await make_feed(poll_s=0.2)
    book, status = feed.state.market.book, feed.state.status
    assert status.resyncs == 1
    # two updates lost on the way: the exchange's next update comes two sequence numbers late
    sim.engine.markets[1].seq += 2
    await alice.place_order([wire.order_item(1, "b", "99100", "0.5")])
    await changes.until(lambda: status.resyncs == 2 and book.best_bid == D(99100))
    await assert_book_matches_info(feed, changes, alice)

    # a frame from a future the exchange never reaches: the reloads cannot place it, so the book is
    # marked stale, and the next poll reloads it whole
    seq = book.sequence
    frame = {
        "update_type": "update",
        "instrument_name": "BTC-PERP",
        "books": {"bids": [{"price": 12_345, "size": 7}], "asks": [], "sequence_number": seq + 3, "timestamp": 0},
    }
    sim.hub.publish("orderbook", "BTC-PERP", frame)
    await changes.until(lambda: book.stale)
    await changes.until(lambda: not book.stale)
    assert book.size_at("bids", D(12_345)) == 0 and book.sequence == seq
    await assert_book_matches_info(feed, changes, alice)


async def test_updates_during_a_resync_are_replayed_once(sim: LocalExchange, clock: FrozenClock) -> None:
    async with client_for(sim, None, clock) as client:
        feed = Feed(client, sim.ws_url, account=None)  # not running: the handlers alone
        seq, _, _ = await info_levels(client)
        now = clock.now_ms()

        def update(n: int, price: int) -> dict[str, Any]:
            books = {"bids": [{"price": price, "size": 1}], "asks": [], "sequence_number": n, "timestamp": now}
            return {"update_type": "update", "instrument_name": "BTC-PERP", "books": books}

        feed.frames.handle_book(update(seq + 1, 90_000))  # no book yet: a resync starts, the update waits
        feed.frames.handle_book(update(seq, 80_000))  # already in the snapshot: to be skipped
        feed.frames.handle_book(update(seq + 2, 91_000))
        await feed.frames.resync_book()
        book = feed.state.market.book
        assert book.sequence == seq + 2 and feed.state.status.resyncs == 1
        assert book.levels("bids", 5) == [(D(91_000), D(1)), (D(90_000), D(1))]


async def test_socket_drop_polls_then_reconnects_and_resyncs(
    make_feed: MakeFeed, sim: LocalExchange, alice: Client
) -> None:
    await alice.place_order([wire.order_item(1, "b", "99000", "0.5")])
    feed, changes = await make_feed(address(alice), poll_s=0.2)
    sim.limiter.limits.ws_connections = 0  # reconnects are refused until the test allows them
    for conn in list(sim.hub.connections):
        await conn.ws.close()
    await changes.until(lambda: feed.state.status.connection == "polling")
    # socket down: the book and the account still follow, by /info polls
    await alice.place_order([wire.order_item(1, "b", "99200", "0.5")])
    await changes.until(lambda: feed.state.market.book.best_bid == D(99200))
    await changes.until(lambda: len(feed.state.account.open_orders) == 2)

    await alice.place_order([wire.order_item(1, "s", "101000", "0.5")])  # missed by the socket
    sim.limiter.limits.ws_connections = 100
    await changes.until(lambda: feed.state.status.connection == "live")
    assert feed.state.status.reconnects == 1
    await assert_book_matches_info(feed, changes, alice)
    await alice.place_order([wire.order_item(1, "s", "100900", "0.5")])  # pushed again after the reconnect
    await changes.until(lambda: feed.state.market.book.best_ask == D(100900))
    await assert_book_matches_info(feed, changes, alice)


async def test_bad_frames_are_counted_and_the_feed_keeps_going(
    make_feed: MakeFeed, sim: LocalExchange, alice: Client
) -> None:
    await alice.cancel_all()
    feed, changes = await make_feed(address(alice))
    status = feed.state.status
    sim.hub.publish("orderbook", "BTC-PERP", {"garbage": True})
    sim.hub.publish("trades", "BTC-PERP", "nonsense")
    sim.hub.publish("ticker", "ETH-PERP", {"symbol": "ETH-PERP", "mark_price": "NaN"})
    sim.hub.publish("account_summary", address(alice).lower(), [1, 2, 3])
    await changes.until(lambda: status.bad_frames == 4)
    assert status.last_error is not None and status.last_error.startswith("bad account_summary data")
    assert status.resyncs == 1  # a frame that does not decode says nothing about the sequence
    # a well-formed frame with a negative size: bad data inside the book, so the book is reloaded
    seq = feed.state.market.book.sequence
    neg = {"bids": [{"price": 1, "size": -1}], "asks": [], "sequence_number": seq + 1, "timestamp": 0}
    sim.hub.publish("orderbook", "BTC-PERP", {"update_type": "update", "instrument_name": "BTC-PERP", "books": neg})
    await changes.until(lambda: status.bad_frames == 5 and status.resyncs == 2)
    await alice.place_order([wire.order_item(1, "b", "99000", "0.5")])
    await changes.until(lambda: len(feed.state.account.open_orders) == 1)
    await assert_book_matches_info(feed, changes, alice)
    assert status.connection == "live"


async def test_failing_polls_are_reported_not_raised(make_feed: MakeFeed, sim: LocalExchange) -> None:
    unreachable = Client("http://127.0.0.1:9")  # nothing listens there: every /info call fails
    feed, changes = await make_feed(ready=False, client=unreachable)
    await changes.until(lambda: feed.state.status.errors >= 2)
    assert feed.state.status.last_error is not None and feed.state.status.last_error.startswith("instruments:")
    assert not feed.state.market.instruments


async def test_select_and_chart(make_feed: MakeFeed, alice: Client, bob: Client, sim: LocalExchange) -> None:
    feed, changes = await make_feed()
    market = feed.state.market
    await feed.select("ETH-PERP")
    assert market.selected == "ETH-PERP" and market.book.symbol == "ETH-PERP" and market.book.loaded
    await alice.place_order([wire.order_item(1, "b", "99000", "0.5"), wire.order_item(2, "b", "3400", "1")])
    await changes.until(lambda: market.book.best_bid == D(3400))
    assert market.book.depth("bids") == 1  # BTC-PERP's order is not in the ETH book

    await feed.set_chart("ltp", "1")
    await alice.place_order([wire.order_item(2, "s", "3450", "1")])
    await bob.place_order([wire.order_item(2, "b", "3450", "0.4", tif="IOC")])
    await changes.until(lambda: bool(market.candles) and market.candles[-1].close == D(3450))
    first = market.candles[-1].time
    sim.step(60_000)
    await bob.place_order([wire.order_item(2, "b", "3450", "0.1", tif="IOC")])
    await changes.until(lambda: market.candles[-1].time == first + 60_000)
    assert [c.time for c in market.candles] == sorted({c.time for c in market.candles})
    assert market.candles[-1].volume == D("0.1")


async def test_a_feed_cancelled_again_while_it_ends_still_ends_and_stop_returns(
    sim: LocalExchange, clock: FrozenClock
) -> None:
    """Tried: the feed's task is cancelled (as Textual cancels a worker when the app shuts down), then cancelled
    again while its ending waits for its tasks and socket to close. The ending goes on: ``stop()`` returns
    (it used to wait for ever: a dashboard test hung in ``on_unmount``), the status says closed and the
    exchange sees the socket go."""
    async with client_for(sim, None, clock) as client:
        feed = Feed(client, sim.ws_url, account=None, ws_options=QUIET_WS)
        task = asyncio.create_task(feed.run())
        async with asyncio.timeout(WAIT_S):
            await feed.wait_ready()
        assert sim.hub.connections
        task.cancel()
        await asyncio.sleep(0)  # run() is in its ending now, waiting for its tasks to end
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        async with asyncio.timeout(WAIT_S):
            await feed.stop()
            await until(lambda: not sim.hub.connections, "the feed's socket to close")
        assert feed.state.status.connection == "closed"


async def test_the_account_is_looked_at_once_its_opening_is_done(
    make_feed: MakeFeed, sim: LocalExchange, clock: FrozenClock, alice: Client
) -> None:
    """``account_opens_with`` (the dashboard's faucet on the local exchange): the market loads meanwhile; the
    account's first poll waits for the opening, and then runs. (The account's channels are subscribed as ever:
    what they push is not held.)"""
    opened = asyncio.Event()
    polled: list[str] = []
    client = client_for(sim, None, clock)
    summary = client.account_summary

    async def account_summary(user: str) -> Any:
        polled.append(user)
        return await summary(user)

    client.account_summary = account_summary  # type: ignore[method-assign]

    async def opening() -> None:
        await opened.wait()

    feed, changes = await make_feed(address(alice), ready=False, client=client)
    feed.account_opens_with(opening())
    await changes.until(lambda: feed.state.market.book.loaded and bool(feed.state.market.tickers))
    assert polled == []  # the first poll starts with the tickers' (one gather): it waits at the gate
    opened.set()
    async with asyncio.timeout(WAIT_S):
        await feed.wait_ready()
    assert polled == [address(alice)] and feed.state.account.loaded
