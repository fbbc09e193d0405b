"""Records of the interface decode from hand-written examples; bad input only ever raises DecodeError."""

from __future__ import annotations

import contextlib
import copy
import json
from decimal import Decimal
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.api import models as m
from tui.api.models import DecodeError, decode

ADDR = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"
ADDR2 = "0x1111111111111111111111111111111111111111"
TX = "0x" + "ab" * 32
ISO = "2025-01-02T03:04:05.678Z"

# ---- examples, written from the interface tables (strings where string, numbers where number) ----

ORDER = {
    "order_id": 101, "user": ADDR, "instrument_id": 1, "instrument": "BTC-PERP", "side": "b",
    "position_side": "BOTH", "limit_price": "60000.5", "size": "0.25", "unfilled": "0.1", "state": "open",
    "cloid": "", "tif": "GTC", "post_only": False, "reduce_only": False, "trigger_px": "0",
    "is_market": False, "tpsl": "", "grouping": "", "timestamp": ISO,
}  # fmt: skip
FILL = {
    "instrument_id": 1, "instrument": "BTC-PERP", "account": ADDR, "order_id": 101, "cloid": "c-1",
    "trade_id": 9, "side": "s", "position_side": "BOTH", "direction": "openShort", "price": "60000.5",
    "size": "0.1", "closed_pnl": "0", "start_size": "0", "start_price": "0", "fee": "-0.0015",
    "broker_fee": "0", "fee_token_id": 0, "crossed": True, "tx_hash": TX, "fill_type": 1,
    "notional_value": "6000.05", "block_timestamp": ISO,
}  # fmt: skip
POSITION = {
    "user": ADDR, "instrument_id": 1, "instrument": "BTC-PERP", "position_side": "BOTH", "size": "-0.5",
    "entry_price": "59000", "position_value": "29500", "margin_mode": "isolated", "leverage": "10",
    "updated_at": 1735787045,
}  # fmt: skip
LEG = {
    "instrument_id": 1, "instrument_name": "BTC-PERP", "side": "BOTH", "size": 0.5, "entry_price": 59000.5,
    "leverage": {"type": "isolated", "value": 10}, "position_value": 29500.25,
}  # fmt: skip
ACCOUNT_SUMMARY = {
    "address": ADDR, "margin_mode": "cross", "multi_asset_mode": False, "hedge_mode": False,
    "spot_collateral": {"USDC": {"balance": 100.5, "withdrawable_balance": 100}},
    "collateral": {"USDC": {"balance": 10000.25, "withdrawable_balance": 9000.1}},
    "vault_balances": {ADDR2: {"withdrawable_shares": 5, "total_shares": 10, "amount": 1234.5}},
    "staked_collateral": 0,
    "perp_positions": {"BTC-PERP": {"position_type": "oneWay", "legs": [LEG], "liquidation_price": 50000.1,
                                    "mm": 147.5, "im": 2950, "upnl": -12.75}},
    "initial_margin_utilization": 0.29, "maintenance_margin_utilization": 0.0147, "upnl": -12.75,
    "total_account_equity": 9987.5, "margin_balance": 9987.5, "initial_margin": 2950,
    "maintenance_margin": 147.5, "total_volume": 120000, "total_pnl": 12.5, "available_balance": 7037.5,
    "transfer_margin_req": 0, "max_drawdown": 0.01, "spot_account_equity": 100.5,
    "derivative_account_equity": 9887, "spot_volume": 0,
}  # fmt: skip
ACCOUNT = {
    "address": ADDR, "role": 0, "margin_mode": "cross", "multi_asset_mode": False, "hedge_mode": False,
    "referrer": ADDR2, "referral_codes": ["ALPHA"], "referral_timestamp": 1735787045678,
    "created_at_block_timestamp": 1735787000000,
}  # fmt: skip
REWARD = {
    "Account": ADDR, "CollateralID": 0, "Source": "referral_commission", "IsSpot": False, "Amount": "1.25",
    "ClaimAmount": "0", "CreatedAt": 1735787045678,
}  # fmt: skip
ACCOUNT_INFO = {"account": ACCOUNT, "rewards": [REWARD], "history": [REWARD]}
VOLUME = {"maker_volume": 10.5, "taker_volume": 20}
REFERRAL_SUMMARY = {
    "address": ADDR, "referrer": ADDR2, "referrer_code": "BETA", "refer_timestamp": 1735787045678,
    "codes": ["ALPHA"], "is_affiliate": False,
    "referred_users": {ADDR2: {"code": "ALPHA", "joined_at": 1735787045678, "referred_volume": 30.5,
                               "perp_volume": VOLUME, "spot_volume": VOLUME, "stable_spot_volume": VOLUME,
                               "referred_perp_rewards": 0.5, "referred_spot_rewards": 0}},
    "to_claim_perp_rewards": 0.5, "to_claim_spot_rewards": 0, "claimed_perp_rewards": 1,
    "claimed_spot_rewards": 0, "total_referred_volume": 30.5, "rolling_referred_volume": 30.5,
    "referral_tier": {"total_referred_volume": 0, "fee_discount_rate": 0.04, "referrer_commission": 0.1},
    "updated_at": 1735787045678,
}  # fmt: skip
BROKER = {"account": ADDR, "broker": ADDR2, "max_fee_rate": "0.01", "updated_at": 1735787045}
FUNDING = {
    "user": ADDR, "instrument_id": 1, "settlement_currency": 0, "funding_payment": "-0.12",
    "funding_rate": "0.0000125", "mark_price": "60000", "size": "0.5", "timestamp": ISO,
}  # fmt: skip
TRANSFER = {
    "from": ADDR, "to": ADDR2, "collateral_id": 0, "amount": "25.5", "tx_hash": TX,
    "type": "derivative_balance_transfer", "timestamp": ISO,
}  # fmt: skip
LEVERAGE = {
    "address": ADDR, "instrument_id": 1, "instrument": "BTC-PERP", "margin_type": "cross", "leverage": "20",
    "updated_at": 1735787045,
}  # fmt: skip
HISTORY_POINT = {"address": ADDR, "total_pnl": "12.5", "total_volume": 120000, "account_value": "9987.5",
                 "created_at": ISO}  # fmt: skip
