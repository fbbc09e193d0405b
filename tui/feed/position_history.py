"""Closed positions, rebuilt from the account's fills and funding records.

A position is one span of a perp instrument held on one side, from the fill that opens it (from flat, or the far
side of a flip) to the fill that brings it back to flat (or flips it). Adds and partial closes stay in the span:
``size`` is everything opened in it (which is everything closed, once closed), ``peak`` the largest size held,
``entry`` and ``exit`` the size-weighted averages of its opening and closing fills. So a closed position's

    realized = (exit - entry) x size      (long; the other way round short)

exactly, because it is the closing fills' proceeds less the opening fills' cost. A fill that flips the position is
split at its price: the part up to flat closes the old position, the rest opens the new one, and its fees go to
each pro rata. Funding payments go to the position held on that instrument when they were paid. A position still
open is not closed: it is kept apart with what it has realized so far and the cost basis of what is held.

A history that starts mid-position (the exchange keeps only so much) shows as a fill whose ``start_size`` is not
the size rebuilt so far: what came before is unknown, so that position is left out until it is flat again. Spot
fills (direction ``buy`` / ``sell``) are not positions. Everything is ``Decimal``; nothing is rounded.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from typing import Literal

import msgspec

from tui.api import models as m

__all__ = ["POSITION_COLUMNS", "PositionBook", "PositionRecord", "position_book", "position_rows"]

ZERO = Decimal(0)
SPOT_DIRECTIONS = frozenset({"buy", "sell"})


class PositionRecord(msgspec.Struct):
    """One position: closed (``closed`` set, ``held`` 0) or still open."""

    instrument: str
    side: Literal["long", "short"]
    opened: dt.datetime
    size: Decimal = ZERO  # everything opened in the span (adds included)
    peak: Decimal = ZERO  # the largest size held
    held: Decimal = ZERO  # what is held now (0 once closed)
    opened_value: Decimal = ZERO  # sum of price x size of the opening fills
    closed_size: Decimal = ZERO
    closed_value: Decimal = ZERO  # sum of price x size of the closing fills
    basis: Decimal = ZERO  # cost of what is held: opened value less what the closes released
    realized: Decimal = ZERO  # closing proceeds less the cost they released (long; the other way round short)
    fees: Decimal = ZERO  # exchange and broker fees of its fills (a maker rebate is negative)
    funding: Decimal = ZERO  # funding credited (negative when paid)
    fills: int = 0
    closed: dt.datetime | None = None

    @property
    def entry(self) -> Decimal:
        return self.opened_value / self.size if self.size else ZERO

    @property
    def exit(self) -> Decimal | None:
        return self.closed_value / self.closed_size if self.closed_size else None

    @property
    def net(self) -> Decimal:
        return self.realized - self.fees + self.funding

    @property
    def duration(self) -> dt.timedelta | None:
        return None if self.closed is None else self.closed - self.opened

    @property
    def sign(self) -> int:
        return 1 if self.side == "long" else -1


class PositionBook(msgspec.Struct):
    """Closed positions (newest close first), the ones still open, and what could not be placed."""

    closed: list[PositionRecord] = msgspec.field(default_factory=list)
    open: list[PositionRecord] = msgspec.field(default_factory=list)
    unknown_fills: int = 0  # fills of a position whose start is older than the history read
    unplaced_funding: int = 0  # funding records paid while no rebuilt position was held


def fill_time(fill: m.Fill) -> dt.datetime:
    return _iso(fill.block_timestamp)


def _iso(text: str) -> dt.datetime:
    at = dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    return at if at.tzinfo else at.replace(tzinfo=dt.UTC)


class _Rebuild:
    """Walks one account's perp fills oldest first, one running position per instrument."""

    def __init__(self) -> None:
        self.size: dict[str, Decimal] = {}  # instrument -> signed size rebuilt so far
        self.current: dict[str, PositionRecord] = {}  # instrument -> the position being followed
        self.book = PositionBook()

    def apply(self, f: m.Fill) -> None:
        name, at = f.instrument, fill_time(f)
        signed = f.size if f.side == "b" else -f.size
        start = self.size.get(name, ZERO)
        if f.start_size != start:  # history before this fill is missing: its position cannot be rebuilt
            self.current.pop(name, None)
            start = f.start_size
            self.size[name] = start
        end = start + signed
        self.size[name] = end
        cost = f.fee + f.broker_fee
        pos = self.current.get(name)
        if start and (start > 0) != (signed > 0):  # reduces, closes or flips
            closing = min(abs(signed), abs(start))
            share = cost * closing / f.size
            if pos is None:
                self.book.unknown_fills += 1
            else:
                self._close(pos, closing, f.price, share, at)
            cost -= share
            if end and (end > 0) != (start > 0):  # flipped: the rest opens a new position
                self._open(name, end, f.price, cost, at)
            elif not end:
                self.current.pop(name, None)
            return
        if start and pos is None:  # adding to a position whose start is unknown
            self.book.unknown_fills += 1
            return
        if pos is None:
            self._open(name, signed, f.price, cost, at)
            return
        qty = abs(signed)
        pos.size += qty
        pos.held += qty
        pos.peak = max(pos.peak, pos.held)
        pos.opened_value += qty * f.price
        pos.basis += qty * f.price
        pos.fees += cost
        pos.fills += 1

    def _open(self, name: str, signed: Decimal, price: Decimal, cost: Decimal, at: dt.datetime) -> None:
        qty = abs(signed)
        value = qty * price
        self.current[name] = PositionRecord(
            instrument=name, side="long" if signed > 0 else "short", opened=at, size=qty, peak=qty, held=qty,
            opened_value=value, basis=value, fees=cost, fills=1,
        )  # fmt: skip

    def _close(self, pos: PositionRecord, qty: Decimal, price: Decimal, cost: Decimal, at: dt.datetime) -> None:
        released = pos.basis if qty == pos.held else pos.basis * qty / pos.held
        pos.basis -= released
        pos.held -= qty
        pos.closed_size += qty
        pos.closed_value += qty * price
        pos.realized += (qty * price - released) * pos.sign
        pos.fees += cost
        pos.fills += 1
        if not pos.held:
            pos.closed = at
            pos.basis = ZERO
            # exact: everything opened is closed, so the proceeds less the cost is the whole of it
            pos.realized = (pos.closed_value - pos.opened_value) * pos.sign
            self.book.closed.append(pos)


