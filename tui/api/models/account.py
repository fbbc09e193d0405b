"""Account records: orders, fills, positions, the summary, account info, referrals, history, fees."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import msgspec

from .base import Record

__all__ = [
    "Account", "AccountHistoryPoint", "AccountInfo", "AccountSummary", "Agent", "Balance", "BrokerApproval",
    "Fill", "FundingRecord", "LegLeverage", "LeverageSetting", "Order", "PerpPosition", "Position",
    "PositionLeg", "ReferralSummary", "ReferralTier", "ReferredUser", "Reward", "TransferRecord", "UserFees",
    "VaultHolding", "VolumeSplit", "WsFill", "WsOrder",
]  # fmt: skip


class _OrderBase(Record, frozen=True):
    """Fields an order has over HTTP and over the WebSocket."""

    order_id: int
    instrument_id: int
    instrument: str
    side: str  # b / s
    position_side: str
    limit_price: Decimal
    size: Decimal
    unfilled: Decimal
    state: str
    cloid: str
    tif: str
    post_only: bool
    reduce_only: bool


class Order(_OrderBase, frozen=True):
    """An open_orders / order_history item."""

    user: str
    trigger_px: Decimal
    is_market: bool
    tpsl: str
    grouping: str
    timestamp: str  # ISO 8601 UTC


class WsOrder(_OrderBase, frozen=True):
    """An orders WebSocket item (``old_*`` describe an amended order)."""

    account: str
    timestamp: int  # ms
    old_price: Decimal | None = None
    old_size: Decimal | None = None


class _FillBase(Record, frozen=True):
    """Fields a fill has over HTTP and over the WebSocket."""

    instrument_id: int
    instrument: str
    account: str
    order_id: int
    cloid: str
    trade_id: int
    side: str
    position_side: str
    direction: str
    price: Decimal
    size: Decimal
    closed_pnl: Decimal
    fee: Decimal
    broker_fee: Decimal
    fee_token_id: int
    crossed: bool
    tx_hash: str
    fill_type: int


class Fill(_FillBase, frozen=True):
    """A fills item."""

    start_size: Decimal
    start_price: Decimal
    notional_value: Decimal
    block_timestamp: str  # ISO 8601 UTC


class WsFill(_FillBase, frozen=True):
    """A fills WebSocket item (numbers; ``original_*`` in place of the HTTP ``start_*``)."""

    original_size: Decimal
    original_price: Decimal
    block_timestamp: int | str


class Position(Record, frozen=True):
    """A positions item (``margin`` is added by the TS SDK)."""

    user: str
    instrument_id: int
    instrument: str
    position_side: str
    size: Decimal  # signed: negative for short
    entry_price: Decimal
    position_value: Decimal
    margin_mode: str
    leverage: Decimal
    updated_at: int  # seconds
    margin: Decimal | None = None


class Balance(Record, frozen=True):
    """One collateral balance in the account summary."""

    balance: Decimal
    withdrawable_balance: Decimal


class VaultHolding(Record, frozen=True):
    """One vault_balances entry in the account summary."""

    withdrawable_shares: Decimal
    total_shares: Decimal
    amount: Decimal


class LegLeverage(Record, frozen=True):
    """A leg's leverage: margin type and value."""

    type: str
    value: Decimal


class PositionLeg(Record, frozen=True):
    """One leg of a perp position in the account summary."""

    instrument_id: int
    instrument_name: str
    side: str
    size: Decimal
    entry_price: Decimal
    leverage: LegLeverage
    position_value: Decimal


class PerpPosition(Record, frozen=True):
    """One perp_positions entry (keyed by instrument name) in the account summary."""

    position_type: str
    legs: list[PositionLeg]
    liquidation_price: Decimal
    mm: Decimal
    im: Decimal
    upnl: Decimal


class AccountSummary(Record, frozen=True):
    """The account_summary result (also the account_summary WebSocket payload)."""

    address: str
    margin_mode: str
    multi_asset_mode: bool
    hedge_mode: bool
    spot_collateral: dict[str, Balance]
    collateral: dict[str, Balance]
    vault_balances: dict[str, VaultHolding]
    staked_collateral: Decimal
    perp_positions: dict[str, PerpPosition]
    initial_margin_utilization: Decimal
    maintenance_margin_utilization: Decimal
    upnl: Decimal
    total_account_equity: Decimal
    margin_balance: Decimal
    initial_margin: Decimal
    maintenance_margin: Decimal
    total_volume: Decimal
    total_pnl: Decimal
    available_balance: Decimal
    transfer_margin_req: Decimal
    max_drawdown: Decimal
    spot_account_equity: Decimal
    derivative_account_equity: Decimal
    spot_volume: Decimal
    # SDK additions
    withdrawable_balance_notional: Decimal | None = None
    perp_volume: Decimal | None = None
    vault_summary: dict[str, Any] | None = None


