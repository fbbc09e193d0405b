"""msgspec Structs for every record of the exchange interface, and the one way to decode them.

Field names are the wire names. Every price, size, amount, fee, rate and balance is a ``Decimal`` and is
read exactly from a JSON string or a JSON number (the interface mixes both, and the SDKs differ from it);
a decimal that is not finite (``"NaN"``, ``"Infinity"``) or absurdly scaled is rejected, because it would
blow up comparisons and arithmetic far from the edge. Ids and integer timestamps are ``int``; ISO 8601
timestamps stay ``str`` (see ``to_datetime``). Unknown fields are ignored, so a server that adds fields
does not break the client; fields the SDKs or the interface may leave out have defaults.

``decode(data, Type)`` is the public entry point: it takes raw JSON (bytes or str) or an already-parsed
object and raises only ``DecodeError``, whose message names the failing path (e.g. ``$.bids[3].price``).
``TypedDecoder`` is its reusable form for hot paths (order books, WebSocket frames).
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from decimal import Decimal
from types import UnionType
from typing import Any, Generic, TypeVar, Union, cast, get_args, get_origin

import msgspec

__all__ = [
    "BOOK_UPDATE_DECODER", "ORDERBOOK_DECODER", "WS_FRAME_DECODER",
    "Account", "AccountHistoryPoint", "AccountInfo", "AccountSummary", "Agent", "Balance", "Bbo",
    "BlockDetail", "BlockList", "BlockSummary", "BookData", "BookLevel", "BookUpdate", "BridgeInfo",
    "BrokerApproval", "Candle", "CollRisk", "Collateral", "DecodeError", "ErrorBody", "ExchangeResponse",
    "Fill", "FundingRecord", "Instruments", "LegLeverage", "LeverageSetting", "MarginTier", "Mid",
    "Oracle", "Order", "OrderBook", "Page", "PerpInstrument", "PerpPosition", "Position", "PositionLeg",
    "ReferralSummary", "ReferralTier", "ReferredUser", "Reward", "RpcError", "SpotInstrument", "SubVault",
    "SubscribeResult", "Ticker", "Trade", "Transaction", "TransactionList", "TransferRecord",
    "TypedDecoder", "UserFees", "Vault", "VaultBalance", "VaultHolding", "VaultList", "VolumeSplit",
    "WeightTier", "WsFill", "WsFrame", "WsOrder", "WsParams", "decode", "to_datetime",
]  # fmt: skip

T = TypeVar("T")
D = TypeVar("D")

# |adjusted exponent| beyond this is garbage, and near Decimal's Emax it makes arithmetic raise.
_MAX_EXPONENT = 1000


class DecodeError(ValueError):
    """A response, frame or object did not match its record; the message names the failing path."""


def _check_decimal(value: object, name: str) -> None:
    """Reject a decoded decimal that is not finite or absurdly scaled (other types: built in code)."""
    if not isinstance(value, Decimal):
        return
    if not value.is_finite() or not -_MAX_EXPONENT <= value.adjusted() <= _MAX_EXPONENT:
        raise ValueError(f"`{name}` is not a usable decimal: {str(value)[:32]!r}")


@functools.cache
def _decimal_fields(cls: type) -> tuple[str, ...]:
    """The names of ``cls``'s fields typed ``Decimal`` or ``Decimal | None``."""
    names = []
    for f in msgspec.structs.fields(cls):
        t = f.type
        if t is Decimal or (get_origin(t) in (Union, UnionType) and Decimal in get_args(t)):
            names.append(f.name)
    return tuple(names)


class _Record(msgspec.Struct, kw_only=True, frozen=True):
    """Base of every record: immutable, keyword-only, finite decimals only."""

    def __post_init__(self) -> None:
        for name in _decimal_fields(type(self)):
            _check_decimal(getattr(self, name), name)


def to_datetime(value: str | int) -> datetime:
    """An interface timestamp as an aware UTC datetime: ISO 8601 string or integer milliseconds."""
    if isinstance(value, int):
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


# ---- envelopes -------------------------------------------------------------------------------------


