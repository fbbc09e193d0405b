"""Every subscription of the Hotstuff Python SDK against a local exchange: its first picture, then updates.

Usage (with the SDK's interpreter): drive_subscriptions.py BASE_URL testnet|mainnet
The SDK's own methods subscribe one channel after another; the older and TypeScript forms (``balance``,
``accountBalanceUpdates``, ``trade``, ``order``, symbol ``all``) go through its transport. Records, per
subscription, every payload received; then what an order, a trade and a transfer pushed.
"""

from __future__ import annotations

import sys
from decimal import Decimal
from typing import Any

from sdk_harness import Record, new_key, now_ms, point_sdk_at, wait_for

HOUR_MS = 3_600_000


def main(base_url: str, network: str) -> None:
    point_sdk_at(base_url)
    from eth_account import Account
    from hotstuff import (
        AddAgentParams,
        CancelAllParams,
        ExchangeClient,
        SubscriptionClient,
        WebSocketTransport,
        WebSocketTransportOptions,
    )

    testnet = network == "testnet"
    wallet, other, agent_key = Account.from_key(new_key()), Account.from_key(new_key()), new_key()
    me = wallet.address
    trader = ExchangeClient(wallet=wallet, is_testnet=testnet)
    counterparty = ExchangeClient(wallet=other, is_testnet=testnet)
    trader.cancel_all(CancelAllParams(now_ms() + HOUR_MS))  # opens (and funds) the account
    agent = Account.from_key(agent_key).address
    trader.add_agent(AddAgentParams("compat", agent, "", now_ms() + HOUR_MS, agentPrivateKey=agent_key, signer=me))
    rec = Record()
    rec.note("address", me)
    transport = WebSocketTransport(WebSocketTransportOptions(is_testnet=testnet))
    try:
        got = subscribe_all(rec, SubscriptionClient(transport), transport, me)
        rec.note("pictures", {name: bool(wait_for(lambda n=name: bool(got[n]))) for name in got})
        rec.note("first", {name: _shape(payloads[0]) if payloads else None for name, payloads in got.items()})
        updates(rec, got, trader, counterparty)
        rec.note("received", {name: len(payloads) for name, payloads in got.items()})
    finally:
        transport.disconnect()
    rec.dump()


def subscribe_all(rec: Record, subs: Any, transport: Any, me: str) -> dict[str, list[Any]]:
    from hotstuff import (
        AccountSummarySubscriptionParams as SummaryParams,
    )
    from hotstuff import (
        AgentsSubscriptionParams,
        OrderbookSubscriptionParams,
        OrdersSubscriptionParams,
        PositionsSubscriptionParams,
        TickerSubscriptionParams,
        TradeSubscriptionParams,
    )
    from hotstuff import (
        FundingPaymentsSubscriptionParams as FundingParams,
    )
    from hotstuff.methods.subscription.channels import (
        BBOSubscriptionParams,
        BlocksSubscriptionParams,
        ChartSubscriptionParams,
        FillsSubscriptionParams,
        MidsSubscriptionParams,
        TransactionsSubscriptionParams,
    )

    got: dict[str, list[Any]] = {}

    def listen(name: str) -> Any:
        got[name] = []
        return lambda message: got[name].append(message.data)

    sdk = (
        ("ticker", lambda: subs.ticker(TickerSubscriptionParams(symbol="BTC-PERP"), listen("ticker"))),
        ("mids", lambda: subs.mids(MidsSubscriptionParams(symbol="BTC-PERP"), listen("mids"))),
        ("bbo", lambda: subs.bbo(BBOSubscriptionParams(symbol="BTC-PERP"), listen("bbo"))),
        ("orderbook", lambda: subs.orderbook(OrderbookSubscriptionParams(symbol="BTC-PERP"), listen("orderbook"))),
        ("trades", lambda: subs.trades(TradeSubscriptionParams(symbol="BTC-PERP"), listen("trades"))),
        ("index", lambda: subs.index(listen("index"))),
        ("chart", lambda: subs.chart(ChartSubscriptionParams("1", "ltp", "1"), listen("chart"))),
        ("orders", lambda: subs.orders(OrdersSubscriptionParams(user=me), listen("orders"))),
        ("positions", lambda: subs.positions(PositionsSubscriptionParams(user=me), listen("positions"))),
        ("fills", lambda: subs.fills(FillsSubscriptionParams(user=me), listen("fills"))),
        ("account_summary", lambda: subs.account_summary(SummaryParams(user=me), listen("account_summary"))),
        ("funding_payments", lambda: subs.funding_payments(FundingParams(user=me), listen("funding_payments"))),
        ("agents", lambda: subs.agents(AgentsSubscriptionParams(user=me), listen("agents"))),
        ("blocks", lambda: subs.blocks(BlocksSubscriptionParams(), listen("blocks"))),
        ("transactions", lambda: subs.transactions(TransactionsSubscriptionParams(), listen("transactions"))),
    )  # fmt: skip
    older = (
        ("balance", {"address": me, "user": me}),
        ("accountBalanceUpdates", {"address": me}),
        ("trade", {"instrumentId": "BTC-PERP", "symbol": "BTC-PERP"}),
        ("order", {"address": me, "user": me}),
        ("ticker_all", {"symbol": "all"}),
    )
    for name, subscribe in sdk:
        rec.call(f"subscribe.{name}", lambda s=subscribe: _channels(s()))
    for name, params in older:
        channel = "ticker" if name == "ticker_all" else name
        rec.call(
            f"subscribe.{name}", lambda c=channel, p=params, n=name: _channels(transport.subscribe(c, p, listen(n)))
        )
    rec.call("subscribe.refused", lambda: transport.subscribe("nonsense", {}, listen("refused")))
    del got["refused"]
    return got


