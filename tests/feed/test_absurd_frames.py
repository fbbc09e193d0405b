"""Well-formed frames with absurd values (a price at or below 0, a negative size) are dropped at the edge and
counted as bad data; none of their values reaches the feed's state."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tests.feed.conftest import MakeFeed
from tests.feed.test_feed import address, assert_book_matches_info
from tui.api import wire
from tui.api.client import Client
from tui.sim.server.local_exchange import LocalExchange

D = Decimal


def trade(price: Any, size: Any) -> dict[str, Any]:
    return {
        "instrument_id": 1, "instrument": "BTC-PERP", "trade_id": 10**9, "tx_hash": "0x1", "side": "b",
        "price": price, "size": size, "maker": "0x2", "taker": "0x3", "timestamp": 1,
    }  # fmt: skip


async def test_absurd_market_frames_are_dropped_and_counted(
    make_feed: MakeFeed, sim: LocalExchange, alice: Client
) -> None:
    await alice.place_order([wire.order_item(1, "b", "99000", "0.5")])
    feed, changes = await make_feed()
    status, market = feed.state.status, feed.state.market
    book = market.book
    eth = market.tickers["ETH-PERP"]
    candles = list(market.candles)
    seq = book.sequence

    async def refused(channel: str, key: str, payload: Any, why: str) -> None:
        count = status.bad_frames
        sim.hub.publish(channel, key, payload)
        await changes.until(lambda: status.bad_frames == count + 1)
        assert status.last_error is not None and why in status.last_error, status.last_error

    # a book update with a level at price 0, then one at a negative price: the book is reloaded, not changed
    for price in (0, -5):
        books = {"bids": [{"price": price, "size": 1}], "asks": [], "sequence_number": seq + 1, "timestamp": 0}
        update = {"update_type": "update", "instrument_name": "BTC-PERP", "books": books}
        await refused("orderbook", "BTC-PERP", update, f"bid price {price} is not above 0")
    await refused("trades", "BTC-PERP", [trade(100_000, -1)], "size -1 is not above 0")
    await refused("trades", "BTC-PERP", [trade(0, 1)], "price 0 is not above 0")
    await refused("ticker", "ETH-PERP", {**wire_ticker(eth), "mark_price": -1}, "mark_price -1 is negative")
    bad = {"time": candles[-1].time, "open": 1, "high": 1, "low": 1, "close": 0, "volume": 1}
    await refused("chart", "1:ltp:1", bad, "close 0 is not above 0")

    assert all(t.trade_id != 10**9 for t in market.trades)
    assert market.tickers["ETH-PERP"].mark_price == eth.mark_price
    assert market.candles[-1].close == candles[-1].close
    await changes.until(lambda: not book.stale)
    assert book.size_at("bids", D(0)) == 0 and book.size_at("bids", D(-5)) == 0
    await assert_book_matches_info(feed, changes, alice)


async def test_absurd_account_frames_are_dropped_and_counted(
    make_feed: MakeFeed, sim: LocalExchange, alice: Client
) -> None:
    await alice.place_order([wire.order_item(1, "b", "99000", "0.5")])
    user = address(alice)
    feed, changes = await make_feed(user)
    status, account = feed.state.status, feed.state.account
    order = account.open_orders[0]
    pushed = {
        "instrument_id": 1, "instrument": "BTC-PERP", "account": user, "tif": "GTC", "order_id": order.order_id,
        "cloid": "", "side": "b", "position_side": "BOTH", "limit_price": "99000", "size": "-0.5", "unfilled": "0.5",
        "state": "open", "reduce_only": False, "post_only": False, "timestamp": 1,
    }  # fmt: skip
    sim.hub.publish("orders", user.lower(), [pushed])  # a negative order size
    await changes.until(lambda: status.bad_frames == 1)
    assert account.open_orders[0].size == D("0.5")
    assert status.last_error is not None and "size -0.5 is negative" in status.last_error


def wire_ticker(t: Any) -> dict[str, Any]:
    """A ticker record as the WebSocket sends it (numbers)."""
    out: dict[str, Any] = {}
    for name in t.__struct_fields__:
        value = getattr(t, name)
        out[name] = float(value) if isinstance(value, Decimal) else value
    return out