AGENT = {"user": ADDR, "agent_address": ADDR2, "agent_name": "bot", "created_at_block_timestamp": 1735787000000,
         "valid_until_timestamp": 1767323045678}  # fmt: skip
CANDLE = {"open": 60000, "high": 60100.5, "low": 59900, "close": 60050.25, "volume": 12.5, "time": 1735787040000}
BBO = {"symbol": "BTC-PERP", "best_bid_price": "60000", "best_ask_price": "60000.5", "best_bid_size": "1.5",
       "best_ask_size": "2"}  # fmt: skip
ORDERBOOK = {
    "instrument_name": "BTC-PERP", "bids": [{"price": 60000, "size": 1.5}, {"price": 59999.5, "size": 0.1}],
    "asks": [{"price": 60000.5, "size": 2}], "sequence_number": 42, "timestamp": 1735787045678,
}  # fmt: skip
ORDERBOOK_SDK = {  # the SDK types levels as strings
    "instrument_name": "BTC-PERP", "bids": [{"price": "60000", "size": "1.5"}, {"price": "59999.5", "size": "0.1"}],
    "asks": [{"price": "60000.5", "size": "2"}], "sequence_number": 42, "timestamp": 1735787045678,
}  # fmt: skip
TICKER = {
    "type": "perp", "symbol": "BTC-PERP", "mark_price": "60000.1", "mid_price": "60000.25",
    "index_price": "59999.9", "best_bid_price": "60000", "best_ask_price": "60000.5", "best_bid_size": "1.5",
    "best_ask_size": "2", "funding_rate": "0.0000125", "open_interest": "150.5", "volume_24h": "1200000",
    "change_24h": "-0.012", "max_trading_price": "66000", "min_trading_price": "54000",
    "last_price": "60000.5", "last_updated": 1735787045678,
}  # fmt: skip
WS_TICKER = {  # protocol-notes 5.4: numbers, plus ids and premium, no type/last_updated
    "instrument_name": "BTC-PERP", "instrument_id": 1, "symbol": "BTC-PERP", "mark_price": 60000.1,
    "mid_price": 60000.25, "index_price": 59999.9, "best_bid_price": 60000, "best_ask_price": 60000.5,
    "best_bid_size": 1.5, "best_ask_size": 2, "funding_rate": 0.0000125, "volume_24h": 1200000,
    "change_24h": -0.012, "open_interest": 150.5, "max_trading_price": 66000, "min_trading_price": 54000,
    "premium": 0.0001, "last_price": 60000.5,
}  # fmt: skip
PERP = {
    "id": 1, "name": "BTC-PERP", "price_index": "BTC", "lot_size": 0.001, "tick_size": 0.5,
    "settlement_currency": 0, "only_isolated": False, "delisted": False, "max_leverage": 50,
    "min_notional_usd": 10,
    "margin_tiers": [{"notional_usd_threshold": "0", "max_leverage": 50, "mmr": 0.01, "mmd": 0},
                     {"notional_usd_threshold": "1000000", "max_leverage": 20, "mmr": 0.025, "mmd": 15000}],
    "listed_at_block_timestamp": 1735787000000,
}  # fmt: skip
SPOT = {
    "id": 101, "name": "ETH/USDC", "price_index": "ETH", "lot_size": 0.0001, "tick_size": 0.01,
    "base_asset": 2, "quote_asset": 0, "stable_pair": False, "min_size_in_quote_asset": 5,
    "listed_at_block_timestamp": 1735787000000,
}  # fmt: skip
INSTRUMENTS = {"perps": [PERP], "spot": [SPOT]}
COLL_RISK = {"weight_tiers": [{"amount": 0, "weight": 1}, {"amount": 1000000, "weight": 0.95}],
             "max_margin_cap": 5000000, "stale_price_guard_weight": 0.5, "enabled": True}  # fmt: skip
