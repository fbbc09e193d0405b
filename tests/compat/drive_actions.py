"""Every exchange action of the Hotstuff Python SDK against a local exchange, and what each one changed.

Usage (with the SDK's interpreter): drive_actions.py BASE_URL http|ws testnet|mainnet
Prints one JSON object (see ``sdk_harness.Record``): each action's envelope, and the state read back.
Four fresh keys: the main account, its agent, another account (counterparty and referee), a destination.
"""

from __future__ import annotations

import sys
from typing import Any

from sdk_harness import Record, new_key, now_ms, point_sdk_at

CHAIN = 11155111  # a chain the exchange bridges USDC to
HOUR_MS = 3_600_000


def main(base_url: str, transport: str, network: str) -> None:
    point_sdk_at(base_url)
    from eth_account import Account
    from hotstuff import ExchangeClient, InfoClient

    ws, testnet = transport == "ws", network == "testnet"
    main_key, agent_key, other_key, dest_key = (new_key() for _ in range(4))
    wallets = {
        name: Account.from_key(k) for name, k in (("main", main_key), ("agent", agent_key), ("other", other_key))
    }
    clients = {name: ExchangeClient(wallet=w, websocket=ws, is_testnet=testnet) for name, w in wallets.items()}
    info = InfoClient(websocket=ws, is_testnet=testnet)
    rec = Record()
    addresses = {name: w.address for name, w in wallets.items()}
    addresses["dest"] = Account.from_key(dest_key).address
    rec.note("addresses", addresses)
    try:
        account_actions(rec, clients, info, addresses, agent_key)
        trading(rec, clients, info, addresses)
        money(rec, clients["main"], info, addresses)
        revocation(rec, clients, info, addresses)
        refusals(rec, clients["main"])
    finally:
        for c in (*clients.values(), info):
            if ws:
                c.transport.disconnect()
    rec.dump()


def account_actions(rec: Record, ex: dict[str, Any], info: Any, addr: dict[str, str], agent_key: str) -> None:
    from hotstuff import (
        AddAgentParams,
        AgentsParams,
        ApproveBrokerFeeParams,
        BrokersCheckParams,
        CreateReferralCodeParams,
        InstrumentLeverageParams,
        ReferralSummaryParams,
        SetReferrerParams,
        UpdatePerpInstrumentLeverageParams,
    )

    main, me = ex["main"], addr["main"]
    rec.call("leverage", lambda: main.update_perp_instrument_leverage(UpdatePerpInstrumentLeverageParams(1, "10")))
    rec.call("leverage.after", lambda: info.instrument_leverage(InstrumentLeverageParams(user=me, symbol="BTC-PERP")))
    params = AddAgentParams(
        agentName="compat-agent", agent=addr["agent"], forAccount="", validUntil=now_ms() + HOUR_MS,
        agentPrivateKey=agent_key, signer=me,
    )  # fmt: skip
    rec.call("add_agent", lambda: main.add_agent(params))
    rec.call("add_agent.after", lambda: info.all_agents(AgentsParams(user=me)))
    broker = ApproveBrokerFeeParams(broker=addr["dest"], maxFeeRate="0.01")
    rec.call("approve_broker_fee", lambda: main.approve_broker_fee(broker))
    rec.call("approve_broker_fee.after", lambda: info.brokers_check(BrokersCheckParams(user=me)))
    code = "COMPAT" + new_key()[2:10].upper()
    rec.note("referral_code", code)
    rec.call("create_referral_code", lambda: main.create_referral_code(CreateReferralCodeParams(code=code)))
    rec.call("create_referral_code.after", lambda: info.referral_summary(ReferralSummaryParams(user=me)))
    rec.call("set_referrer", lambda: ex["other"].set_referrer(SetReferrerParams(code=code)))
    rec.call("set_referrer.after", lambda: info.referral_summary(ReferralSummaryParams(user=addr["other"])))


def _order(side: str, price: str, size: str, *, tif: str = "GTC", cloid: str | None = None) -> Any:
    from hotstuff import UnitOrder

    return UnitOrder(1, side, "BOTH", price, size, tif, False, False, cloid=cloid or f"c-{new_key()[2:14]}")


