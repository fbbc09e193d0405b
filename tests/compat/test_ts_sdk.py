"""The exchange's TypeScript SDK, from npm, as a bot would use it against ``xtui sim`` on either network: every
exchange method (orders placed and cancelled by id, by cloid, all at once, through an agent and after its
revocation; leverage, broker fee, referral codes, rewards, transfers, withdrawals, a vault deposit and
redemption), every InfoClient method, and twelve subscriptions with their first picture and a live update."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

EXCHANGE_METHODS = {  # every ExchangeClient method of the pinned SDK
    "placeOrder", "cancelByOid", "cancelByCloid", "cancelAll", "addAgent", "revokeAgent",
    "updatePerpInstrumentLeverage", "approveBrokerFee", "createReferralCode", "setReferrer",
    "claimReferralRewards", "accountSpotWithdrawRequest", "accountDerivativeWithdrawRequest",
    "accountSpotBalanceTransferRequest", "accountDerivativeBalanceTransferRequest",
    "accountInternalBalanceTransferRequest", "depositToVault", "redeemFromVault",
}  # fmt: skip
INFO_METHODS = {  # every InfoClient method of the pinned SDK
    "oracle", "supportedCollateral", "instruments", "ticker", "orderbook", "trades", "mids", "bbo", "chart",
    "openOrders", "positions", "accountSummary", "referralSummary", "userFeeInfo", "accountHistory",
    "orderHistory", "tradeHistory", "fundingHistory", "transferHistory", "instrumentLeverage", "agents",
    "accountInfo", "subVaults", "vaultBalances", "blocks", "blockDetails", "transactions", "transactionDetails",
}  # fmt: skip


@pytest.mark.parametrize("network", ["testnet", "mainnet"])
def test_typescript_sdk_trades_queries_and_subscribes(
    sim_url: Callable[[str], str], drive_ts: Callable[..., dict[str, Any]], network: str
) -> None:
    r = drive_ts("drive_ts.mjs", sim_url(network), network)
    bad = r.pop("bad_query")
    assert {k: x["error"] for k, x in r.items() if not x["ok"]} == {}
    v = {k: x["value"] for k, x in r.items()}
    me = v["address"]
    assert {k.split(".")[0] for k in v} >= EXCHANGE_METHODS | INFO_METHODS

    rest = v["placeOrder.rest"]
    assert rest["error"] == "" and rest["address"] == me
    assert v["placeOrder.rest.open"] == [rest["data"]["status"]["oid"]]
    assert v["cancelByOid"]["success"] and v["cancelByOid.open"] == []
    assert v["cancelByCloid"]["success"] and v["cancelByCloid.open"] == []
    assert len(v["placeOrder.two"]["data"]["status"]) == 2
    assert v["cancelAll"]["data"]["orders_cancelled"] == 2 and v["cancelAll.open"] == []
    assert v["placeOrder.taker"]["error"] == "" and v["placeOrder.refused"]["error"] == "unknown instrument 999"
    assert v["updatePerpInstrumentLeverage"]["error"] == "" and v["instrumentLeverage"]["leverage"] == "5"

    # an agent signs for the account until it is revoked
    (agent,) = v["agents"]
    assert agent["agent_name"] == "ts-compat-agent"
    assert v["placeOrder.agent"]["error"] == "" and v["placeOrder.agent"]["address"] == me
    assert v["revokeAgent"]["error"] == "" and "revoked" in v["placeOrder.revoked"]["error"]
    assert v["approveBrokerFee"]["error"] == ""
    assert v["referralSummary"]["codes"] == [v["referral_code"]]
    assert v["referralSummary.other"]["referrer_code"] == v["referral_code"]
    assert v["claimReferralRewards"]["tx_type"] == 1210 and v["claimReferralRewards"]["address"] == me

    for action in (
        "accountInternalBalanceTransferRequest",
        "accountDerivativeBalanceTransferRequest",
        "accountSpotBalanceTransferRequest",
        "accountSpotWithdrawRequest",
        "accountDerivativeWithdrawRequest",
        "redeemFromVault",
    ):
        assert v[action]["error"] == "" and v[action]["tx_hash"], action
    assert v["depositToVault"]["data"] == {"shares_minted": "10"}
    assert v["depositToVault.open"]["data"] == {"shares_minted": "20"}

    (position,) = v["positions"]
    assert (position["size"], position["entry_price"], position["margin"]) == ("0.01", "100000", "200")  # 1000 at 5x
    summary = v["accountSummary"]
    assert summary["address"] == me and summary["perp_volume"] == 1000
    assert summary["perp_positions"]["BTC-PERP"]["im"] == 200
    fills = v["tradeHistory"]
    assert [f["side"] for f in fills["data"]] == ["b"] and fills["totalPages"] == fills["total_pages"] == 1
    kinds = {t["type"] for t in v["transferHistory"]}
    assert kinds >= {"internal_balance_transfer", "vault_deposit", "vault_withdraw", "spot_withdraw"}
    assert v["accountInfo"]["account"]["address"] == v["accountInfo"]["address"] == me
    assert (v["vaultBalances"]["account"], v["vaultBalances"]["amount"]) == (me, "10")
    assert v["subVaults"] and v["oracle"]["symbol"] == "BTC" and v["blocks"]["blocks"]
    assert v["orderbook"]["instrument_name"] == "BTC-PERP" and [t["symbol"] for t in v["ticker"]] == ["BTC-PERP"]
    assert v["trades"][0]["instrument"] == "BTC-PERP" and v["bbo"][0]["symbol"] == "BTC-PERP" and v["chart"]
    assert "USDC" in {c["symbol"] for c in v["supportedCollateral"]} and v["userFeeInfo"]["account"] == me
    assert v["sealed"] is True and v["transactionDetails"]["tx_hash"] == rest["tx_hash"]
    assert rest["tx_hash"] in {t["tx_hash"] for t in v["blockDetails"]["transactions"]}
    assert all(t["account"] == me for t in v["transactions"]["transactions"])

    subscribed = [k for k in v if k.startswith("subscribe.") and k.count(".") == 1]
    assert len(subscribed) == 12 and all(v[k] for k in subscribed)
    assert v["subscribe.ticker.picture"] is True and v["subscribe.orderbook.picture"] is True
    updates = {k.split(".")[1]: v[k] for k in v if k.endswith(".update")}
    assert updates == dict.fromkeys(
        ("order", "trade", "fills", "positions", "accountSummary", "balance", "blocks", "transactions"), True
    )
    last = v["subscribe.order.last"]  # one order, or the orders one flush changed together (a busy machine's)
    [order] = [o for o in (last if isinstance(last, list) else [last]) if o["limit_price"] == "85000"]
    assert order["account"] == me
    assert "unknown instrument 'NOPE-PERP'" in bad["error"]
