"""The feed's one consistent state: market data, the account and the connection's health.

The worker writes it (on the event loop), the UI reads it when told which topics changed. Records are
``tui.api.models`` structs with ``Decimal`` money. The account keeps, per order and per position, when
the WebSocket last touched it, so that a poll answered with older data never undoes a newer push.
"""

from __future__ import annotations

import bisect
import collections
import logging
from collections.abc import Iterable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Literal

import msgspec

from tui.api.limits import GovernorStatus
from tui.api.models import (
    AccountSummary,
    Candle,
    Fill,
    FundingRecord,
    Instruments,
    MarginTier,
    Order,
    Position,
    Ticker,
    Trade,
    WsFill,
    WsOrder,
    to_datetime,
)
from tui.api.paper import PaperStatus
from tui.edges.safe_text import printable

from .book import BookState
from .events import EventLog, OrderStatus
from .funding import DEFAULT_PERIOD_S

__all__ = [
    "CANDLES_KEPT",
    "FILLS_KEPT",
    "FUNDING_KEPT",
    "OPEN_STATES",
    "TAPE_MARKS_KEPT",
    "TOPICS",
    "TRADES_KEPT",
    "AccountState",
    "BookState",
    "FeedState",
    "FeedStatus",
    "InstrumentInfo",
    "MarketState",
    "TapeMark",
    "fill_from_ws",
    "instruments_from",
    "order_from_ws",
]

log = logging.getLogger("tui.feed")

# "fills" is an addition to the contract: fill changes are announced as {"fills", "orders"}; "events": new
# account events in ``AccountState.events`` (fills, triggers, orders the exchange ended, liquidations, funding).
TOPICS = ("markets", "book", "trades", "chart", "positions", "orders", "account", "status", "fills", "events")
TRADES_KEPT = 200
FILLS_KEPT = 200
SIGHTINGS_KEPT = 500  # cloids whose first push time is kept
FUNDING_KEPT = 500  # the account's funding records: what positions have paid since they opened
CANDLES_KEPT = 1_000
TAPE_MARKS_KEPT = 8  # reconnects marked on the tape; older ones have scrolled away with their trades
OPEN_STATES = frozenset({"open", "triggered"})  # what open_orders lists; anything else has left the book
ENDED_KEPT = 1_000  # orders whose end (filled, cancelled...) is remembered, to say whether a fill finished one


class InstrumentInfo(msgspec.Struct, frozen=True):
    """What order entry and formatting need of an instrument (from /info instruments)."""

    id: int
    name: str
    kind: Literal["perp", "spot"]
    tick_size: Decimal
    lot_size: Decimal
    min_notional: Decimal  # spot: min_size_in_quote_asset
    max_leverage: int  # spot: 1
    margin_tiers: tuple[MarginTier, ...] = ()  # perps: maintenance margin by notional (a liquidation estimate)


def instruments_from(result: Instruments) -> dict[str, InstrumentInfo]:
    """Listed instruments by name, perps then spot; delisted perps are left out (nothing to trade), and so is a name
    with a control character in it (ESC, BEL, a bidi override...): see ``_shown_as_sent``."""
    out: dict[str, InstrumentInfo] = {}
    for p in result.perps:
        if not p.delisted and _shown_as_sent(p.name):
            out[p.name] = InstrumentInfo(
                p.id, p.name, "perp", p.tick_size, p.lot_size, p.min_notional_usd, p.max_leverage, tuple(p.margin_tiers)
            )
    for s in result.spot:
        if _shown_as_sent(s.name):
            out[s.name] = InstrumentInfo(s.id, s.name, "spot", s.tick_size, s.lot_size, s.min_size_in_quote_asset, 1)
    return out


def _shown_as_sent(name: str) -> bool:
    """Whether ``name`` reaches a terminal as it is. Every pane that draws itself shows the selected instrument's
    name, which is also what goes back on the wire: such a name is refused where it enters (no file may name it
    either: ``SYMBOL_RE``), not escaped, as an escaped one would name nothing on the exchange."""
    if printable(name) == name:
        return True
    log.warning("instrument %s left out: its name holds control characters", printable(name, 80))
    return False


