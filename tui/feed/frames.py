"""What the feed does with each pushed payload, and the order-book resync that keeps the book whole.

These handlers are the WebSocket callbacks (and what ``bench_feed`` drives, as ``Feed.frames``). Each decodes
its payload into ``tui.api.models`` records; a payload that does not decode, or holds absurd values (``sanity``:
a price at or below 0, a negative size), is dropped, counted and reported as ``last_error``, never
raised. Book updates must follow each other (``sequence_number`` = last + 1): on a gap the book is
reloaded from /info, and the updates that arrive meanwhile are buffered and replayed on top of it, so
none is lost and none is applied twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from tui.api.models import (
    AccountSummary,
    BookData,
    BookUpdate,
    Candle,
    DecodeError,
    FundingRecord,
    Position,
    Ticker,
    Trade,
    WsFill,
    WsOrder,
    decode,
)

from .book import BookState
from .core import FeedCore
from .funding import period_from
from .sanity import (
    absurd_book,
    absurd_candle,
    absurd_fill,
    absurd_order,
    absurd_position,
    absurd_ticker,
    absurd_trade,
    first_absurd,
)

__all__ = ["BUFFER_LIMIT", "FAST_POLL_S", "RESYNC_DEPTH", "FrameHandlers", "payload_items"]

RESYNC_DEPTH = 100  # levels a side fetched on a resync: more than a pane shows, so deep levels stay known
BUFFER_LIMIT = 10_000  # updates held while a resync is in flight; beyond that, resync again
FAST_POLL_S = 1.0  # poll period while the socket is down, and the wait after a failed resync
_RESYNC_TRIES = 3

T = TypeVar("T")


def payload_items(data: Any) -> list[Any]:
    """A payload that may be one record, a list of them, or ``{"trades": [...]}`` (the PY bots' forms)."""
    if isinstance(data, list):
        return data
    trades = data.get("trades") if isinstance(data, dict) else None
    return trades if isinstance(trades, list) else [data]


class FrameHandlers:
    """The per-channel handlers and the book's resync, on the feed's shared ``FeedCore``.

    Exposed: the ``handle_*`` callbacks, ``resync_book()``, ``took_funding()`` and ``forget_resync()``."""

    def __init__(self, core: FeedCore) -> None:
        self._core = core
        self._state = core.state
        self._buffer: list[BookData] | None = None  # not None exactly while a resync is in flight
        self._buffer_overflow = False
        self._resync_task: asyncio.Task[None] | None = None
        self._resync_after = float("-inf")  # after a failed resync, gaps wait for the poll loop until then
        self._clock_fed = 0  # the exchange's time last given to the client's clock

    def forget_resync(self) -> None:
        """Another instrument is shown: the resync in flight sees the new generation and stops."""
        self._buffer, self._resync_task = None, None

    def _observe_server_time(self, ts_ms: int, sent_s: float | None = None) -> None:
        """The exchange's time on a frame (``sent_s`` None) or on the answer to a request sent at ``sent_s``: the
        client signs nonces and expiry times on the exchange's clock it measures this way, and the status bar's
        drift is measured from it (fresh stamps only: ``DriftMeter``)."""
        if abs(ts_ms - self._clock_fed) >= 100:  # a burst of frames within 100 ms tells the clock nothing more
            self._clock_fed = ts_ms
            self._core.client.server_clock.observe(ts_ms)
        self._core.drift.stamped(ts_ms, sent_s)

    def _records(
        self, channel: str, data: Any, kind: type[list[T]], absurd: Callable[[T], str | None] | None = None
    ) -> list[T] | None:
        """The records of a ``channel`` payload as ``kind``; None when they do not decode or one is ``absurd``:
        the payload is dropped and counted as bad data."""
        try:
            records = decode(payload_items(data), kind)
        except DecodeError as exc:
            self._core.bad(channel, exc)
            return None
        if absurd is not None and (why := first_absurd(records, absurd)) is not None:
            self._core.bad(channel, ValueError(why))
            return None
        return records

    # ---- market handlers ------------------------------------------------------------------------

    def handle_book(self, data: Any) -> None:
        """An ``orderbook`` payload: snapshot, or update of absolute level sizes."""
        try:
            upd = decode(data, BookUpdate)
        except DecodeError as exc:
            return self._core.bad("orderbook", exc)
        book = self._state.market.book
        if upd.instrument_name != book.symbol:
            return None  # a late frame of the instrument shown before
        f = upd.books
        now = self._core.clock()
        self._observe_server_time(f.timestamp)
        try:
            if (why := absurd_book(f)) is not None:
                raise ValueError(why)
            if upd.update_type == "snapshot":
                book.replace(f.bids, f.asks, f.sequence_number, f.timestamp, now)
                self._core.check_ready()
            elif upd.update_type != "update":
                raise ValueError(f"unknown update_type {upd.update_type[:20]!r}")
            elif (buffer := self._buffer) is not None:
                if len(buffer) >= BUFFER_LIMIT:
                    buffer.clear()
                    self._buffer_overflow = True
                buffer.append(f)
                return None
            elif book.loaded and f.sequence_number <= book.sequence:
                return None  # already in the book (a resync got ahead of the socket)
            elif not book.loaded or f.sequence_number != book.sequence + 1:
                return self._gap(f)
            else:
                book.apply(f.bids, f.asks, f.sequence_number, f.timestamp, now)
        except ValueError as exc:
            self._core.bad("orderbook", exc)
            return self._gap(None)
        self._core.touch("book", now)
        return None

    def _gap(self, frame: BookData | None) -> None:
        """The book missed an update (or took a bad one): mark it stale and reload it from /info."""
        book = self._state.market.book
        if book.loaded and not book.stale:
            book.stale = True
            self._core.touch("book", self._core.clock())
        if self._core.clock() < self._resync_after:
            return  # a resync just failed; the poll loop tries again
        self._buffer = [frame] if frame is not None else []
        self._resync_task = self._core.spawn(self._resync(), "resync")

    async def resync_book(self) -> None:
        """Reload the book from /info ``orderbook`` (joins a resync already in flight)."""
        task = self._resync_task
        if task is None or task.done():
            if self._buffer is None:
                self._buffer = []
            task = self._resync_task = self._core.spawn(self._resync(), "resync")
        await asyncio.shield(task)

    async def _resync(self) -> None:
        gen = self._core.market_gen
        try:
            await self._resync_tries()
        finally:  # however it ended (a bug, cancelled), updates must not stay buffered forever
            if gen == self._core.market_gen and self._buffer is not None:
                self._buffer = None
                self._state.market.book.stale = self._state.market.book.loaded

    async def _resync_tries(self) -> None:
        for _ in range(_RESYNC_TRIES):
            book = self._state.market.book
            gen, snapshots, sent = self._core.market_gen, book.snapshots, self._core.clock()
            ob = await self._core.fetch("orderbook", self._core.client.orderbook(book.symbol, RESYNC_DEPTH))
            if gen != self._core.market_gen:
                return  # another instrument was selected meanwhile; its own load is under way
            if ob is None:
                self._buffer = None
                self._resync_after = self._core.clock() + FAST_POLL_S
                book.stale = book.loaded
                return
            now = self._core.clock()
            self._observe_server_time(ob.timestamp, sent)
            self._state.status.resyncs += 1
            try:
                if (why := absurd_book(ob)) is not None:
                    raise ValueError(why)
                # a socket snapshot that arrived meanwhile and is newer than this answer wins
                if book.snapshots == snapshots or ob.sequence_number >= book.sequence:
                    book.replace(ob.bids, ob.asks, ob.sequence_number, ob.timestamp, now)
                frames, self._buffer = self._buffer or [], None
                left = self._replay(book, frames, now)
            except ValueError as exc:
                self._core.bad("orderbook", exc)
                left = []
            overflow, self._buffer_overflow = self._buffer_overflow, False
            self._core.touch("book", now)
            self._core.check_ready()
            if left is None and not overflow:
                return
            self._buffer = list(left or [])
        book.stale = True
        self._buffer = None
        self._resync_after = self._core.clock() + FAST_POLL_S

    @staticmethod
    def _replay(book: BookState, frames: list[BookData], now: float) -> list[BookData] | None:
        """Apply updates buffered during a resync; the frames from a gap on, or None when all applied."""
        for i, f in enumerate(frames):
            if f.sequence_number <= book.sequence:
                continue
            if f.sequence_number != book.sequence + 1:
                return frames[i:]
            book.apply(f.bids, f.asks, f.sequence_number, f.timestamp, now)
        return None

    def handle_trades(self, data: Any) -> None:
        """A ``trades`` payload (oldest first): the selected instrument's become the newest trades."""
        if (trades := self._records("trades", data, list[Trade], absurd_trade)) is None:
            return None
        market = self._state.market
        mine = [t for t in trades if t.instrument == market.selected]
        if mine:
            market.add_trades(mine)
            self._core.touch("trades", self._core.clock())
        return None

    def handle_ticker(self, data: Any) -> None:
        """A ``ticker`` payload of any instrument (the Markets pane lists them all)."""
        if (tickers := self._records("ticker", data, list[Ticker], absurd_ticker)) is None:
            return None
        for t in tickers:
            self._state.market.tickers[t.symbol] = t
        self._core.touch("markets", self._core.clock())
        return None

    def handle_chart(self, data: Any) -> None:
        """A ``chart`` payload: the live candle of the selected chart (replaces or appends by ``time``)."""
        if (candles := self._records("chart", data, list[Candle], absurd_candle)) is None:
            return None
        for c in candles:
            self._state.market.apply_candle(c)
        self._core.touch("chart", self._core.clock())
        return None

    # ---- account handlers -----------------------------------------------------------------------

    def handle_orders(self, data: Any) -> None:
        """An ``orders`` push: an order placed, amended, triggered, filled or cancelled (the last two by the
        exchange, and a trigger firing, are account events)."""
        if (orders := self._records("orders", data, list[WsOrder], absurd_order)) is None:
            return None
        now = self._core.clock()
        account, instruments = self._state.account, self._state.market.instruments
        told = unknown = False
        for o in orders:
            account.sighted(o.cloid, now)
            prev = account.order(o.order_id)
            unknown = not account.apply_order(o, now) or unknown
            told = account.events.order(o, prev, instruments.get(o.instrument), now) is not None or told
        self._core.touch("orders", now)
        if told:
            self._core.touch("events", now)
        if unknown:
            self._core.wake.set()  # a push named an order not held: poll the account now
        return None

    def handle_position(self, data: Any) -> None:
        """A ``position`` push (the positions record of one instrument)."""
        if (positions := self._records("position", data, list[Position], absurd_position)) is None:
            return None
        now = self._core.clock()
        for p in positions:
            self._state.account.apply_position(p, now)
        self._core.touch("positions", now)
        return None

    def handle_fills(self, data: Any) -> None:
        """A ``fills`` push: announced as ``fills`` and ``orders`` (fills show with the orders)."""
        if (fills := self._records("fills", data, list[WsFill], absurd_fill)) is None:
            return None
        now = self._core.clock()
        account, instruments = self._state.account, self._state.market.instruments
        for f in fills:
            account.sighted(f.cloid, now)
        if any([account.apply_fill(f) for f in fills]):
            self._core.touch("fills", now)
            self._core.touch("orders", now)
        if any([account.events.fill(f, instruments.get(f.instrument)) is not None for f in fills]):
            self._core.touch("events", now)
        return None

    def handle_funding(self, data: Any) -> None:
        """A ``funding_payments`` push: funding paid or received on a position (an account event only)."""
        if (records := self._records("funding_payments", data, list[FundingRecord])) is None:
            return None
        perps = {i.id: i for i in self._state.market.instruments.values() if i.kind == "perp"}
        events = self._state.account.events
        told = False
        for r in records:
            info = perps.get(r.instrument_id)
            told = events.funding(r, info.name if info else f"#{r.instrument_id}", info) is not None or told
        if told:
            self._core.touch("events", self._core.clock())
        self.took_funding(records)
        return None

    def took_funding(self, records: list[FundingRecord]) -> None:
        """Funding records, polled or pushed: the positions' funding paid and the funding period follow them."""
        account, market = self._state.account, self._state.market
        if account.merge_funding(records):
            market.funding_period_s = period_from(account.funding) or market.funding_period_s
            now = self._core.clock()
            self._core.touch("positions", now)
            self._core.touch("markets", now)

    def handle_account_summary(self, data: Any) -> None:
        """An ``account_summary`` push (the whole summary)."""
        try:
            summary = decode(data, AccountSummary)
        except DecodeError as exc:
            return self._core.bad("account_summary", exc)
        now = self._core.clock()
        self._state.account.apply_summary(summary, now)
        self._core.touch("account", now)
        return None