def trading(rec: Record, ex: dict[str, Any], info: Any, addr: dict[str, str]) -> None:
    from hotstuff import (
        BrokerConfig,
        CancelAllParams,
        CancelByCloidParams,
        CancelByInstrumentParams,
        CancelByOidParams,
        ClaimReferralRewardsParams,
        FillsParams,
        OpenOrdersParams,
        PlaceOrderParams,
        PositionsParams,
        ReferralSummaryParams,
        UnitCancelByClOrderId,
        UnitCancelByOrderId,
    )

    bot, me = ex["agent"], addr["main"]  # the agent trades for the main account

    def place(*orders: Any, broker: Any = None) -> Any:
        return bot.place_order(PlaceOrderParams(list(orders), now_ms() + HOUR_MS, brokerConfig=broker))

    def open_ids() -> list[int]:
        return [o["order_id"] for o in info.open_orders(OpenOrdersParams(user=me))["data"]]

    expires = now_ms() + HOUR_MS
    placed = rec.call("place_order", lambda: place(_order("b", "90000", "0.01")))
    rec.call("place_order.open", open_ids)
    oid = (placed or {}).get("data", {}).get("status", {}).get("oid")
    rec.call("cancel_by_oid", lambda: bot.cancel_by_oid(CancelByOidParams([UnitCancelByOrderId(oid, 1)], expires)))
    rec.call("cancel_by_oid.open", open_ids)
    rec.call("place_order.cloid", lambda: place(_order("b", "90001", "0.01", cloid="compat-cloid-1")))
    cancel = CancelByCloidParams([UnitCancelByClOrderId("compat-cloid-1", 1)], expires)
    rec.call("cancel_by_cloid", lambda: bot.cancel_by_cloid(cancel))
    rec.call("cancel_by_cloid.open", open_ids)
    rec.call("place_order.two", lambda: place(_order("b", "90002", "0.01"), _order("b", "90003", "0.01")))
    rec.call("cancel_by_instrument", lambda: bot.cancel_by_instrument(CancelByInstrumentParams(1, expires)))
    rec.call("cancel_by_instrument.open", open_ids)
    rec.call(
        "place_order.broker", lambda: place(_order("b", "90004", "0.01"), broker=BrokerConfig(addr["dest"], "0.001"))
    )
    rec.call("place_order.broker.open", open_ids)
    rec.call("cancel_all", lambda: bot.cancel_all(CancelAllParams(expires)))
    rec.call("cancel_all.open", open_ids)

    # a trade with the referred account, which takes (and pays a fee): fills, a position, referral commission
    rec.call("trade.maker", lambda: place(_order("s", "100000", "0.01")))
    other = ex["other"]
    rec.call(
        "trade.taker", lambda: other.place_order(PlaceOrderParams([_order("b", "100000", "0.01", tif="IOC")], expires))
    )
    rec.call("trade.fills", lambda: info.fills(FillsParams(user=me))["data"])
    rec.call("trade.positions", lambda: info.positions(PositionsParams(user=me)))
    rec.call("claim_referral_rewards", lambda: bot.claim_referral_rewards(ClaimReferralRewardsParams(1, False)))
    rec.call("claim_referral_rewards.after", lambda: info.referral_summary(ReferralSummaryParams(user=me)))


def money(rec: Record, main: Any, info: Any, addr: dict[str, str]) -> None:
    from hotstuff import (
        AccountDerivativeBalanceTransferRequestParams,
        AccountDerivativeWithdrawRequestParams,
        AccountInternalBalanceTransferRequestParams,
        AccountSpotBalanceTransferRequestParams,
        AccountSpotWithdrawRequestParams,
        AccountSummaryParams,
        DepositToVaultParams,
        RedeemFromVaultParams,
        TransferHistoryParams,
        VaultBalancesParams,
        VaultsParams,
    )

    me, dest = addr["main"], addr["dest"]

    def usdc(user: str) -> dict[str, Any]:
        s = info.account_summary(AccountSummaryParams(user=user))
        return {"derivative": s["collateral"]["USDC"]["balance"], "spot": s["spot_collateral"]["USDC"]["balance"]}

    steps = (
        ("internal_transfer", lambda: main.account_internal_balance_transfer_request(
            AccountInternalBalanceTransferRequestParams(1, "100", False))),
        ("spot_transfer", lambda: main.account_spot_balance_transfer_request(
            AccountSpotBalanceTransferRequestParams(1, "10", dest))),
        ("derivative_transfer", lambda: main.account_derivative_balance_transfer_request(
            AccountDerivativeBalanceTransferRequestParams(1, "20", dest))),
        ("spot_withdraw", lambda: main.account_spot_withdraw_request(AccountSpotWithdrawRequestParams(1, "5", CHAIN))),
        ("derivative_withdraw", lambda: main.account_derivative_withdraw_request(
            AccountDerivativeWithdrawRequestParams(1, "5", CHAIN))),
    )  # fmt: skip
    for name, step in steps:
        before = usdc(me)
        rec.call(name, step)
        rec.note(f"{name}.moved", {"before": before, "after": usdc(me), "dest": usdc(dest)})
    rec.call("transfer_history", lambda: info.transfer_history(TransferHistoryParams(user=me)))

    vaults = info.vaults(VaultsParams())["vaults"]
    vault = next(v["vault_address"] for v in vaults if v["lock_in_period"] == 0)  # redeemable at once
    rec.note("vault", vault)
    rec.call("deposit_to_vault", lambda: main.deposit_to_vault(DepositToVaultParams(vault, "100")))
    rec.call("deposit_to_vault.after", lambda: info.vault_balances(VaultBalancesParams(vault_address=vault, user=me)))
    rec.call("redeem_from_vault", lambda: main.redeem_from_vault(RedeemFromVaultParams(vault, "1")))
    rec.call("redeem_from_vault.after", lambda: info.vault_balances(VaultBalancesParams(vault_address=vault, user=me)))


def revocation(rec: Record, ex: dict[str, Any], info: Any, addr: dict[str, str]) -> None:
    from hotstuff import AgentsParams, CancelAllParams, RevokeAgentParams

    rec.call("revoke_agent", lambda: ex["main"].revoke_agent(RevokeAgentParams(agent=addr["agent"], forAccount="")))
    rec.call("revoke_agent.after", lambda: info.all_agents(AgentsParams(user=addr["main"])))
    # refused, naming the agent: never applied to a new account of the agent key's own
    rec.call("refused.revoked_agent", lambda: ex["agent"].cancel_all(CancelAllParams(now_ms() + HOUR_MS)))


def refusals(rec: Record, main: Any) -> None:
    from hotstuff import CancelByOidParams, ClaimReferralRewardsParams, UnitCancelByOrderId

    missing = CancelByOidParams([UnitCancelByOrderId(987_654_321, 1)], now_ms() + HOUR_MS)
    rec.call("refused.cancel_by_oid", lambda: main.cancel_by_oid(missing))
    rec.call("refused.claim", lambda: main.claim_referral_rewards(ClaimReferralRewardsParams(1, True)))


if __name__ == "__main__":
    main(*sys.argv[1:4])