class ExchangeResponse(_Record, Generic[D], frozen=True):
    """The /exchange envelope. Any field may be absent; ``success`` replaces ``error`` for cancels.

    Decode it untyped (``data`` is Any) and check ``ok`` before reading ``data``: a rejected action's
    ``data`` need not have the success shape, so a typed ``ExchangeResponse[X]`` would hide the error.
    """

    tx_hash: str = ""
    tx_type: int | None = None
    error: str = ""
    success: bool | None = None
    data: D | None = None
    address: str = ""

    @property
    def ok(self) -> bool:
        """True when the action was applied: no error text and ``success`` not false."""
        return not self.error and self.success is not False


class ErrorBody(_Record, frozen=True):
    """A failure body: ``{type: "error", message}`` (SDK) or ``{code, message}`` (429/418)."""

    type: str = ""
    message: str = ""
    code: int | None = None


class Page(_Record, Generic[T], frozen=True):
    """The paginated list envelope (fills, open_orders, order_history, funding_history, brokers_check)."""

    data: list[T]
    page: int
    limit: int
    total_count: int
    total_pages: int
    has_next: bool
    has_prev: bool


# ---- account records -------------------------------------------------------------------------------


class _OrderBase(_Record, frozen=True):
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


class _FillBase(_Record, frozen=True):
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


class Position(_Record, frozen=True):
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


class Balance(_Record, frozen=True):
    """One collateral balance in the account summary."""

    balance: Decimal
    withdrawable_balance: Decimal


class VaultHolding(_Record, frozen=True):
    """One vault_balances entry in the account summary."""

    withdrawable_shares: Decimal
    total_shares: Decimal
    amount: Decimal


class LegLeverage(_Record, frozen=True):
    """A leg's leverage: margin type and value."""

    type: str
    value: Decimal


class PositionLeg(_Record, frozen=True):
    """One leg of a perp position in the account summary."""

    instrument_id: int
    instrument_name: str
    side: str
    size: Decimal
    entry_price: Decimal
    leverage: LegLeverage
    position_value: Decimal


class PerpPosition(_Record, frozen=True):
    """One perp_positions entry (keyed by instrument name) in the account summary."""

    position_type: str
    legs: list[PositionLeg]
    liquidation_price: Decimal
    mm: Decimal
    im: Decimal
    upnl: Decimal


class AccountSummary(_Record, frozen=True):
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


class Account(_Record, frozen=True):
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


class Reward(_Record, frozen=True):
    """A reward record of account_info (capitalised wire names)."""

    Account: str
    CollateralID: int
    Source: str
    IsSpot: bool
    Amount: Decimal
    ClaimAmount: Decimal
    CreatedAt: int  # ms


class AccountInfo(_Record, frozen=True):
    """The account_info result. ``decode`` also accepts the SDKs' flat form and snake_case rewards."""

    account: Account
    rewards: list[Reward] = []
    history: list[Reward] = []


class VolumeSplit(_Record, frozen=True):
    """Maker and taker volume."""

    maker_volume: Decimal
    taker_volume: Decimal


class ReferredUser(_Record, frozen=True):
    """One referred_users entry (keyed by user address) of the referral summary."""

    code: str
    joined_at: int  # ms
    referred_volume: Decimal
    perp_volume: VolumeSplit
    spot_volume: VolumeSplit
    stable_spot_volume: VolumeSplit
    referred_perp_rewards: Decimal
    referred_spot_rewards: Decimal


class ReferralTier(_Record, frozen=True):
    """The referral tier of the referral summary."""

    total_referred_volume: Decimal
    fee_discount_rate: Decimal
    referrer_commission: Decimal


class ReferralSummary(_Record, frozen=True):
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


class BrokerApproval(_Record, frozen=True):
    """A brokers_check item."""

    account: str
    broker: str
    max_fee_rate: Decimal
    updated_at: int  # seconds


class FundingRecord(_Record, frozen=True):
    """A funding_history item."""

    user: str
    instrument_id: int
    settlement_currency: int
    funding_payment: Decimal
    funding_rate: Decimal
    mark_price: Decimal
    size: Decimal
    timestamp: str  # ISO 8601


class TransferRecord(_Record, frozen=True):
    """A transfer_history item (``from`` is ``from_`` in Python)."""

    from_: str = msgspec.field(name="from")
    to: str
    collateral_id: int
    amount: Decimal
    tx_hash: str
    type: str
    timestamp: str  # ISO 8601


class LeverageSetting(_Record, frozen=True):
    """The instrument_leverage result."""

    address: str
    instrument_id: int
    instrument: str
    margin_type: str
    leverage: Decimal
    updated_at: int  # seconds


class AccountHistoryPoint(_Record, frozen=True):
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