class Account(Record, frozen=True):
    """The ``account`` object of account_info (the SDKs' flat account_info result has these fields)."""

    address: str
    role: int
    margin_mode: str
    multi_asset_mode: bool
    hedge_mode: bool
    referrer: str
    referral_codes: list[str]
    referral_timestamp: int  # ms
    created_at_block_timestamp: int  # ms


class Reward(Record, frozen=True):
    """A reward record of account_info (capitalised wire names)."""

    Account: str
    CollateralID: int
    Source: str
    IsSpot: bool
    Amount: Decimal
    ClaimAmount: Decimal
    CreatedAt: int  # ms


class AccountInfo(Record, frozen=True):
    """The account_info result. ``decode`` also accepts the SDKs' flat form and snake_case rewards."""

    account: Account
    rewards: list[Reward] = []  # noqa: RUF012 (a Struct field: msgspec copies the default)
    history: list[Reward] = []  # noqa: RUF012 (a Struct field: msgspec copies the default)


class VolumeSplit(Record, frozen=True):
    """Maker and taker volume."""

    maker_volume: Decimal
    taker_volume: Decimal


class ReferredUser(Record, frozen=True):
    """One referred_users entry (keyed by user address) of the referral summary."""

    code: str
    joined_at: int  # ms
    referred_volume: Decimal
    perp_volume: VolumeSplit
    spot_volume: VolumeSplit
    stable_spot_volume: VolumeSplit
    referred_perp_rewards: Decimal
    referred_spot_rewards: Decimal


class ReferralTier(Record, frozen=True):
    """The referral tier of the referral summary."""

    total_referred_volume: Decimal
    fee_discount_rate: Decimal
    referrer_commission: Decimal


class ReferralSummary(Record, frozen=True):
    """The referral_summary result."""

    address: str
    referrer: str
    referrer_code: str
    refer_timestamp: int  # ms
    codes: list[str]
    is_affiliate: bool
    referred_users: dict[str, ReferredUser]
    to_claim_perp_rewards: Decimal
    to_claim_spot_rewards: Decimal
    claimed_perp_rewards: Decimal
    claimed_spot_rewards: Decimal
    total_referred_volume: Decimal
    rolling_referred_volume: Decimal
    referral_tier: ReferralTier
    updated_at: int  # ms
    referral_bypass_slots: dict[str, Any] | None = None  # SDK: {users_allowed}


class BrokerApproval(Record, frozen=True):
    """A brokers_check item."""

    account: str
    broker: str
    max_fee_rate: Decimal
    updated_at: int  # seconds


class FundingRecord(Record, frozen=True):
    """A funding_history item."""

    user: str
    instrument_id: int
    settlement_currency: int
    funding_payment: Decimal
    funding_rate: Decimal
    mark_price: Decimal
    size: Decimal
    timestamp: str  # ISO 8601


class TransferRecord(Record, frozen=True):
    """A transfer_history item (``from`` is ``from_`` in Python)."""

    from_: str = msgspec.field(name="from")
    to: str
    collateral_id: int
    amount: Decimal
    tx_hash: str
    type: str
    timestamp: str  # ISO 8601


class LeverageSetting(Record, frozen=True):
    """The instrument_leverage result."""

    address: str
    instrument_id: int
    instrument: str
    margin_type: str
    leverage: Decimal
    updated_at: int  # seconds


class AccountHistoryPoint(Record, frozen=True):
    """An account_history item (the SDK adds the per-market volumes and pnls)."""

    address: str
    total_pnl: Decimal
    total_volume: Decimal
    account_value: Decimal
    created_at: str  # ISO 8601
    perp_volume: Decimal | None = None
    spot_volume: Decimal | None = None
    stable_spot_volume: Decimal | None = None
    perp_pnl: Decimal | None = None
    spot_pnl: Decimal | None = None


class Agent(Record, frozen=True):
    """An all_agents item."""

    user: str
    agent_address: str
    agent_name: str
    created_at_block_timestamp: int  # ms
    valid_until_timestamp: int  # ms


class UserFees(Record, frozen=True):
    """The user_fees result (SDK only)."""

    account: str
    spot_volume_14d: Decimal
    spot_volume_30d: Decimal
    stable_spot_volume_14d: Decimal
    stable_spot_volume_30d: Decimal
    perp_volume_14d: Decimal
    perp_volume_30d: Decimal
    option_volume_14d: Decimal
    option_volume_30d: Decimal
    total_volume_threshold: Decimal
    perp_maker_fee_rate: Decimal
    perp_taker_fee_rate: Decimal
    spot_maker_fee_rate: Decimal
    spot_taker_fee_rate: Decimal
    stable_spot_maker_fee_rate: Decimal
    stable_spot_taker_fee_rate: Decimal
    option_maker_fee_rate: Decimal
    option_taker_fee_rate: Decimal
