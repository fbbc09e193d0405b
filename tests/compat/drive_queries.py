"""Every info and explorer method of the Hotstuff Python SDK against a local exchange.

Usage (with the SDK's interpreter): drive_queries.py BASE_URL http|ws testnet|mainnet
A fresh account first trades a little (a resting order, a fill, a transfer, a vault deposit) so that the
account methods have something to show; then every method is called once, and a bad query once.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from sdk_harness import Record, new_key, now_ms, point_sdk_at, wait_for

HOUR_MS = 3_600_000


def main(base_url: str, transport: str, network: str) -> None:
    point_sdk_at(base_url)
    from eth_account import Account
    from hotstuff import ExchangeClient, InfoClient, VaultsParams

    ws, testnet = transport == "ws", network == "testnet"
    wallet, other = Account.from_key(new_key()), Account.from_key(new_key())
    trader = ExchangeClient(wallet=wallet, is_testnet=testnet)
    counterparty = ExchangeClient(wallet=other, is_testnet=testnet)
    info = InfoClient(websocket=ws, is_testnet=testnet)
    rec = Record()
    rec.note("address", wallet.address)
    try:
        vault = info.vaults(VaultsParams())["vaults"][0]["vault_address"]
        tx_hash = set_the_scene(trader, counterparty, vault, wallet.address)
        market(rec, info)
        account(rec, info, wallet.address, vault)
        explorer(rec, info, tx_hash)
    finally:
        if ws:
            info.transport.disconnect()
    rec.dump()


def set_the_scene(trader: Any, counterparty: Any, vault: str, me: str) -> str:
    """A resting order, a fill, a transfer and a vault deposit; the hash of the order's transaction."""
    from hotstuff import (
        AccountInternalBalanceTransferRequestParams,
        DepositToVaultParams,
        PlaceOrderParams,
        UnitOrder,
    )

    def order(side: str, price: str, tif: str) -> Any:
        return PlaceOrderParams([UnitOrder(1, side, "BOTH", price, "0.01", tif, False, False)], now_ms() + HOUR_MS)

    ack = trader.place_order(order("b", "90000", "GTC"))
    counterparty.place_order(order("s", "100000", "GTC"))
    trader.place_order(order("b", "100000", "IOC"))
    trader.account_internal_balance_transfer_request(AccountInternalBalanceTransferRequestParams(1, "50", False))
    trader.deposit_to_vault(DepositToVaultParams(vault, "10"))
    return str(ack["tx_hash"])


def market(rec: Record, info: Any) -> None:
    from hotstuff import (
        BBOParams,
        ChartParams,
        InstrumentsParams,
        MidsParams,
        OracleParams,
        OrderbookParams,
        SupportedCollateralParams,
        TickerParams,
        TradesParams,
    )

    now_s = int(time.time())
    rec.call("oracle", lambda: info.oracle(OracleParams(symbol="BTC")))
    rec.call("supported_collateral", lambda: info.supported_collateral(SupportedCollateralParams(symbol="all")))
    rec.call("instruments", lambda: info.instruments(InstrumentsParams(type="all")))
    rec.call("ticker", lambda: info.ticker(TickerParams(symbol="BTC-PERP")))
    rec.call("orderbook", lambda: info.orderbook(OrderbookParams(symbol="BTC-PERP", depth=10)))
    rec.call("trades", lambda: info.trades(TradesParams(symbol="BTC-PERP", limit=5)))
    rec.call("mids", lambda: info.mids(MidsParams(symbol="all")))
    rec.call("bbo", lambda: info.bbo(BBOParams(symbol="BTC-PERP")))
    chart = ChartParams(instrument_id=1, resolution="1", from_=now_s - 3600, to=now_s + 60, chart_type="ltp")
    rec.call("chart", lambda: info.chart(chart))
    rec.call("bad_query", lambda: info.ticker(TickerParams(symbol="NOPE-PERP")))


def account(rec: Record, info: Any, me: str, vault: str) -> None:
    from hotstuff import (
        AccountHistoryParams,
        AccountInfoParams,
        AccountSummaryParams,
        AgentsParams,
        BrokersCheckParams,
        FillsParams,
        FundingHistoryParams,
        InstrumentLeverageParams,
        OpenOrdersParams,
        OrderHistoryParams,
        PositionsParams,
        ReferralSummaryParams,
        SubVaultsParams,
        TransferHistoryParams,
        UserFeeInfoParams,
        VaultBalancesParams,
        VaultsParams,
    )

    rec.call("open_orders", lambda: info.open_orders(OpenOrdersParams(user=me)))
    rec.call("positions", lambda: info.positions(PositionsParams(user=me)))
    rec.call("account_summary", lambda: info.account_summary(AccountSummaryParams(user=me)))
    rec.call("account_summary.vault", lambda: info.account_summary(AccountSummaryParams(user=vault)))
    rec.call("referral_summary", lambda: info.referral_summary(ReferralSummaryParams(user=me)))
    rec.call("user_fee_info", lambda: info.user_fee_info(UserFeeInfoParams(user=me)))
    rec.call("account_history", lambda: info.account_history(AccountHistoryParams(user=me)))
    rec.call("order_history", lambda: info.order_history(OrderHistoryParams(user=me)))
    rec.call("fills", lambda: info.fills(FillsParams(user=me)))
    rec.call("funding_history", lambda: info.funding_history(FundingHistoryParams(user=me)))
    rec.call("transfer_history", lambda: info.transfer_history(TransferHistoryParams(user=me)))
    rec.call(
        "instrument_leverage", lambda: info.instrument_leverage(InstrumentLeverageParams(user=me, symbol="BTC-PERP"))
    )
    rec.call("all_agents", lambda: info.all_agents(AgentsParams(user=me)))
    rec.call("account_info", lambda: info.account_info(AccountInfoParams(user=me, collateralId=1, includeHistory=True)))
    rec.call("brokers_check", lambda: info.brokers_check(BrokersCheckParams(user=me)))
    rec.call("vaults", lambda: info.vaults(VaultsParams()))
    rec.call("sub_vaults", lambda: info.sub_vaults(SubVaultsParams(vault_address=vault)))
    rec.call("vault_balances", lambda: info.vault_balances(VaultBalancesParams(vault_address=vault, user=me)))


def explorer(rec: Record, info: Any, tx_hash: str) -> None:
    from hotstuff import BlockDetailsParams, BlocksParams, TransactionDetailsParams, TransactionsParams
    from hotstuff.methods.info.explorer import TransactionFilter

    # the order's transaction is sealed into a block within one block interval
    wait_for(lambda: _sealed(info, tx_hash))
    rec.call("blocks", lambda: info.blocks(BlocksParams(offset=0, limit=5)))
    detail = rec.call(
        "transaction_details", lambda: info.transaction_details(TransactionDetailsParams(tx_hash=tx_hash))
    )
    height = (detail or {}).get("block_height", 1)
    rec.call("block_details", lambda: info.block_details(BlockDetailsParams(block_height=height)))
    block_hash = (detail or {}).get("block_hash")
    rec.call("block_details.by_hash", lambda: info.block_details(BlockDetailsParams(block_hash=block_hash)))
    mine = TransactionsParams(offset=0, limit=5, filter=TransactionFilter(account=(detail or {}).get("account")))
    rec.call("transactions", lambda: info.transactions(mine))


def _sealed(info: Any, tx_hash: str) -> bool:
    from hotstuff import TransactionDetailsParams

    try:
        return bool(info.transaction_details(TransactionDetailsParams(tx_hash=tx_hash))["block_height"])
    except Exception:
        return False


if __name__ == "__main__":
    main(*sys.argv[1:4])