COLLATERAL = {
    "id": 0, "symbol": "USDC", "name": "USD Coin", "decimals": 6, "default_coll_weight": 1,
    "price_index": "USDC", "type": 0,
    "bridge_by_chain": [{"bridge_chain_type": 0, "bridge_chain_id": 11155111, "token_address": ADDR2,
                         "bridge_contract_address": ADDR, "enabled": True}],
    "coll_risk": COLL_RISK, "transfer_notional_fee": 1, "withdrawal_fee": 1, "added_at_block": 1735787000000,
}  # fmt: skip
BLOCK = {"block_height": 7, "block_hash": TX, "parent_hash": TX, "change_log_hash": TX,
         "timestamp": 1735787045678, "tx_count": 1, "created_at": 1735787045}  # fmt: skip
TRANSACTION = {"tx_hash": TX, "account": ADDR, "block_height": 7, "block_hash": TX, "tx_type": 1301,
               "success": True, "timestamp": 1735787045678, "created_at": 1735787045}  # fmt: skip
PAGE = {"data": [ORDER], "page": 1, "limit": 100, "total_count": 1, "total_pages": 1, "has_next": False,
        "has_prev": False}  # fmt: skip
ENVELOPE = {"tx_hash": TX, "tx_type": 1301, "error": "", "data": {"status": {"oid": 101}}, "address": ADDR}
USER_FEES = {
    "account": ADDR, "spot_volume_14d": "0", "spot_volume_30d": "0", "stable_spot_volume_14d": "0",
    "stable_spot_volume_30d": "0", "perp_volume_14d": "1200.5", "perp_volume_30d": "5000",
    "option_volume_14d": "0", "option_volume_30d": "0", "total_volume_threshold": 1000000,
    "perp_maker_fee_rate": 0.0002, "perp_taker_fee_rate": 0.0005, "spot_maker_fee_rate": 0.001,
    "spot_taker_fee_rate": 0.001, "stable_spot_maker_fee_rate": 0, "stable_spot_taker_fee_rate": 0.0001,
    "option_maker_fee_rate": 0.0003, "option_taker_fee_rate": 0.0003,
}  # fmt: skip
VAULT = {
    "vault_address": ADDR2, "vault_manager": ADDR, "name": "Alpha", "symbol": "ALP", "deposit_cap": "1000000",
    "role": 1, "underlying_asset_id": 0, "lock_in_period": 86400, "commission": "0.1",
    "min_share_of_vm": "0.05", "created_at": 1735787000, "allow_deposits": True,
    "always_close_on_withdraw": False, "is_closed": False, "updated_at": 1735787045,
}  # fmt: skip
BOOK_UPDATE = {"update_type": "snapshot", "instrument_name": "BTC-PERP",
               "books": {k: ORDERBOOK[k] for k in ("bids", "asks", "sequence_number", "timestamp")}}  # fmt: skip