def updates(rec: Record, got: dict[str, list[Any]], trader: Any, counterparty: Any) -> None:
    """An order, a trade and a transfer: what each subscription received after its pictures."""
    from hotstuff import AccountInternalBalanceTransferRequestParams, PlaceOrderParams, UnitOrder

    def order(side: str, price: str, tif: str) -> Any:
        return PlaceOrderParams([UnitOrder(1, side, "BOTH", price, "0.01", tif, False, False)], now_ms() + HOUR_MS)

    seen = {name: len(payloads) for name, payloads in got.items()}
    ack = trader.place_order(order("b", "90000", "GTC"))
    oid = ack["data"]["status"]["oid"]
    rec.note("update.orders", wait_for(lambda: any(_has_order(p, oid) for p in got["orders"][seen["orders"] :])))
    counterparty.place_order(order("s", "100000", "GTC"))
    trader.place_order(order("b", "100000", "IOC"))
    rec.note("update.trades", wait_for(lambda: any(p for p in got["trades"][seen["trades"] :])))
    rec.note("update.fills", wait_for(lambda: any(p for p in got["fills"][seen["fills"] :])))
    rec.note("update.positions", wait_for(lambda: any(p for p in got["positions"][seen["positions"] :])))
    spot = Decimal(str(_spot_usdc(got["balance"][0])))
    trader.account_internal_balance_transfer_request(AccountInternalBalanceTransferRequestParams(1, "25", False))
    moved = spot + 25  # the transfer's update (a re-sent picture may come first)
    rec.note("update.balance", wait_for(lambda: any(Decimal(str(_spot_usdc(p))) == moved for p in got["balance"])))
    rec.note("update.balance.spot_usdc", [_spot_usdc(p) for p in got["balance"]])


def _channels(result: Any) -> Any:
    return result.get("channels") if isinstance(result, dict) else result


def _has_order(payload: Any, oid: int) -> bool:
    items = payload if isinstance(payload, list) else [payload]
    return any(isinstance(o, dict) and o.get("order_id") == oid for o in items)


def _spot_usdc(payload: Any) -> Any:
    for b in payload.get("balances", []) if isinstance(payload, dict) else []:
        if b.get("wallet") == "spot" and b.get("asset") == "USDC":
            return b.get("total")
    return None


def _shape(payload: Any) -> Any:
    """What a payload is, briefly: a list's length and first item's keys, or an object's keys."""
    if isinstance(payload, list):
        return {"list": len(payload), "keys": sorted(payload[0]) if payload and isinstance(payload[0], dict) else []}
    if isinstance(payload, dict):
        return {"keys": sorted(payload)}
    return {"value": payload}


if __name__ == "__main__":
    main(*sys.argv[1:3])
