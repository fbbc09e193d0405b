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

The records live by family: ``envelopes`` (the response and list wrappers), ``account``, ``vaults``,
``market`` (market data, instruments, collateral), ``explorer`` and ``frames`` (WebSocket payloads), all on
the ``base`` record; ``decoding`` holds ``decode`` and the decoders. Import them from here.
"""

from __future__ import annotations

from .account import (
    Account,
    AccountHistoryPoint,
    AccountInfo,
    AccountSummary,
    Agent,
    Balance,
    BrokerApproval,
    Fill,
    FundingRecord,
    LegLeverage,
    LeverageSetting,
    Order,
    PerpPosition,
    Position,
    PositionLeg,
    ReferralSummary,
    ReferralTier,
    ReferredUser,
    Reward,
    TransferRecord,
    UserFees,
    VaultHolding,
    VolumeSplit,
    WsFill,
    WsOrder,
)
from .base import to_datetime
from .decoding import BOOK_UPDATE_DECODER, ORDERBOOK_DECODER, WS_FRAME_DECODER, DecodeError, TypedDecoder, decode
from .envelopes import ErrorBody, ExchangeResponse, Page
from .explorer import BlockDetail, BlockList, BlockSummary, Transaction, TransactionList
from .frames import RpcError, SubscribeResult, WsFrame, WsParams
from .market import (
    Bbo,
    BookData,
    BookLevel,
    BookUpdate,
    BridgeInfo,
    Candle,
    Collateral,
    CollRisk,
    Instruments,
    MarginTier,
    Mid,
    Oracle,
    OrderBook,
    PerpInstrument,
    SpotInstrument,
    Ticker,
    Trade,
    WeightTier,
)
from .vaults import SubVault, Vault, VaultBalance, VaultList

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