WS_ORDER = {
    "instrument_id": 1, "instrument": "BTC-PERP", "account": ADDR, "tif": "GTC", "order_id": 101, "cloid": "",
    "side": "b", "position_side": "BOTH", "limit_price": "60000.5", "size": "0.25", "old_price": "60000",
    "old_size": "0.25", "unfilled": "0.25", "state": "open", "reduce_only": False, "post_only": True,
    "timestamp": 1735787045678,
}  # fmt: skip
WS_NOTIFICATION = {"jsonrpc": "2.0", "method": "subscription",
                   "params": {"channel": "orderbook@BTC-PERP", "data": BOOK_UPDATE}}  # fmt: skip
WS_REPLY = {"jsonrpc": "2.0", "id": "3", "result": {"status": "subscribed", "channels": ["ticker@BTC-PERP"]}}
WS_FILL = {
    "instrument_id": 1, "instrument": "BTC-PERP", "account": ADDR, "order_id": 101, "cloid": "", "trade_id": 9,
    "side": "b", "position_side": "BOTH", "price": 60000.5, "size": 0.1, "closed_pnl": 0,
    "direction": "openLong", "original_size": 0.25, "original_price": 60000.5, "fee": 0.003, "broker_fee": 0,
    "fee_token_id": 0, "crossed": False, "tx_hash": TX, "fill_type": 1, "block_timestamp": 1735787045678,
}  # fmt: skip

# (type, example) for every record; the test below checks that no public Struct is left out.
EXAMPLES: list[tuple[Any, Any]] = [
    (m.Order, ORDER), (m.Fill, FILL), (m.Position, POSITION), (m.Position, {**POSITION, "margin": "2950"}),
    (m.PositionLeg, LEG), (m.LegLeverage, LEG["leverage"]), (m.AccountSummary, ACCOUNT_SUMMARY),
    (m.Balance, ACCOUNT_SUMMARY["collateral"]["USDC"]), (m.VaultHolding, ACCOUNT_SUMMARY["vault_balances"][ADDR2]),
    (m.PerpPosition, ACCOUNT_SUMMARY["perp_positions"]["BTC-PERP"]),
    (m.AccountInfo, ACCOUNT_INFO), (m.Account, ACCOUNT), (m.Reward, REWARD),
    (m.ReferralSummary, REFERRAL_SUMMARY), (m.VolumeSplit, VOLUME),
    (m.ReferredUser, REFERRAL_SUMMARY["referred_users"][ADDR2]), (m.ReferralTier, REFERRAL_SUMMARY["referral_tier"]),
    (m.BrokerApproval, BROKER), (m.FundingRecord, FUNDING), (m.TransferRecord, TRANSFER),
    (m.LeverageSetting, LEVERAGE), (m.AccountHistoryPoint, HISTORY_POINT), (m.Agent, AGENT), (m.Candle, CANDLE),
    (m.Bbo, BBO), (m.OrderBook, ORDERBOOK), (m.OrderBook, ORDERBOOK_SDK), (m.BookLevel, {"price": 1, "size": "2"}),
    (m.Ticker, TICKER), (m.Ticker, WS_TICKER), (m.Instruments, INSTRUMENTS), (m.Instruments, {"perps": [PERP]}),
    (m.PerpInstrument, PERP), (m.SpotInstrument, SPOT), (m.MarginTier, PERP["margin_tiers"][1]),
    (m.Collateral, COLLATERAL), (m.CollRisk, COLL_RISK), (m.WeightTier, COLL_RISK["weight_tiers"][1]),
    (m.BridgeInfo, COLLATERAL["bridge_by_chain"][0]),
    (m.BlockSummary, BLOCK), (m.BlockDetail, {**BLOCK, "transactions": [TRANSACTION]}),
    (m.Transaction, TRANSACTION), (m.BlockList, {"blocks": [BLOCK], "total": 7, "limit": 1, "offset": 0}),
    (m.TransactionList, {"transactions": [TRANSACTION], "total": 1, "limit": 10, "offset": 0}),
    (m.Page[m.Order], PAGE), (m.Page[m.Fill], {**PAGE, "data": [FILL]}),
    (m.Page[m.FundingRecord], {**PAGE, "data": [FUNDING]}), (m.Page[m.BrokerApproval], {**PAGE, "data": [BROKER]}),
    (m.ExchangeResponse, ENVELOPE), (m.ExchangeResponse, {"success": True, "data": {"status": []}}),
    (m.ExchangeResponse, {}), (m.ErrorBody, {"code": 429, "message": "rate limited"}),
    (m.ErrorBody, {"type": "error", "message": "bad"}),
    (m.Oracle, {"symbol": "USDT/USDC", "index_price": "1.0001", "ext_mark_price": "1", "updated_at": 1735787045678}),
    (m.Trade, {"instrument_id": 1, "instrument": "BTC-PERP", "trade_id": 9, "tx_hash": TX, "side": "b",
               "price": "60000.5", "size": "0.1", "maker": ADDR, "taker": ADDR2, "timestamp": ISO}),
    (m.Mid, {"symbol": "BTC-PERP", "mid_price": "60000.25"}), (m.UserFees, USER_FEES),
    (m.VaultList, {"vaults": [VAULT]}), (m.Vault, VAULT),
    (m.SubVault, {"vault_address": ADDR2, "sub_vault_address": ADDR, "manager": ADDR, "created_at": 1735787000}),
    (m.VaultBalance, {"vault_address": ADDR2, "account": ADDR, "amount": "100.5", "shares": "99",
                      "updated_at": 1735787045}),
    (m.BookUpdate, BOOK_UPDATE), (m.BookData, BOOK_UPDATE["books"]), (m.WsOrder, WS_ORDER), (m.WsFill, WS_FILL),
    (m.WsFrame, WS_NOTIFICATION), (m.WsFrame, WS_REPLY),
    (m.WsFrame, {"jsonrpc": "2.0", "id": "5", "error": {"code": -32600, "message": "bad request"}}),
    (m.WsParams, {"channel": "ticker@BTC-PERP", "data": [1, 2]}),
    (m.RpcError, {"code": -32601, "message": "no such method", "data": {"x": 1}}),
    (m.SubscribeResult, {"status": "subscribed", "channels": ["ticker@BTC-PERP"]}),
]  # fmt: skip