def position_book(
    fills: Sequence[m.Fill], funding: Sequence[m.FundingRecord] = (), names: dict[int, str] | None = None
) -> PositionBook:
    """The account's positions rebuilt from ``fills`` and ``funding`` (any order; ``names``: funding's instrument
    ids to names)."""
    rebuild = _Rebuild()
    perp = [f for f in fills if f.direction not in SPOT_DIRECTIONS]
    for f in sorted(perp, key=lambda f: (fill_time(f), f.trade_id)):
        rebuild.apply(f)
    book = rebuild.book
    book.open = sorted(rebuild.current.values(), key=lambda p: p.instrument)
    spans: dict[str, list[PositionRecord]] = {}
    for p in [*book.closed, *book.open]:
        spans.setdefault(p.instrument, []).append(p)
    for record in funding:
        name = (names or {}).get(record.instrument_id)
        at = _iso(record.timestamp)
        held = next((p for p in spans.get(name or "", ()) if p.opened <= at and (p.closed is None or at <= p.closed)),
                    None)  # fmt: skip
        if held is None:
            book.unplaced_funding += 1
        else:
            held.funding += record.funding_payment
    book.closed.sort(key=lambda p: p.closed or p.opened, reverse=True)
    return book


POSITION_COLUMNS = [
    "instrument", "side", "size", "peak", "entry", "exit", "realized_pnl", "fees", "funding", "net_pnl",
    "opened", "closed", "duration", "fills",
]  # fmt: skip


def position_rows(records: Sequence[PositionRecord]) -> list[list[str]]:
    """Plain strings for an export: exact decimals (averages to 12 places), ISO times, duration in seconds."""
    return [
        [
            p.instrument,
            p.side,
            _d(p.size),
            _d(p.peak),
            _avg(p.entry),
            _avg(p.exit),
            _d(p.realized),
            _d(p.fees),
            _d(p.funding),
            _d(p.net),
            p.opened.isoformat(),
            p.closed.isoformat() if p.closed else "",
            _seconds(p.duration),
            str(p.fills),
        ]
        for p in records
    ]


def _d(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


def _avg(value: Decimal | None) -> str:
    if value is None:
        return ""
    exponent = value.as_tuple().exponent  # an int for every finite value: a letter for NaN and infinity
    return _d(value.quantize(Decimal("1e-12")) if isinstance(exponent, int) and exponent < -12 else value)


def _seconds(span: dt.timedelta | None) -> str:
    return "" if span is None else _d(Decimal(str(span.total_seconds())))
