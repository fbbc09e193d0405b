"""Every info and explorer method of the SDK answers on ``xtui sim`` over HTTP and over the WebSocket, with
what the account did; a bad query raises."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

COMBOS = [(network, transport) for network in ("testnet", "mainnet") for transport in ("http", "ws")]


@pytest.mark.parametrize(("network", "transport"), COMBOS)
def test_every_query_answers(
    sim_url: Callable[[str], str], drive: Callable[..., dict[str, Any]], network: str, transport: str
) -> None:
    r = drive("drive_queries.py", sim_url(network), transport, network)
    bad = r.pop("bad_query")
    assert {k: x["error"] for k, x in r.items() if not x["ok"]} == {}
    v = {k: x["value"] for k, x in r.items()}
    me = v["address"]

    assert v["oracle"]["symbol"] == "BTC" and v["oracle"]["index_price"]
    assert "USDC" in {c["symbol"] for c in v["supported_collateral"]}
    assert v["instruments"]["perps"][0]["name"] == "BTC-PERP" and v["instruments"]["spot"]
    assert [t["symbol"] for t in v["ticker"]] == ["BTC-PERP"]
    assert v["orderbook"]["instrument_name"] == "BTC-PERP" and any(b["price"] == 90000 for b in v["orderbook"]["bids"])
    assert v["trades"] and v["trades"][0]["instrument"] == "BTC-PERP"
    assert "BTC-PERP" in {m["symbol"] for m in v["mids"]} and v["bbo"][0]["best_bid_price"] == "90000"
    assert v["chart"] and v["chart"][-1]["close"] == 100000

    assert [o["limit_price"] for o in v["open_orders"]["data"]] == ["90000"]
    assert [p["size"] for p in v["positions"]] == ["0.01"]
    assert v["account_summary"]["address"] == me and "BTC-PERP" in v["account_summary"]["perp_positions"]
    assert v["referral_summary"]["address"] == me and v["user_fee_info"]["account"] == me
    assert isinstance(v["account_history"], list) and len(v["order_history"]["data"]) == 2
    assert [f["side"] for f in v["fills"]["data"]] == ["b"] and v["funding_history"]["data"] == []
    assert {t["type"] for t in v["transfer_history"]} >= {"internal_balance_transfer", "vault_deposit"}
    assert v["instrument_leverage"]["instrument"] == "BTC-PERP" and v["all_agents"] == []
    assert v["account_info"]["account"]["address"] == me and v["brokers_check"]["data"] == []
    vault = v["vaults"]["vaults"][0]["vault_address"]
    assert all(s["vault_address"] == vault for s in v["sub_vaults"])
    assert (v["vault_balances"]["account"], v["vault_balances"]["amount"]) == (me, "10")

    tx = v["transaction_details"]
    assert tx["account"] == me and tx["block_height"] > 0
    assert v["blocks"]["blocks"] and v["block_details"]["block_height"] == tx["block_height"]
    assert tx["tx_hash"] in {t["tx_hash"] for t in v["block_details"]["transactions"]}
    assert v["block_details.by_hash"]["block_hash"] == tx["block_hash"]
    assert tx["tx_hash"] in {t["tx_hash"] for t in v["transactions"]["transactions"]}

    assert not bad["ok"] and "unknown instrument 'NOPE-PERP'" in bad["error"]
    assert ("JSON-RPC Error 400" if transport == "ws" else "HotstuffAPIError") in bad["error"]
