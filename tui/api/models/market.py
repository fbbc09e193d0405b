"""Market records: order books, bbo, tickers, mids, oracle, trades, candles, instruments, collateral."""

from __future__ import annotations

from decimal import Decimal

from .base import MAX_EXPONENT, Record, check_decimal

__all__ = [
    "Bbo", "BookData", "BookLevel", "BookUpdate", "BridgeInfo", "Candle", "CollRisk", "Collateral",
    "Instruments", "MarginTier", "Mid", "Oracle", "OrderBook", "PerpInstrument", "SpotInstrument", "Ticker",
    "Trade", "WeightTier",
]  # fmt: skip


class BookLevel(Record, frozen=True, gc=False):
    """One order-book level: numbers in the interface, strings in the SDK types; both accepted."""

    price: Decimal
    size: Decimal

    def __post_init__(self) -> None:
        # The hot path: the generic check inlined (~0.3 us a level); check_decimal only to raise.
        p, s, lim = self.price, self.size, MAX_EXPONENT
        try:
            ok = p.is_finite() and s.is_finite() and -lim <= p.adjusted() <= lim and -lim <= s.adjusted() <= lim
        except AttributeError:  # not Decimals: built in code, not decoded
            ok = False
        if not ok:
            check_decimal(p, "price")
            check_decimal(s, "size")


class BookData(Record, frozen=True, gc=False):
    """The ``books`` object of an orderbook WebSocket update."""

    bids: list[BookLevel]
    asks: list[BookLevel]
    sequence_number: int
    timestamp: int  # ms


class OrderBook(BookData, frozen=True, gc=False):
    """The orderbook result."""

    instrument_name: str


class BookUpdate(Record, frozen=True, gc=False):
    """An orderbook WebSocket payload: ``update_type`` is ``snapshot`` or ``update``."""

    update_type: str
    instrument_name: str
    books: BookData


class Bbo(Record, frozen=True, gc=False):
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


class Mid(Record, frozen=True, gc=False):
    """A mids item."""

    symbol: str
    mid_price: Decimal


class Oracle(Record, frozen=True):
    """The oracle result."""

    symbol: str
    index_price: Decimal
    ext_mark_price: Decimal
    updated_at: int


class Trade(Record, frozen=True, gc=False):
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


class Candle(Record, frozen=True, gc=False):
    """A chart item, and the chart WebSocket payload (same shape)."""

    open: Decimal
    high: Decimal
    low: Decimal
    close: Decimal
    volume: Decimal
    time: int  # ms


# ---- instruments and collateral --------------------------------------------------------------------


class MarginTier(Record, frozen=True):
    """One margin tier of a perp instrument."""

    notional_usd_threshold: Decimal
    max_leverage: int
    mmr: Decimal
    mmd: Decimal


class PerpInstrument(Record, frozen=True):
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


class SpotInstrument(Record, frozen=True):
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


class Instruments(Record, frozen=True):
    """The instruments result (``spot`` may be missing on testnet)."""

    perps: list[PerpInstrument]
    spot: list[SpotInstrument] = []  # noqa: RUF012 (a Struct field: msgspec copies the default)


class BridgeInfo(Record, frozen=True):
    """One bridge_by_chain entry of a collateral."""

    bridge_chain_type: int
    bridge_chain_id: int
    token_address: str
    bridge_contract_address: str
    enabled: bool


class WeightTier(Record, frozen=True):
    """One collateral weight tier."""

    amount: Decimal
    weight: Decimal


class CollRisk(Record, frozen=True):
    """A collateral's risk settings (``enabled`` is missing from the TS type)."""

    weight_tiers: list[WeightTier]
    max_margin_cap: Decimal
    stale_price_guard_weight: Decimal
    enabled: bool | None = None


class Collateral(Record, frozen=True):
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