# Raw fields only decode from JSON text, not from Python objects.
_RAW_TYPES = (m.WsFrame, m.WsParams)


def _ids(examples: list[tuple[Any, Any]]) -> list[str]:
    return [getattr(t, "__name__", str(t)) for t, _ in examples]


@pytest.mark.parametrize(("type_", "example"), EXAMPLES, ids=_ids(EXAMPLES))
def test_every_record_decodes_from_bytes_str_and_objects(type_: Any, example: Any) -> None:
    raw = json.dumps(example)
    from_bytes = decode(raw.encode(), type_)
    assert decode(raw, type_) == from_bytes
    assert isinstance(from_bytes, getattr(type_, "__origin__", type_))
    if type_ not in _RAW_TYPES:
        assert decode(example, type_) == from_bytes
    # Round trip: encoding the record and decoding it again gives the same record.
    assert decode(msgspec.json.encode(from_bytes), type_) == from_bytes


def test_every_public_struct_has_an_example() -> None:
    public = {getattr(m, n) for n in m.__all__}
    structs = {t for t in public if isinstance(t, type) and issubclass(t, msgspec.Struct)}
    covered = {getattr(t, "__origin__", t) for t, _ in EXAMPLES}
    assert structs - covered == set()


# ---- the interface's types and the SDK variants ---------------------------------------------------


def test_decimals_are_exact_from_strings_and_numbers() -> None:
    summary = decode(json.dumps(ACCOUNT_SUMMARY), m.AccountSummary)
    assert summary.maintenance_margin_utilization == Decimal("0.0147")
    assert summary.collateral["USDC"].balance == Decimal("10000.25")
    leg = summary.perp_positions["BTC-PERP"].legs[0]
    assert (leg.entry_price, leg.leverage.type, leg.leverage.value) == (Decimal("59000.5"), "isolated", 10)
    big = decode(b'{"symbol":"X","mid_price":123456789012345678901234567890.123456789}', m.Mid)
    assert big.mid_price == Decimal("123456789012345678901234567890.123456789")
    assert decode(b'{"symbol":"X","mid_price":0.1}', m.Mid).mid_price == Decimal("0.1")
    order = decode(json.dumps(ORDER), m.Order)
    assert (order.limit_price, order.unfilled, order.timestamp) == (Decimal("60000.5"), Decimal("0.1"), ISO)


