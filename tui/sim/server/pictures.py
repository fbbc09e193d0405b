"""A subscription's first picture: what a new subscriber of (channel, key) is sent right after the reply.

State channels get the current state in the channel's own payload shape (a list of records where the
channel's records are per instrument or per order): the book snapshot, the ticker, mid, best bid/offer,
index prices, the open candle, the open orders, the positions, the account summary, the balances and the
approved agents. Event streams (trades, fills, funding payments, blocks, transactions) get an empty batch:
nothing has happened since the subscription. Every picture can be delivered more than once (see
``ws_hub``) without a client counting anything twice: a state replaces itself, an empty batch adds nothing.
"""

from __future__ import annotations

from typing import Any

from ..engine import Exchange
from ..engine.views import balance_update

EVENT_STREAMS = frozenset({"trades", "fills", "funding_payments", "blocks", "transactions"})


def first_picture(e: Exchange, channel: str, key: str) -> Any:
    """The first payload for a subscriber of ``channel`` keyed ``key`` (the hub's subscription key)."""
    if channel in EVENT_STREAMS:
        return []
    if channel == "orderbook":
        return e.orderbook_snapshot(key)
    if channel == "ticker":
        if key == "all":
            return [e.ticker_event(m) for m in e.markets.values()]
        return e.ticker_event(e.market(key))
    if channel == "mids":
        return e.mids(key) if key == "all" else e.mids(key)[0]
    if channel == "bbo":
        return e.bbo(key)
    if channel == "index":
        return [e.index_record(m) for m in e.markets.values()]
    if channel == "chart":
        inst, chart_type, resolution = key.split(":")
        return next((c.record() for res, c in e.candles.current(int(inst), chart_type) if res == resolution), [])
    if channel == "orders":
        return e.open_order_events(key)
    if channel == "position":
        return e.positions(key)
    if channel == "account_summary":
        return e.account_summary(key)
    if channel == "balance":
        return balance_update(e.account_summary(key), e.clock.now_ms())
    if channel == "agent":
        return [{**agent, "status": "active"} for agent in e.all_agents(key)]
    raise ValueError(f"no first picture for channel {channel!r}")
