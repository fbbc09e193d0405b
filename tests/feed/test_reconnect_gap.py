"""After a reconnect the feed says live only once the book and the account are reloaded, and a mark on the tape
separates the trades from before the gap from those after it; /info timing out makes the socket prove itself."""

from __future__ import annotations

from decimal import Decimal

from tests.conftest import client_for
from tests.feed.conftest import MakeFeed
from tests.feed.test_feed import address, assert_book_matches_info
from tui.api import wire
from tui.api.client import Client
from tui.api.errors import RequestTimeout
from tui.feed.worker import Feed
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

D = Decimal


async def test_reconnect_resyncs_before_live_and_marks_the_gap_on_the_tape(
    make_feed: MakeFeed, sim: LocalExchange, alice: Client, bob: Client
) -> None:
    await alice.place_order([wire.order_item(1, "b", "99500", "0.4")])
    feed, changes = await make_feed(address(alice))
    market, account, status = feed.state.market, feed.state.account, feed.state.status
    await bob.place_order([wire.order_item(1, "s", "99500", "0.1", tif="IOC")])
    await changes.until(lambda: len(market.trades) == 1 and len(account.positions) == 1)
    before = market.trades[0].trade_id

    sim.limiter.limits.ws_connections = 0  # refused until the test allows it
    for conn in list(sim.hub.connections):
        await conn.ws.close()
    await changes.until(lambda: status.connection != "live")
    # missed by the socket: a trade, an order filled away, a new order
    await bob.place_order([wire.order_item(1, "s", "99500", "0.3", tif="IOC")])
    await alice.place_order([wire.order_item(1, "b", "99400", "0.2")])

    seen: list[tuple[str, bool, int]] = []  # (connection, book stale, open orders) at every notice

    changes.also.append(lambda: seen.append((status.connection, market.book.stale, len(account.open_orders))))
    sim.limiter.limits.ws_connections = 100
    # until a notice says live (the state can turn live a moment before the notice that tells it goes out)
    await changes.until(lambda: any(s[0] == "live" for s in seen))
    first_live = next(s for s in seen if s[0] == "live")
    assert first_live[1:] == (False, 1)  # live only with the book reloaded and the orders reconciled
    assert status.reconnects == 1
    await assert_book_matches_info(feed, changes, alice)
    assert [p.size for p in account.positions] == [D("0.4")]

    assert len(market.tape_marks) == 1
    mark = market.tape_marks[0]
    assert mark.after_trade_id == before and mark.gap_s > 0
    assert market.trades[0].trade_id > before  # the missed trade is on the tape, above the mark


async def test_info_timing_out_twice_in_a_row_has_the_socket_tested(sim: LocalExchange, clock: FrozenClock) -> None:
    async with client_for(sim, None, clock) as client:
        feed = Feed(client, sim.ws_url, account=None)  # not running: the /info path alone

        class Socket:
            suspected = 0

            def suspect(self) -> None:
                self.suspected += 1

        socket = Socket()
        feed._ws = socket  # type: ignore[assignment]  # private: a socket that counts what it is told, not run
        core = feed._core  # private: the feed's /info calls, made without running the feed

        async def timed_out() -> None:
            raise RequestTimeout("info: no answer in time")

        await core.fetch("orderbook", timed_out())
        assert socket.suspected == 0  # one slow answer proves little
        await core.fetch("trades", timed_out())
        assert socket.suspected == 1  # two in a row: the socket gets a ping interval to answer
        assert await core.fetch("ticker", client.ticker("BTC-PERP")) is not None
        await core.fetch("orderbook", timed_out())
        assert socket.suspected == 1  # an answer in between starts the count again