def test_orderbook_levels_as_numbers_or_strings_are_the_same_book() -> None:
    seed = decode(json.dumps(ORDERBOOK), m.OrderBook)
    sdk = m.ORDERBOOK_DECODER.decode(json.dumps(ORDERBOOK_SDK).encode())
    assert seed == sdk
    assert [(lv.price, lv.size) for lv in seed.bids] == [
        (Decimal(60000), Decimal("1.5")),
        (Decimal("59999.5"), Decimal("0.1")),
    ]


def test_http_and_ws_tickers_decode_to_the_same_prices() -> None:
    http = decode(json.dumps(TICKER), m.Ticker)
    ws = decode(json.dumps(WS_TICKER), m.Ticker)
    assert (http.type, http.last_updated, http.instrument_id, http.premium) == ("perp", 1735787045678, None, None)
    assert (ws.type, ws.last_updated, ws.instrument_id, ws.premium) == ("", None, 1, Decimal("0.0001"))
    for name in ("mark_price", "best_bid_size", "funding_rate", "change_24h", "last_price"):
        assert getattr(http, name) == getattr(ws, name), name


def test_flat_sdk_account_info_normalises_to_the_nested_form() -> None:
    nested = decode(json.dumps(ACCOUNT_INFO).encode(), m.AccountInfo)
    flat = decode(json.dumps(ACCOUNT).encode(), m.AccountInfo)
    assert flat.account == nested.account
    assert (flat.rewards, flat.history) == ([], [])
    assert decode(ACCOUNT, m.AccountInfo) == flat  # already-parsed flat form too
    assert nested.rewards[0].Amount == Decimal("1.25") and nested.rewards[0].CollateralID == 0


def test_account_info_accepts_snake_case_rewards_and_null_lists() -> None:
    snake = {"account": "Account", "collateral_id": "CollateralID", "source": "Source", "is_spot": "IsSpot",
             "amount": "Amount", "claim_amount": "ClaimAmount", "created_at": "CreatedAt"}  # fmt: skip
    reward = {k: REWARD[v] for k, v in snake.items()}
    info = decode({"account": ACCOUNT, "rewards": [reward], "history": None}, m.AccountInfo)
    assert info.rewards == [decode(REWARD, m.Reward)]
    assert info.history == []


def test_coll_risk_as_object_or_ts_array() -> None:
    py = decode(json.dumps(COLLATERAL), m.Collateral)
    ts_risk = {k: v for k, v in COLL_RISK.items() if k != "enabled"}
    ts_collateral = {k: v for k, v in COLLATERAL.items() if k != "transfer_notional_fee"}
    ts = decode(json.dumps({**ts_collateral, "coll_risk": [ts_risk]}), m.Collateral)
    assert py.risk is not None and ts.risk is not None
    assert py.risk.weight_tiers == ts.risk.weight_tiers
    assert (py.risk.enabled, ts.risk.enabled, ts.transfer_notional_fee) == (True, None, None)
    assert decode({**COLLATERAL, "coll_risk": []}, m.Collateral).risk is None


def test_optional_and_renamed_fields() -> None:
    assert decode({"perps": [PERP]}, m.Instruments).spot == []
    transfer = decode(json.dumps(TRANSFER), m.TransferRecord)
    assert (transfer.from_, transfer.to) == (ADDR, ADDR2)
    assert json.loads(msgspec.json.encode(transfer))["from"] == ADDR
    cancel = decode({"tx_hash": TX, "tx_type": 1302, "success": True, "data": {}}, m.ExchangeResponse)
    assert cancel.ok and cancel.error == ""
    assert not decode({"error": "insufficient margin"}, m.ExchangeResponse).ok
    assert not decode({"success": False}, m.ExchangeResponse).ok
    assert decode(ENVELOPE, m.ExchangeResponse).data == {"status": {"oid": 101}}
    assert decode({**ACCOUNT_SUMMARY, "vault_summary": {"apr": 0.1}}, m.AccountSummary).vault_summary == {"apr": 0.1}
    assert decode({**ORDER, "extra_field": [1, {"x": None}]}, m.Order) == decode(ORDER, m.Order)