def _iso_ms(ms: int) -> str:
    """Milliseconds as the interface's ISO form, ``2026-01-01T00:00:00.000Z``."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def order_from_ws(o: WsOrder, prev: Order) -> Order:
    """An ``orders`` push applied to the open order it is of: what the push carries (price, size, state)
    replaces; what it lacks (trigger, tpsl, grouping, creation time) stays."""
    return msgspec.structs.replace(
        prev, limit_price=o.limit_price, size=o.size, unfilled=o.unfilled, state=o.state, tif=o.tif
    )


def fill_from_ws(f: WsFill) -> Fill:
    """A ``fills`` push as a fills record. The push has no position size or price before the fill, so
    ``start_size``/``start_price`` are 0 until the next poll brings the exchange's record."""
    ts = f.block_timestamp
    return Fill(
        **{name: getattr(f, name) for name in _FILL_COMMON},
        start_size=Decimal(0),
        start_price=Decimal(0),
        notional_value=f.price * f.size,
        block_timestamp=_iso_ms(ts) if isinstance(ts, int) else ts,
    )


_FILL_COMMON = tuple(n for n in WsFill.__struct_fields__ if n in Fill.__struct_fields__ and n != "block_timestamp")


def _fill_key(f: Fill) -> tuple[int, int, str]:
    return (f.trade_id, f.order_id, f.side)


class TapeMark(msgspec.Struct, frozen=True):
    """A line across the trade tape where the socket was lost: the trades above it came after the reconnect."""

    after_trade_id: int  # the newest trade held when the socket fell silent
    at_ms: int  # the exchange's time of the reconnect
    gap_s: float  # how long nothing arrived


class MarketState(msgspec.Struct):
    """Every instrument's ticker, and the selected instrument's book, trades and candles."""

    instruments: dict[str, InstrumentInfo]  # by name, perps then spot
    tickers: dict[str, Ticker]  # by symbol
    selected: str
    book: BookState
    trades: collections.deque[Trade] = msgspec.field(default_factory=lambda: collections.deque(maxlen=TRADES_KEPT))
    chart_type: str = "ltp"  # "mark" | "index" | "ltp"
    resolution: str = "1"  # "1","5","15","30","60","240","1D","1W"
    candles: list[Candle] = msgspec.field(default_factory=list)  # oldest first
    chart_loading: bool = False  # another chart was asked for and its history has not come yet
    tape_marks: collections.deque[TapeMark] = msgspec.field(
        default_factory=lambda: collections.deque(maxlen=TAPE_MARKS_KEPT)
    )
    funding_period_s: int = DEFAULT_PERIOD_S  # how often funding is paid (from the account's funding records)

    def add_trades(self, trades: Iterable[Trade]) -> None:
        """Pushed trades, oldest first in the frame: each becomes the newest."""
        self.trades.extendleft(trades)

    def merge_trades(self, newest_first: list[Trade]) -> None:
        """Trades from /info merged with pushed ones already held, newest first, no duplicates."""
        seen = {t.trade_id for t in newest_first}
        merged = [t for t in self.trades if t.trade_id not in seen] + newest_first
        merged.sort(key=lambda t: t.trade_id, reverse=True)
        self.trades = collections.deque(merged[:TRADES_KEPT], maxlen=TRADES_KEPT)

    def apply_candle(self, c: Candle) -> None:
        """The live candle: replaces the one with the same ``time``, else goes in time order."""
        candles = self.candles
        if not candles or c.time > candles[-1].time:
            candles.append(c)
            if len(candles) > CANDLES_KEPT:
                del candles[: len(candles) - CANDLES_KEPT]
        elif c.time == candles[-1].time:
            candles[-1] = c
        else:
            i = bisect.bisect_left(candles, c.time, key=lambda x: x.time)
            if i < len(candles) and candles[i].time == c.time:
                candles[i] = c
            else:
                candles.insert(i, c)

    def merge_candles(self, history: list[Candle]) -> None:
        """Candles from /info (all history, or a recent tail while polling): they win for their times;
        held candles at other times stay."""
        merged = {c.time: c for c in self.candles}
        merged.update((c.time, c) for c in history)
        self.candles = [merged[t] for t in sorted(merged)][-CANDLES_KEPT:]