class Agent(_Record, frozen=True):
    """An all_agents item."""

    user: str
    agent_address: str
    agent_name: str
    created_at_block_timestamp: int  # ms
    valid_until_timestamp: int  # ms


class UserFees(_Record, frozen=True):
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


# ---- vaults (SDK only) -----------------------------------------------------------------------------


class Vault(_Record, frozen=True):
    """A vaults item."""

    vault_address: str
    vault_manager: str
    name: str
    symbol: str
    deposit_cap: Decimal
    role: int
    underlying_asset_id: int
    lock_in_period: int
    commission: Decimal
    min_share_of_vm: Decimal
    created_at: int
    allow_deposits: bool
    always_close_on_withdraw: bool
    is_closed: bool
    updated_at: int


class VaultList(_Record, frozen=True):
    """The vaults result."""

    vaults: list[Vault]


class SubVault(_Record, frozen=True):
    """A sub_vaults item."""

    vault_address: str
    sub_vault_address: str
    manager: str
    created_at: int


class VaultBalance(_Record, frozen=True):
    """A vault_balance result (one with ``user``, else a list: decode ``list[VaultBalance]``)."""

    vault_address: str
    account: str
    amount: Decimal
    shares: Decimal
    updated_at: int


# ---- market data -----------------------------------------------------------------------------------


class BookLevel(_Record, frozen=True, gc=False):
    """One order-book level: numbers in the interface, strings in the SDK types; both accepted."""

    price: Decimal
    size: Decimal

    def __post_init__(self) -> None:
        # The hot path: the generic check inlined (~0.3 us a level); _check_decimal only to raise.
        p, s, lim = self.price, self.size, _MAX_EXPONENT
        try:
            ok = p.is_finite() and s.is_finite() and -lim <= p.adjusted() <= lim and -lim <= s.adjusted() <= lim
        except AttributeError:  # not Decimals: built in code, not decoded
            ok = False
        if not ok:
            _check_decimal(p, "price")
            _check_decimal(s, "size")


class BookData(_Record, frozen=True, gc=False):
    """The ``books`` object of an orderbook WebSocket update."""

    bids: list[BookLevel]
    asks: list[BookLevel]
    sequence_number: int
    timestamp: int  # ms


class OrderBook(BookData, frozen=True, gc=False):
    """The orderbook result."""

    instrument_name: str


class BookUpdate(_Record, frozen=True, gc=False):
    """An orderbook WebSocket payload: ``update_type`` is ``snapshot`` or ``update``."""

    update_type: str
    instrument_name: str
    books: BookData


class Bbo(_Record, frozen=True, gc=False):
    """A bbo item."""

    symbol: str
    best_bid_price: Decimal
    best_ask_price: Decimal
    best_bid_size: Decimal
    best_ask_size: Decimal


class Ticker(Bbo, frozen=True, gc=False):
    """A ticker item: HTTP (strings, with ``type``/``last_updated``) or WebSocket (numbers, ids, premium)."""

    mark_price: Decimal
    mid_price: Decimal
    index_price: Decimal
    funding_rate: Decimal
    open_interest: Decimal
    volume_24h: Decimal
    change_24h: Decimal
    max_trading_price: Decimal
    min_trading_price: Decimal
    last_price: Decimal
    type: str = ""  # HTTP only
    last_updated: int | None = None  # HTTP only, ms
    instrument_name: str = ""  # WebSocket only
    instrument_id: int | None = None  # WebSocket only
    premium: Decimal | None = None  # WebSocket only


class Mid(_Record, frozen=True, gc=False):
    """A mids item."""

    symbol: str
    mid_price: Decimal


class Oracle(_Record, frozen=True):
    """The oracle result."""

    symbol: str
    index_price: Decimal
    ext_mark_price: Decimal
    updated_at: int


class Trade(_Record, frozen=True, gc=False):
    """A trades item, HTTP or WebSocket (``timestamp`` is an ISO string over HTTP, maybe ms over WS)."""

    instrument_id: int
    instrument: str
    trade_id: int
    tx_hash: str
    side: str
    price: Decimal
    size: Decimal
    maker: str
    taker: str
    timestamp: str | int


class Candle(_Record, frozen=True, gc=False):
    """A chart item, and the chart WebSocket payload (same shape)."""

    open: Decimal
    high: Decimal
    low: Decimal
    close: Decimal
    volume: Decimal
    time: int  # ms


