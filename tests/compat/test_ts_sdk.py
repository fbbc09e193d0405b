"""The exchange's TypeScript SDK, from npm, as a bot would use it against ``xtui sim`` on either network: orders
placed, cancelled by id, by cloid and all at once, a fill, a refused order, leverage, transfers, a vault
deposit, queries, and subscriptions over the WebSocket with their first picture and a live update."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.mark.parametrize("network", ["testnet", "mainnet"])
def test_typescript_sdk_trades_queries_and_subscribes(
    sim_url: Callable[[str], str], drive_ts: Callable[..., dict[str, Any]], network: str
) -> None:
    r = drive_ts("drive_ts.mjs", sim_url(network), network)
    bad = r.pop("bad_query")
    assert {k: x["error"] for k, x in r.items() if not x["ok"]} == {}
    v = {k: x["value"] for k, x in r.items()}
    me = v["address"]

    rest = v["placeOrder.rest"]
    assert (
        rest["error"] == "" and rest["address"] == me and v["placeOrder.rest.open"] == [rest["data"]["status"]["oid"]]
    )
    assert v["cancelByOid"]["success"] and v["cancelByOid.open"] == []
    assert v["cancelByCloid"]["success"] and v["cancelByCloid.open"] == []
    assert len(v["placeOrder.two"]["data"]["status"]) == 2
    assert v["cancelAll"]["data"]["orders_cancelled"] == 2 and v["cancelAll.open"] == []
    assert v["placeOrder.taker"]["error"] == "" and v["placeOrder.refused"]["error"] == "unknown instrument 999"
    assert v["updatePerpInstrumentLeverage"]["error"] == "" and v["instrumentLeverage"]["leverage"] == "5"
    for action in ("accountInternalBalanceTransferRequest", "accountDerivativeBalanceTransferRequest"):
        assert v[action]["error"] == "" and v[action]["tx_hash"]
    assert v["depositToVault"]["data"] == {"shares_minted": "10"}

    (position,) = v["positions"]
    assert (position["size"], position["entry_price"], position["margin"]) == ("0.01", "100000", "200")  # 1000 at 5x
    summary = v["accountSummary"]
    assert summary["address"] == me and summary["perp_volume"] == 1000
    assert summary["perp_positions"]["BTC-PERP"]["im"] == 200
    fills = v["tradeHistory"]
    assert [f["side"] for f in fills["data"]] == ["b"] and fills["totalPages"] == fills["total_pages"] == 1
    assert {t["type"] for t in v["transferHistory"]} >= {"internal_balance_transfer", "vault_deposit"}
    assert v["accountInfo"]["account"]["address"] == v["accountInfo"]["address"] == me
    assert (v["vaultBalances"]["account"], v["vaultBalances"]["amount"]) == (me, "10")
    assert v["subVaults"] and v["oracle"]["symbol"] == "BTC" and v["blocks"]["blocks"]
    assert v["orderbook"]["instrument_name"] == "BTC-PERP" and [t["symbol"] for t in v["ticker"]] == ["BTC-PERP"]

    assert v["subscribe.ticker"] and v["subscribe.order"]
    assert v["subscribe.ticker.picture"] is True and v["subscribe.order.update"] is True
    assert v["subscribe.order.last"]["account"] == me and v["subscribe.order.last"]["limit_price"] == "85000"
    assert "unknown instrument 'NOPE-PERP'" in bad["error"]