class AccountState(msgspec.Struct):
    """The account's summary, positions, open orders and recent fills (``address`` None: no account)."""

    address: str | None
    summary: AccountSummary | None = None
    positions: list[Position] = msgspec.field(default_factory=list)
    open_orders: list[Order] = msgspec.field(default_factory=list)  # newest first
    fills: collections.deque[Fill] = msgspec.field(default_factory=lambda: collections.deque(maxlen=FILLS_KEPT))
    funding: list[FundingRecord] = msgspec.field(default_factory=list)  # newest first, at most FUNDING_KEPT
    loaded: bool = False  # one full poll (or push of every kind) has arrived
    events: EventLog = msgspec.field(default_factory=EventLog)  # what happened to the account, to announce
    # monotonic time of the last push per order id / position key, and what it said (None: gone)
    _order_pushes: dict[int, tuple[float, Order | None]] = msgspec.field(default_factory=dict)
    _position_pushes: dict[tuple[int, str], tuple[float, Position | None]] = msgspec.field(default_factory=dict)
    _summary_pushed: float = float("-inf")
    _ended: collections.OrderedDict[int, str] = msgspec.field(default_factory=collections.OrderedDict)
    # cloid -> when the socket first showed an order or fill of it (the feed's clock): the status bar's latency
    socket_seen: collections.OrderedDict[str, float] = msgspec.field(default_factory=collections.OrderedDict)

    def sighted(self, cloid: str, now: float) -> None:
        """The socket showed an order or fill with ``cloid`` (the first time is kept, a few hundred at most)."""
        if cloid and cloid not in self.socket_seen:
            self.socket_seen[cloid] = now
            if len(self.socket_seen) > SIGHTINGS_KEPT:
                self.socket_seen.popitem(last=False)

    # ---- pushes -----------------------------------------------------------------------------------

    def apply_order(self, o: WsOrder, now: float) -> bool:
        """An ``orders`` push: update or (filled, cancelled) remove the order. False when the push is of an
        open order not held: the push lacks its type and trigger, so no row is invented from it (a stop would
        read as a limit at 0); the caller polls for the exchange's record instead."""
        orders = self.open_orders
        i = next((k for k, x in enumerate(orders) if x.order_id == o.order_id), None)
        rec: Order | None = None
        if o.state in OPEN_STATES:
            if i is None:
                return False
            rec = order_from_ws(o, orders[i])
            orders[i] = rec
        else:
            if i is not None:
                del orders[i]
            self._ended[o.order_id] = o.state
            if len(self._ended) > ENDED_KEPT:
                self._ended.popitem(last=False)
        self._order_pushes[o.order_id] = (now, rec)
        return True

    def rested(self, order: Order, now: float) -> bool:
        """The exchange accepted ``order``, which rests (a trigger order): its row comes now, before the feed
        confirms it. False when already held, or already ended (a push was faster)."""
        if order.order_id in self._ended or self.order(order.order_id) is not None:
            return False
        self.open_orders = sorted([*self.open_orders, order], key=lambda x: x.order_id, reverse=True)
        self._order_pushes[order.order_id] = (now, order)
        return True

    def cancelled(self, order_ids: Iterable[int], now: float) -> bool:
        """The exchange accepted cancelling ``order_ids``: their rows leave now, before the feed confirms it, and a
        poll sent before ``now`` cannot bring them back. True when a row left."""
        gone = set(order_ids)
        kept = [o for o in self.open_orders if o.order_id not in gone]
        left = len(kept) != len(self.open_orders)
        self.open_orders = kept
        for oid in gone:
            self._order_pushes[oid] = (now, None)
            self._ended.setdefault(oid, "cancelled")
        while len(self._ended) > ENDED_KEPT:
            self._ended.popitem(last=False)
        return left

    def order(self, order_id: int) -> Order | None:
        """The open order ``order_id``, if held."""
        return next((o for o in self.open_orders if o.order_id == order_id), None)

    def order_status(self, order_id: int) -> OrderStatus | None:
        """(state, unfilled) of an order: while open as held, once ended as pushed; None when unknown."""
        held = self.order(order_id)
        if held is not None:
            return held.state, held.unfilled
        ended = self._ended.get(order_id)
        return (ended, Decimal(0)) if ended is not None else None

    def apply_position(self, p: Position, now: float) -> None:
        """A ``position`` push: replace the position of that instrument and side; size 0 removes it."""
        key = (p.instrument_id, p.position_side)
        kept = [x for x in self.positions if (x.instrument_id, x.position_side) != key]
        if p.size != 0:
            kept.append(p)
        self.positions = kept
        self._position_pushes[key] = (now, p if p.size != 0 else None)

    def apply_fill(self, f: WsFill) -> bool:
        """A ``fills`` push; False when the fill is already held."""
        rec = fill_from_ws(f)
        if any(_fill_key(x) == _fill_key(rec) for x in self.fills):
            return False
        self.fills.appendleft(rec)
        return True

    def apply_summary(self, s: AccountSummary, now: float) -> None:
        self.summary = s
        self._summary_pushed = now

    # ---- polls: ``since`` is the monotonic time the poll was sent -----------------------------------

    def reconcile_orders(self, polled: list[Order], since: float) -> None:
        """Take the polled open orders, except those pushed after the poll was sent (the push is newer)."""
        by_id = {o.order_id: o for o in polled if o.state in OPEN_STATES}
        for oid, (at, rec) in list(self._order_pushes.items()):
            if at < since:
                del self._order_pushes[oid]  # the poll has seen it
            elif rec is None:
                by_id.pop(oid, None)
            else:
                by_id[oid] = rec
        self.open_orders = sorted(by_id.values(), key=lambda x: x.order_id, reverse=True)

    def reconcile_positions(self, polled: list[Position], since: float) -> None:
        """Take the polled positions, except those pushed after the poll was sent."""
        by_key = {(p.instrument_id, p.position_side): p for p in polled if p.size != 0}
        for key, (at, rec) in list(self._position_pushes.items()):
            if at < since:
                del self._position_pushes[key]
            elif rec is None:
                by_key.pop(key, None)
            else:
                by_key[key] = rec
        self.positions = list(by_key.values())

    def reconcile_summary(self, polled: AccountSummary, since: float) -> bool:
        """Take the polled summary unless a push arrived after the poll was sent; True if taken."""
        if self._summary_pushed >= since:
            return False
        self.summary = polled
        return True

    def merge_fills(self, newest_first: list[Fill]) -> None:
        """Fills from /info (the exchange's full records) plus pushed ones the poll did not see yet."""
        seen = {_fill_key(f) for f in newest_first}
        merged = [f for f in self.fills if _fill_key(f) not in seen] + newest_first
        merged.sort(key=lambda f: f.trade_id, reverse=True)
        self.fills = collections.deque(merged[:FILLS_KEPT], maxlen=FILLS_KEPT)

    def merge_funding(self, records: Iterable[FundingRecord]) -> bool:
        """Funding records (polled or pushed) with those held, newest first, each once; True if any was new."""
        held = {(r.instrument_id, to_datetime(r.timestamp)): r for r in self.funding}
        before = len(held)
        held.update(((r.instrument_id, to_datetime(r.timestamp)), r) for r in records)
        self.funding = [held[k] for k in sorted(held, key=lambda k: k[1], reverse=True)][:FUNDING_KEPT]
        return len(held) != before


class FeedStatus(msgspec.Struct):
    """Figures for the status bar."""

    connection: str = "connecting"  # "connecting" | "live" | "stale" | "reconnecting" | "polling" | "closed"
    updated: dict[str, float] = msgspec.field(default_factory=dict)  # topic -> monotonic time of its last data
    rate: GovernorStatus | None = None
    rate_at: float = 0.0  # monotonic time ``rate`` was read: its waits count down from there
    clock_drift_ms: int | None = None  # server time - local time
    last_error: str | None = None
    error_source: str | None = None  # what ``last_error`` came from: it clears when that succeeds again
    reconnects: int = 0
    errors: int = 0  # every error counted in last_error, bad frames included
    bad_frames: int = 0  # frames or records that did not decode
    resyncs: int = 0  # order-book reloads from /info
    subscriptions: int = 0  # WebSocket subscriptions held (kept across reconnects by the client)
    # pushes received, by channel
    messages: collections.Counter[str] = msgspec.field(default_factory=collections.Counter)
    paper: PaperStatus | None = None  # the exchange mirrors another (paper trading): what it last said of it


class FeedState(msgspec.Struct):
    market: MarketState
    account: AccountState
    status: FeedStatus