# ---- instruments and collateral --------------------------------------------------------------------


class MarginTier(_Record, frozen=True):
    """One margin tier of a perp instrument."""

    notional_usd_threshold: Decimal
    max_leverage: int
    mmr: Decimal
    mmd: Decimal


class PerpInstrument(_Record, frozen=True):
    """A perps item of the instruments result."""

    id: int
    name: str
    price_index: str
    lot_size: Decimal
    tick_size: Decimal
    settlement_currency: int
    only_isolated: bool
    delisted: bool
    max_leverage: int
    min_notional_usd: Decimal
    margin_tiers: list[MarginTier]
    listed_at_block_timestamp: int  # ms


class SpotInstrument(_Record, frozen=True):
    """A spot item of the instruments result."""

    id: int
    name: str
    price_index: str
    lot_size: Decimal
    tick_size: Decimal
    base_asset: int
    quote_asset: int
    stable_pair: bool
    min_size_in_quote_asset: Decimal
    listed_at_block_timestamp: int  # ms


class Instruments(_Record, frozen=True):
    """The instruments result (``spot`` may be missing on testnet)."""

    perps: list[PerpInstrument]
    spot: list[SpotInstrument] = []


class BridgeInfo(_Record, frozen=True):
    """One bridge_by_chain entry of a collateral."""

    bridge_chain_type: int
    bridge_chain_id: int
    token_address: str
    bridge_contract_address: str
    enabled: bool


class WeightTier(_Record, frozen=True):
    """One collateral weight tier."""

    amount: Decimal
    weight: Decimal


class CollRisk(_Record, frozen=True):
    """A collateral's risk settings (``enabled`` is missing from the TS type)."""

    weight_tiers: list[WeightTier]
    max_margin_cap: Decimal
    stale_price_guard_weight: Decimal
    enabled: bool | None = None


class Collateral(_Record, frozen=True):
    """A supported_collateral item. ``coll_risk`` is an object (interface, PY) or an array (TS)."""

    id: int
    symbol: str
    name: str
    decimals: int
    default_coll_weight: Decimal
    price_index: str
    type: int
    bridge_by_chain: list[BridgeInfo]
    coll_risk: CollRisk | list[CollRisk]
    withdrawal_fee: Decimal
    added_at_block: int  # ms
    transfer_notional_fee: Decimal | None = None  # missing from the TS type

    @property
    def risk(self) -> CollRisk | None:
        """The risk settings whichever form they came in (the first entry of the TS array)."""
        if isinstance(self.coll_risk, CollRisk):
            return self.coll_risk
        return self.coll_risk[0] if self.coll_risk else None


# ---- explorer --------------------------------------------------------------------------------------


class BlockSummary(_Record, frozen=True):
    """A block summary (blocks item)."""

    block_height: int
    block_hash: str
    parent_hash: str
    change_log_hash: str
    timestamp: int  # ms
    tx_count: int
    created_at: int  # seconds


class Transaction(_Record, frozen=True):
    """A transaction record."""

    tx_hash: str
    account: str
    block_height: int
    block_hash: str
    tx_type: int
    success: bool
    timestamp: int  # ms
    created_at: int  # seconds


class BlockDetail(BlockSummary, frozen=True):
    """The block result: a summary plus its transactions."""

    transactions: list[Transaction]


class BlockList(_Record, frozen=True):
    """The blocks result."""

    blocks: list[BlockSummary]
    total: int
    limit: int
    offset: int


class TransactionList(_Record, frozen=True):
    """The transactions result (SDK only; shape mirrors blocks)."""

    transactions: list[Transaction]
    total: int
    limit: int
    offset: int


# ---- WebSocket -------------------------------------------------------------------------------------


class RpcError(_Record, frozen=True):
    """A JSON-RPC error object."""

    code: int
    message: str
    data: Any = None


class WsParams(_Record, frozen=True, gc=False):
    """A notification's params; ``data`` stays raw JSON until the channel's decoder reads it."""

    channel: str
    data: msgspec.Raw


class WsFrame(_Record, frozen=True, gc=False, omit_defaults=True):
    """Any server frame: a notification (``method`` + ``params``) or a response (``id`` + result/error).

    ``result`` stays raw JSON for the caller's typed decode; it is empty (falsy) when absent.
    """

    jsonrpc: str = "2.0"
    id: str | int | None = None
    method: str | None = None
    params: WsParams | None = None
    result: msgspec.Raw = msgspec.Raw()
    error: RpcError | None = None