def test_ws_frame_keeps_payload_raw_for_the_channel_decoder() -> None:
    frame = m.WS_FRAME_DECODER.decode(json.dumps(WS_NOTIFICATION).encode())
    assert frame.method == "subscription" and frame.params is not None and frame.id is None
    assert not frame.result
    update = m.BOOK_UPDATE_DECODER.decode(frame.params.data)
    assert update.update_type == "snapshot" and update.books.sequence_number == 42
    reply = m.WS_FRAME_DECODER.decode(json.dumps(WS_REPLY))
    assert reply.result and decode(reply.result, m.SubscribeResult).channels == ["ticker@BTC-PERP"]


def test_lists_of_records_and_a_deep_book() -> None:
    levels = [{"price": f"{60000 - i / 2}", "size": i + 0.5} for i in range(200)]
    book = m.ORDERBOOK_DECODER.decode(json.dumps({**ORDERBOOK, "bids": levels, "asks": levels}))
    assert len(book.bids) == 200 and book.bids[199].price == Decimal("59900.5")
    assert [t.symbol for t in decode(json.dumps([TICKER, WS_TICKER]), list[m.Ticker])] == ["BTC-PERP"] * 2


def test_to_datetime_reads_iso_and_milliseconds() -> None:
    assert m.to_datetime(ISO) == m.to_datetime(1735787045678)
    assert m.to_datetime("2025-01-02T03:04:05.678").tzinfo is not None


# ---- corrupted input: DecodeError naming the field ------------------------------------------------

DELETE = object()


def _corrupt(example: Any, path: tuple[Any, ...], value: Any) -> Any:
    bad = copy.deepcopy(example)
    target = bad
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return bad


CORRUPTIONS = [
    (m.Order, ORDER, ("order_id",), "101", "order_id"),
    (m.Order, ORDER, ("limit_price",), "abc", "limit_price"),
    (m.Order, ORDER, ("post_only",), "false", "post_only"),
    (m.Fill, FILL, ("trade_id",), DELETE, "trade_id"),
    (m.Fill, FILL, ("fee",), [], "fee"),
    (m.Position, POSITION, ("size",), "NaN", "size"),
    (m.AccountSummary, ACCOUNT_SUMMARY, ("collateral", "USDC", "balance"), "abc", "collateral"),
    (
        m.AccountSummary,
        ACCOUNT_SUMMARY,
        ("perp_positions", "BTC-PERP", "legs", 0, "leverage", "value"),
        True,
        "leverage",
    ),
    (m.AccountSummary, ACCOUNT_SUMMARY, ("vault_balances", ADDR2), 5, "vault_balances"),
    (m.AccountSummary, ACCOUNT_SUMMARY, ("upnl",), DELETE, "upnl"),
    (m.AccountInfo, ACCOUNT_INFO, ("rewards", 0, "Amount"), "abc", "Amount"),
    (m.AccountInfo, ACCOUNT_INFO, ("account", "role"), "admin", "role"),
    (m.AccountInfo, ACCOUNT, ("role",), DELETE, "role"),
    (
        m.ReferralSummary,
        REFERRAL_SUMMARY,
        ("referred_users", ADDR2, "spot_volume", "maker_volume"),
        "x",
        "maker_volume",
    ),
    (m.ReferralSummary, REFERRAL_SUMMARY, ("referral_tier",), [], "referral_tier"),
    (m.TransferRecord, TRANSFER, ("from",), DELETE, "from"),
    (m.OrderBook, ORDERBOOK, ("bids", 1, "price"), "abc", "bids"),
    (m.OrderBook, ORDERBOOK_SDK, ("asks", 0, "size"), "Infinity", "size"),
    (m.OrderBook, ORDERBOOK, ("sequence_number",), DELETE, "sequence_number"),
    (m.OrderBook, ORDERBOOK, ("bids",), {"price": 1}, "bids"),
    (m.BookUpdate, BOOK_UPDATE, ("books", "asks", 0, "price"), None, "asks"),
    (m.Ticker, TICKER, ("mark_price",), "sNaN", "mark_price"),
    (m.Ticker, WS_TICKER, ("last_price",), "1e99999", "last_price"),
    (m.Instruments, INSTRUMENTS, ("perps", 0, "margin_tiers", 1, "max_leverage"), "20", "max_leverage"),
    (m.Instruments, INSTRUMENTS, ("spot", 0, "base_asset"), 1.5, "base_asset"),
    (m.Collateral, COLLATERAL, ("coll_risk",), 5, "coll_risk"),
    (m.Collateral, COLLATERAL, ("coll_risk", "weight_tiers", 0, "weight"), "heavy", "weight"),
    (m.BlockDetail, {**BLOCK, "transactions": [TRANSACTION]}, ("transactions", 0, "success"), "yes", "success"),
    (m.Page[m.Order], PAGE, ("data", 0, "unfilled"), "abc", "unfilled"),
    (m.Page[m.Order], PAGE, ("has_next",), DELETE, "has_next"),
    (m.ExchangeResponse, ENVELOPE, ("tx_type",), "1301", "tx_type"),
    (m.WsFill, WS_FILL, ("crossed",), 0, "crossed"),
    (m.UserFees, USER_FEES, ("perp_taker_fee_rate",), {"x": 1}, "perp_taker_fee_rate"),
]


