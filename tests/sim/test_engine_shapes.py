"""Every query's answer has exactly the interface's field names and JSON types (field by field), and the
fields the exchange's SDKs' types add (``margin``, ``perp_volume``, the camelCase spellings...).

Type tags: ``str`` a Python str; ``num`` a JSON number (Decimal, or int), ``int`` an int, ``bool`` a bool,
``iso`` an ISO 8601 UTC string with milliseconds, ``null`` None. A dict is a nested object with exactly those keys;
``[x]`` a non-empty array of x; ``Map(x)`` an object keyed by name or address whose values are x.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest

from tui.api.signing import checksum_address

from .engine_support import ALICE, BOB, BTC, CAROL, ETH, HYPE, USDC, make, order

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
HEX32 = re.compile(r"^0x[0-9a-f]{64}$")


@dataclass(frozen=True)
class Map:
    value: Any


def check(value: Any, schema: Any, path: str = "$") -> None:
    if isinstance(schema, dict):
        assert isinstance(value, dict), f"{path}: expected an object, got {type(value).__name__}"
        assert set(value) == set(schema), f"{path}: keys {sorted(set(value) ^ set(schema))} differ"
        for k, sub in schema.items():
            check(value[k], sub, f"{path}.{k}")
    elif isinstance(schema, list):
        assert isinstance(value, list), f"{path}: expected an array"
        assert value, f"{path}: empty array (the scenario should fill it)"
        for i, item in enumerate(value):
            check(item, schema[0], f"{path}[{i}]")
    elif isinstance(schema, Map):
        assert isinstance(value, dict) and value, f"{path}: expected a non-empty keyed object"
        for k, item in value.items():
            assert isinstance(k, str)
            check(item, schema.value, f"{path}[{k}]")
    elif schema == "null":
        assert value is None, f"{path}: expected null, got {value!r}"
    elif schema == "str":
        assert type(value) is str, f"{path}: expected str, got {type(value).__name__}"
    elif schema == "iso":
        assert type(value) is str and ISO.match(value), f"{path}: expected ISO timestamp, got {value!r}"
    elif schema == "int":
        assert type(value) is int, f"{path}: expected int, got {type(value).__name__}"
    elif schema == "bool":
        assert type(value) is bool, f"{path}: expected bool, got {type(value).__name__}"
    elif schema == "num":
        assert type(value) in (Decimal, int), f"{path}: expected a number, got {type(value).__name__}"
        if isinstance(value, Decimal):
            assert value.is_finite()
    else:
        raise AssertionError(f"bad schema {schema!r}")


def page(item: Any) -> dict[str, Any]:
    return {
        "data": [item],
        "page": "int",
        "limit": "int",
        "total_count": "int",
        "total_pages": "int",
        "has_next": "bool",
        "has_prev": "bool",
    }


ORDER = {
    k: "str"
    for k in (
        "user",
        "instrument",
        "side",
        "position_side",
        "limit_price",
        "size",
        "unfilled",
        "state",
        "cloid",
        "tif",
        "trigger_px",
        "tpsl",
        "grouping",
    )
} | {
    "order_id": "int",
    "instrument_id": "int",
    "post_only": "bool",
    "reduce_only": "bool",
    "is_market": "bool",
    "timestamp": "iso",
}
FILL = {
    k: "str"
    for k in (
        "instrument",
        "account",
        "cloid",
        "side",
        "position_side",
        "direction",
        "price",
        "size",
        "closed_pnl",
        "start_size",
        "start_price",
        "fee",
        "broker_fee",
        "tx_hash",
        "notional_value",
    )
} | {
    "instrument_id": "int",
    "order_id": "int",
    "trade_id": "int",
    "fee_token_id": "int",
    "crossed": "bool",
    "fill_type": "int",
    "block_timestamp": "iso",
}
POSITION = {
    k: "str"
    for k in (
        "user",
        "instrument",
        "position_side",
        "size",
        "entry_price",
        "position_value",
        "margin_mode",
        "leverage",
        "margin",
    )
} | {"instrument_id": "int", "updated_at": "int"}
BALANCE = {"balance": "num", "withdrawable_balance": "num"}
LEG = {
    "instrument_id": "int",
    "instrument_name": "str",
    "side": "str",
    "size": "num",
    "entry_price": "num",
    "leverage": {"type": "str", "value": "num"},
    "position_value": "num",
}
SUMMARY = (
    {
        "address": "str",
        "margin_mode": "str",
        "multi_asset_mode": "bool",
        "hedge_mode": "bool",
        "spot_collateral": Map(BALANCE),
        "collateral": Map(BALANCE),
        "vault_balances": Map({"withdrawable_shares": "num", "total_shares": "num", "amount": "num"}),
        "staked_collateral": "num",
        "perp_positions": Map(
            {"position_type": "str", "legs": [LEG], "liquidation_price": "num", "mm": "num", "im": "num", "upnl": "num"}
        ),
    }
    | {
        k: "num"
        for k in (
            "initial_margin_utilization",
            "maintenance_margin_utilization",
            "upnl",
            "total_account_equity",
            "margin_balance",
            "initial_margin",
            "maintenance_margin",
            "total_volume",
            "total_pnl",
            "available_balance",
            "transfer_margin_req",
            "max_drawdown",
            "spot_account_equity",
            "derivative_account_equity",
            "spot_volume",
            "perp_volume",
            "withdrawable_balance_notional",
        )
    }
    | {"vault_summary": "null"}
)  # an ordinary account's; a vault's is in test_engine_sdk_fields
MAKER_TAKER = {"maker_volume": "num", "taker_volume": "num"}
REFERRAL = {
    "address": "str",
    "referrer": "str",
    "referrer_code": "str",
    "refer_timestamp": "int",
    "codes": ["str"],
    "is_affiliate": "bool",
    "referred_users": Map(
        {
            "code": "str",
            "joined_at": "int",
            "referred_volume": "num",
            "perp_volume": MAKER_TAKER,
            "spot_volume": MAKER_TAKER,
            "stable_spot_volume": MAKER_TAKER,
            "referred_perp_rewards": "num",
            "referred_spot_rewards": "num",
        }
    ),
    "referral_tier": {"total_referred_volume": "num", "fee_discount_rate": "num", "referrer_commission": "num"},
    "updated_at": "int",
} | {
    k: "num"
    for k in (
        "to_claim_perp_rewards",
        "to_claim_spot_rewards",
        "claimed_perp_rewards",
        "claimed_spot_rewards",
        "total_referred_volume",
        "rolling_referred_volume",
    )
}
BROKER = {"account": "str", "broker": "str", "max_fee_rate": "str", "updated_at": "int"}
FUNDING = {
    "user": "str",
    "instrument_id": "int",
    "settlement_currency": "int",
    "funding_payment": "str",
    "funding_rate": "str",
    "mark_price": "str",
    "size": "str",
    "timestamp": "iso",
}
TRANSFER = {
    "from": "str",
    "from_address": "str",
    "to": "str",
    "collateral_id": "int",
    "amount": "str",
    "tx_hash": "str",
    "type": "str",
    "timestamp": "iso",
}
LEVERAGE = {
    "address": "str",
    "instrument_id": "int",
    "instrument": "str",
    "margin_type": "str",
    "leverage": "str",
    "updated_at": "int",
}
HISTORY = {"address": "str", "total_pnl": "str", "total_volume": "int", "account_value": "str", "created_at": "iso"}
AGENT = {
    "user": "str",
    "agent_address": "str",
    "agent_name": "str",
    "created_at_block_timestamp": "int",
    "valid_until_timestamp": "int",
}
CANDLE = {"open": "num", "high": "num", "low": "num", "close": "num", "volume": "num", "time": "int"}
BBO = {k: "str" for k in ("symbol", "best_bid_price", "best_ask_price", "best_bid_size", "best_ask_size")}
LEVEL = {"price": "num", "size": "num"}
ORDERBOOK = {"instrument_name": "str", "bids": [LEVEL], "asks": [LEVEL], "sequence_number": "int", "timestamp": "int"}
TICKER = {
    k: "str"
    for k in (
        "type",
        "symbol",
        "mark_price",
        "mid_price",
        "index_price",
        "best_bid_price",
        "best_ask_price",
        "best_bid_size",
        "best_ask_size",
        "funding_rate",
        "open_interest",
        "volume_24h",
        "change_24h",
        "max_trading_price",
        "min_trading_price",
        "last_price",
    )
} | {"last_updated": "int"}
TIER = {"notional_usd_threshold": "str", "max_leverage": "int", "mmr": "num", "mmd": "num"}
PERP = {
    "id": "int",
    "name": "str",
    "price_index": "str",
    "lot_size": "num",
    "tick_size": "num",
    "settlement_currency": "int",
    "only_isolated": "bool",
    "delisted": "bool",
    "max_leverage": "int",
    "min_notional_usd": "num",
    "margin_tiers": [TIER],
    "listed_at_block_timestamp": "int",
}
SPOT = {
    "id": "int",
    "name": "str",
    "price_index": "str",
    "lot_size": "num",
    "tick_size": "num",
    "base_asset": "int",
    "quote_asset": "int",
    "stable_pair": "bool",
    "min_size_in_quote_asset": "num",
    "listed_at_block_timestamp": "int",
}
COLLATERAL = {
    "id": "int",
    "symbol": "str",
    "name": "str",
    "decimals": "int",
    "default_coll_weight": "num",
    "price_index": "str",
    "type": "int",
    "bridge_by_chain": [
        {
            "bridge_chain_type": "int",
            "bridge_chain_id": "int",
            "token_address": "str",
            "bridge_contract_address": "str",
            "enabled": "bool",
            "bridgeChainType": "int",
            "bridgeChainId": "int",
            "tokenAddress": "str",
            "bridgeContractAddress": "str",
        }
    ],
    "coll_risk": {
        "weight_tiers": [{"amount": "num", "weight": "num"}],
        "max_margin_cap": "num",
        "stale_price_guard_weight": "num",
        "enabled": "bool",
    },
    "transfer_notional_fee": "int",
    "withdrawal_fee": "int",
    "added_at_block": "int",
}
REWARD = {
    "Account": "str",
    "CollateralID": "int",
    "Source": "str",
    "IsSpot": "bool",
    "Amount": "str",
    "ClaimAmount": "str",
    "CreatedAt": "int",
}
INFO_ACCOUNT = {
    "address": "str",
    "role": "int",
    "margin_mode": "str",
    "multi_asset_mode": "bool",
    "hedge_mode": "bool",
    "referrer": "str",
    "referral_codes": ["str"],
    "referral_timestamp": "int",
    "created_at_block_timestamp": "int",
}
ACCOUNT_INFO = INFO_ACCOUNT | {  # the Python SDK reads the account's fields at the top, the TypeScript SDK nested
    "account": INFO_ACCOUNT,
    "rewards": [REWARD],
    "history": [REWARD],
}
BLOCK = {
    "block_height": "int",
    "block_hash": "str",
    "parent_hash": "str",
    "change_log_hash": "str",
    "timestamp": "int",
    "tx_count": "int",
    "created_at": "int",
}
TX = {
    "tx_hash": "str",
    "account": "str",
    "block_height": "int",
    "block_hash": "str",
    "tx_type": "int",
    "success": "bool",
    "timestamp": "int",
    "created_at": "int",
}
TRADE = {
    "instrument_id": "int",
    "instrument": "str",
    "trade_id": "int",
    "tx_hash": "str",
    "side": "str",
    "price": "str",
    "size": "str",
    "maker": "str",
    "taker": "str",
    "timestamp": "iso",
}
VAULT = {
    "vault_address": "str",
    "vault_manager": "str",
    "name": "str",
    "symbol": "str",
    "deposit_cap": "str",
    "role": "int",
    "underlying_asset_id": "int",
    "lock_in_period": "int",
    "commission": "str",
    "min_share_of_vm": "str",
    "created_at": "int",
    "allow_deposits": "bool",
    "always_close_on_withdraw": "bool",
    "is_closed": "bool",
    "updated_at": "int",
}
VAULT_BALANCE = {"vault_address": "str", "account": "str", "amount": "str", "shares": "str", "updated_at": "int"}
USER_FEES = (
    {"account": "str", "total_volume_threshold": "int"}
    | {f"{k}_volume_{d}d": "str" for k in ("spot", "stable_spot", "perp", "option") for d in (14, 30)}
    | {f"{k}_{s}_fee_rate": "num" for k in ("perp", "spot", "stable_spot", "option") for s in ("maker", "taker")}
)


@pytest.fixture(scope="module")
def scenario() -> Any:
    """One exchange where every list has something in it."""
    ex, clock = make(None, ALICE, BOB, CAROL)
    ex.create_referral_code(ALICE, "alpha")
    ex.set_referrer(BOB, "alpha")
    ex.approve_broker_fee(BOB, CAROL, "0.001")
    ex.add_agent(ALICE, "bot", "0x" + "7" * 40, clock.now_ms() + 86_400_000)
    ex.place_order(ALICE, order(BTC, "s", "100100", "1"))
    ex.place_order(BOB, order(BTC, "b", "100100", "0.5"))
    ex.place_order(ALICE, order(HYPE, "s", "40", "10"))
    ex.place_order(BOB, order(HYPE, "b", "40", "10"))
    ex.place_order(ALICE, order(BTC, "b", "99000", "0.2"))
    ex.place_order(ALICE, order(ETH, "b", "3400", "1", cloid="c-1"))
    ex.transfer_derivative(ALICE, USDC, "5", CAROL)
    xlv = ex.vault_list()["vaults"][0]["vault_address"]
    ex.vault_deposit(ALICE, xlv, "100")
    ex.tick()
    clock.advance(3_600_000)
    ex.tick()
    ex.claim_referral_rewards(ALICE, USDC, False)
    ex.place_order(BOB, order(BTC, "b", "100100", "0.1"))  # fresh rewards to show
    ex.produce_block()
    return ex, xlv


CASES: dict[str, tuple[Any, Any]] = {
    "account_summary": (lambda ex, v: ex.account_summary(ALICE), SUMMARY),
    "account_info": (lambda ex, v: ex.account_info(ALICE, None, True), ACCOUNT_INFO),
    "account_history": (lambda ex, v: ex.account_history(ALICE), [HISTORY]),
    "referral_summary": (lambda ex, v: ex.referral_summary(ALICE), REFERRAL),
    "brokers_check": (lambda ex, v: ex.brokers_check(BOB), page(BROKER)),
    "fills": (lambda ex, v: ex.fills(ALICE), page(FILL) | {"totalPages": "int", "hasNext": "bool", "hasPrev": "bool"}),
    "open_orders": (lambda ex, v: ex.open_orders(ALICE), page(ORDER)),
    "order_history": (lambda ex, v: ex.order_history(ALICE), page(ORDER)),
    "funding_history": (lambda ex, v: ex.funding_history(ALICE), page(FUNDING)),
    "positions": (lambda ex, v: ex.positions(ALICE), [POSITION]),
    "transfer_history": (lambda ex, v: ex.transfer_history(ALICE), [TRANSFER]),
    "instrument_leverage": (lambda ex, v: ex.instrument_leverage(ALICE, "BTC-PERP"), LEVERAGE),
    "all_agents": (lambda ex, v: ex.all_agents(ALICE), [AGENT]),
    "instruments": (lambda ex, v: ex.instruments("all"), {"perps": [PERP], "spot": [SPOT]}),
    "ticker": (lambda ex, v: ex.ticker("all"), [TICKER]),
    "bbo": (lambda ex, v: ex.bbo("all"), [BBO]),
    "orderbook": (lambda ex, v: ex.orderbook("BTC-PERP"), ORDERBOOK),
    "supported_collateral": (lambda ex, v: ex.supported_collateral("all"), [COLLATERAL]),
    "chart": (lambda ex, v: ex.chart(BTC, "mark", "1", 0, ex.clock.now_ms()), [CANDLE]),
    "oracle": (
        lambda ex, v: ex.oracle("BTC"),
        {"symbol": "str", "index_price": "str", "ext_mark_price": "str", "updated_at": "int"},
    ),
    "trades": (lambda ex, v: ex.trades("BTC-PERP"), [TRADE]),
    "mids": (lambda ex, v: ex.mids("all"), [{"symbol": "str", "mid_price": "str"}]),
    "user_fees": (lambda ex, v: ex.user_fees(ALICE), USER_FEES),
    "vaults": (lambda ex, v: ex.vault_list(), {"vaults": [VAULT]}),
    "sub_vaults": (
        lambda ex, v: ex.sub_vaults(v),
        [{"vault_address": "str", "sub_vault_address": "str", "manager": "str", "created_at": "int"}],
    ),
    "vault_balance": (lambda ex, v: ex.vault_balance(v, ALICE), VAULT_BALANCE),
    "vault_balances": (lambda ex, v: ex.vault_balance(v), [VAULT_BALANCE]),
    "block": (lambda ex, v: ex.block(block_height=1), BLOCK | {"transactions": [TX]}),
    "blocks": (lambda ex, v: ex.blocks(0, 5), {"blocks": [BLOCK], "total": "int", "limit": "int", "offset": "int"}),
    "transaction": (lambda ex, v: ex.transaction(ex.block(block_height=1)["transactions"][0]["tx_hash"]), TX),
    "transactions": (
        lambda ex, v: ex.transactions(0, 5),
        {"transactions": [TX], "total": "int", "limit": "int", "offset": "int"},
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_query_shape(scenario: Any, name: str) -> None:
    ex, vault = scenario
    query, schema = CASES[name]
    check(query(ex, vault), schema, name)


def test_hashes_and_addresses_are_well_formed(scenario: Any) -> None:
    ex, _ = scenario
    fill = ex.fills(ALICE)["data"][0]
    assert HEX32.match(fill["tx_hash"])
    assert fill["account"] == checksum_address(ALICE) != ALICE


def test_unknown_user_gets_empty_answers(scenario: Any) -> None:
    ex, _ = scenario
    nobody = "0x" + "9" * 40
    n = len(ex.accounts)
    assert ex.positions(nobody) == [] and ex.fills(nobody)["total_count"] == 0
    summary = ex.account_summary(nobody)
    assert summary["margin_balance"] == 0 and summary["perp_positions"] == {}
    assert ex.referral_summary(nobody)["codes"] == []
    assert len(ex.accounts) == n


def test_pagination_envelope(scenario: Any) -> None:
    ex, _ = scenario
    first = ex.order_history(ALICE, 1, 2)
    assert (first["limit"], first["has_prev"], len(first["data"])) == (2, False, 2)
    assert first["total_pages"] == (first["total_count"] + 1) // 2 and first["has_next"] is True
    last = ex.order_history(ALICE, first["total_pages"], 2)
    assert last["has_next"] is False and last["has_prev"] is True
    ids = [o["order_id"] for o in ex.order_history(ALICE)["data"]]
    assert ids == sorted(ids, reverse=True)


WS_ORDER = {
    "instrument_id": "int",
    "instrument": "str",
    "account": "str",
    "tif": "str",
    "order_id": "int",
    "cloid": "str",
    "side": "str",
    "position_side": "str",
    "limit_price": "str",
    "size": "str",
    "old_price": "str",
    "old_size": "str",
    "unfilled": "str",
    "state": "str",
    "reduce_only": "bool",
    "post_only": "bool",
    "timestamp": "int",
}
WS_FILL = {
    "instrument_id": "int",
    "instrument": "str",
    "account": "str",
    "order_id": "int",
    "cloid": "str",
    "trade_id": "int",
    "side": "str",
    "position_side": "str",
    "price": "num",
    "size": "num",
    "closed_pnl": "num",
    "direction": "str",
    "original_size": "num",
    "original_price": "num",
    "fee": "num",
    "broker_fee": "num",
    "fee_token_id": "int",
    "crossed": "bool",
    "tx_hash": "str",
    "fill_type": "int",
    "block_timestamp": "int",
}
WS_TICKER = {"instrument_name": "str", "instrument_id": "int", "symbol": "str"} | {
    k: "num"
    for k in (
        "mark_price",
        "mid_price",
        "index_price",
        "best_bid_price",
        "best_ask_price",
        "best_bid_size",
        "best_ask_size",
        "funding_rate",
        "volume_24h",
        "change_24h",
        "open_interest",
        "max_trading_price",
        "min_trading_price",
        "premium",
        "last_price",
    )
}
WS_TRADE = {
    "instrument_id": "int",
    "instrument": "str",
    "trade_id": "int",
    "tx_hash": "str",
    "side": "str",
    "price": "num",
    "size": "num",
    "maker": "str",
    "taker": "str",
    "timestamp": "int",
}
WS_BOOK = {
    "update_type": "str",
    "instrument_name": "str",
    "books": {"bids": [LEVEL], "asks": [LEVEL], "sequence_number": "int", "timestamp": "int"},
}


def test_websocket_payload_shapes() -> None:
    ex, clock = make(None, ALICE, BOB)
    got: dict[str, Any] = {}
    ex.add_listener(lambda ch, key, p: got.setdefault(ch, p))
    ex.place_order(ALICE, order(BTC, "s", "100100", "1"))
    ex.place_order(ALICE, order(BTC, "b", "99900", "1"))
    ex.place_order(BOB, order(BTC, "b", "100100", "0.5"))
    ex.add_agent(ALICE, "bot", "0x" + "7" * 40, clock.now_ms() + 1000)
    clock.advance(3_600_000)
    ex.tick()
    ex.flush_events()
    ex.produce_block()
    check(got["orders"], WS_ORDER, "orders")
    check(got["fills"], WS_FILL, "fills")
    check(got["ticker"], WS_TICKER, "ticker")
    check(got["trades"], [WS_TRADE], "trades")
    check(got["orderbook"], WS_BOOK, "orderbook")
    check(ex.orderbook_snapshot("BTC-PERP"), WS_BOOK, "snapshot")
    check(got["chart"], CANDLE, "chart")
    check(got["bbo"], [BBO], "bbo")
    check(got["mids"], {"symbol": "str", "mid_price": "str"}, "mids")
    check(got["position"], POSITION, "position")
    check(got["account_summary"], SUMMARY | {"vault_balances": {}}, "account_summary")
    check(got["funding_payments"], FUNDING, "funding_payments")
    check(got["agent"], AGENT | {"status": "str"}, "agent")
    check(got["blocks"], BLOCK, "blocks")
    check(got["transactions"], TX, "transactions")