class SubscribeResult(_Record, frozen=True):
    """The result of subscribe / unsubscribe."""

    status: str
    channels: list[str] = []
    error: str = ""


# ---- decoding --------------------------------------------------------------------------------------

_JSON_INPUT = (bytes, bytearray, memoryview, str, msgspec.Raw)


def _wrap(exc: Exception) -> DecodeError:
    """The one public error for whatever went wrong while decoding."""
    if isinstance(exc, DecodeError):
        return exc
    if isinstance(exc, msgspec.ValidationError):
        return DecodeError(str(exc))
    if isinstance(exc, msgspec.DecodeError):
        return DecodeError(f"malformed JSON: {exc}")
    if isinstance(exc, RecursionError):
        return DecodeError("input nested too deeply")
    if isinstance(exc, UnicodeError):
        return DecodeError("input is not valid UTF-8 text")
    return DecodeError(f"cannot decode: {type(exc).__name__}: {exc}")


class TypedDecoder(Generic[T]):
    """A reusable JSON decoder for one type that raises only ``DecodeError`` (for hot paths)."""

    __slots__ = ("_decoder", "type")

    def __init__(self, type_: type[T]) -> None:
        self.type = type_
        self._decoder = msgspec.json.Decoder(type_)

    def decode(self, data: bytes | bytearray | memoryview | str | msgspec.Raw) -> T:
        """Decode raw JSON into ``self.type``."""
        try:
            return self._decoder.decode(data)
        except Exception as exc:
            raise _wrap(exc) from exc


_DECODERS: dict[Any, TypedDecoder[Any]] = {}


def _decoder_for(type_: Any) -> TypedDecoder[Any]:
    """The cached decoder for ``type_`` (a fresh one for the rare unhashable type)."""
    try:
        decoder = _DECODERS.get(type_)
    except TypeError:
        return TypedDecoder(type_)
    if decoder is None:
        decoder = _DECODERS[type_] = TypedDecoder(type_)
    return decoder


# Untyped parse that keeps numbers exact, for inputs normalised before typed conversion.
_EXACT_JSON = msgspec.json.Decoder(float_hook=Decimal)

_REWARD_KEYS = {
    "account": "Account", "collateral_id": "CollateralID", "source": "Source", "is_spot": "IsSpot",
    "amount": "Amount", "claim_amount": "ClaimAmount", "created_at": "CreatedAt",
}  # fmt: skip


def _reward_keys(item: Any) -> Any:
    """A reward record with the TS SDK's snake_case keys renamed to the capitalised wire names."""
    if not isinstance(item, dict):
        return item
    out = {}
    for key, value in item.items():
        wire = _REWARD_KEYS.get(key)
        out[wire if wire and wire not in item else key] = value
    return out


def _normalise_account_info(obj: Any) -> Any:
    """Nested form as is; the flat SDK form wrapped into ``account``; null reward lists as empty."""
    if not isinstance(obj, dict):
        return obj
    out = dict(obj) if "account" in obj else {"account": obj}
    for key in ("rewards", "history"):
        items = obj.get(key)
        out[key] = [] if items is None else [_reward_keys(i) for i in items] if isinstance(items, list) else items
    return out


def decode(data: bytes | str | Any, type_: type[T]) -> T:
    """Decode ``data`` into ``type_``: raw JSON (bytes, str, Raw) or an already-parsed object.

    Raises only ``DecodeError``; its message names the failing path, e.g. ``$.data[0].price``.
    ``type_`` may be any msgspec type: a record, ``list[Ticker]``, ``Page[Order]``...
    """
    try:
        if type_ is AccountInfo:
            parsed = _EXACT_JSON.decode(data) if isinstance(data, _JSON_INPUT) else data
            return msgspec.convert(_normalise_account_info(parsed), type_)
        if isinstance(data, _JSON_INPUT):
            return cast(T, _decoder_for(type_).decode(data))
        return msgspec.convert(data, type_)
    except Exception as exc:
        raise _wrap(exc) from exc


# Pre-built decoders for the hot paths.
ORDERBOOK_DECODER = TypedDecoder(OrderBook)
BOOK_UPDATE_DECODER = TypedDecoder(BookUpdate)
WS_FRAME_DECODER = TypedDecoder(WsFrame)
