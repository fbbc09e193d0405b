"""Every subscription of the SDK gets its first picture on ``xtui sim``, then the updates an order, a trade and
a transfer push; the older and TypeScript channel names (balance, accountBalanceUpdates, trade, order) too."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest


@pytest.mark.parametrize("network", ["testnet", "mainnet"])
def test_every_subscription_gets_its_first_picture_then_updates(
    sim_url: Callable[[str], str], drive: Callable[..., dict[str, Any]], network: str
) -> None:
    r = drive("drive_subscriptions.py", sim_url(network), network)
    refused = r.pop("subscribe.refused")
    assert {k: x["error"] for k, x in r.items() if not x["ok"]} == {}
    v = {k: x["value"] for k, x in r.items()}
    me = v["address"]
    assert v["subscribe.positions"] == [f"position@{me}"] and v["subscribe.accountBalanceUpdates"] == [f"balance@{me}"]
    assert v["subscribe.trade"] == ["trades@BTC-PERP"] and v["subscribe.order"] == [f"orders@{me}"]
    assert not refused["ok"] and "unknown channel 'nonsense'" in refused["error"]

    assert [name for name, arrived in v["pictures"].items() if not arrived] == []
    first = v["first"]
    assert first["orderbook"]["keys"] == ["books", "instrument_name", "update_type"]
    assert first["index"]["list"] >= 7 and first["index"]["keys"] == ["index_price", "symbol", "ts"]
    assert first["balance"]["keys"] == ["account", "balances", "timestamp"]
    assert first["agents"]["list"] == 1 and first["ticker_all"]["list"] >= 7
    assert first["chart"]["keys"] == ["close", "high", "low", "open", "time", "volume"]
    for stream in ("trades", "fills", "funding_payments", "orders", "positions"):
        assert first[stream] == {"list": 0, "keys": []}, stream  # nothing yet: an empty batch
    # The chain moves on its own clock: the block holding this driver's own addAgent can be made while it
    # subscribes, and reach the SDK before the picture it missed is sent again (the SDK listens only once it
    # has read the reply). So the first is an empty batch, or that block (or its transaction), whole.
    assert first["blocks"] == {"list": 0, "keys": []} or "block_height" in first["blocks"]["keys"], first["blocks"]
    assert first["transactions"] == {"list": 0, "keys": []} or "tx_hash" in first["transactions"]["keys"], first[
        "transactions"
    ]

    assert {k: x for k, x in v.items() if k.startswith("update.") and x is not True} == {
        "update.balance.spot_usdc": v["update.balance.spot_usdc"]
    }
    spot = [Decimal(str(x)) for x in v["update.balance.spot_usdc"]]
    assert spot[-1] - spot[0] == 25