@pytest.mark.parametrize(("type_", "example", "path", "value", "field"), CORRUPTIONS, ids=[c[-1] for c in CORRUPTIONS])
def test_corrupted_records_raise_decode_error_naming_the_field(
    type_: Any, example: Any, path: tuple[Any, ...], value: Any, field: str
) -> None:
    bad = _corrupt(example, path, value)
    for data in (json.dumps(bad).encode(), json.dumps(bad), bad):
        with pytest.raises(DecodeError) as err:
            decode(data, type_)
        assert field in str(err.value)


@pytest.mark.parametrize(
    "data",
    [b"", b"{", b'{"a":1}x', b"\xff\xfe", "\ud800", b"[" * 100_000 + b"]" * 100_000, b"null", b"[]", 3, None],
    ids=["empty", "truncated", "trailing", "not-utf8", "surrogate", "deep", "null", "array", "int", "none"],
)
def test_malformed_input_raises_only_decode_error(data: Any) -> None:
    for type_ in (m.Order, m.AccountInfo, m.ExchangeResponse):
        with pytest.raises(DecodeError):
            decode(data, type_)


def test_typed_decoder_raises_only_decode_error() -> None:
    with pytest.raises(DecodeError, match="price"):
        m.ORDERBOOK_DECODER.decode(json.dumps(_corrupt(ORDERBOOK, ("asks", 0, "price"), "x")))
    with pytest.raises(DecodeError):
        m.WS_FRAME_DECODER.decode(b"\xff")
    with pytest.raises(DecodeError):
        m.BOOK_UPDATE_DECODER.decode("[" * 50_000)


# ---- fuzzing: whatever comes in, only DecodeError comes out ----------------------------------------

TYPES = sorted({t for t, _ in EXAMPLES} | {list[m.Ticker], list[m.Candle], m.ExchangeResponse[m.Order]}, key=str)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from(["1.5", "-0", "NaN", "inf", "1e999999", "abc", "", "0x1f"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)  # fmt: skip


def _decode_or_decode_error(data: Any, type_: Any) -> None:
    with contextlib.suppress(DecodeError):
        decode(data, type_)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(type_=st.sampled_from(TYPES), value=json_values)
def test_random_json_values_raise_only_decode_error(type_: Any, value: Any) -> None:
    _decode_or_decode_error(value, type_)
    text = json.dumps(value)  # floats nan/inf become the non-JSON NaN/Infinity: malformed input too
    _decode_or_decode_error(text, type_)
    _decode_or_decode_error(text.encode(), type_)


@settings(max_examples=200, deadline=None)
@given(type_=st.sampled_from(TYPES), data=st.binary(max_size=64))
def test_random_bytes_raise_only_decode_error(type_: Any, data: bytes) -> None:
    _decode_or_decode_error(data, type_)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside a JSON example."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    out = []
    for key, child in items:
        out.append((*prefix, key))
        out.extend(_paths(child, (*prefix, key)))
    return out


@settings(max_examples=400, deadline=None)
@given(pick=st.sampled_from(EXAMPLES), data=st.data(), value=json_values | st.just(DELETE))
def test_examples_with_one_random_field_raise_only_decode_error(pick: Any, data: Any, value: Any) -> None:
    type_, example = pick
    paths = _paths(example)
    if not paths:
        return
    bad = _corrupt(example, data.draw(st.sampled_from(paths)), value)
    _decode_or_decode_error(bad, type_)
    _decode_or_decode_error(json.dumps(bad).encode(), type_)
