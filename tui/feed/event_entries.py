"""The event log's entries: what the log screen lists and the log file keeps, one line per event.

An entry is a time, a kind and a text. Fills are entered one per order: a later piece of an order already
entered replaces its entry with the pieces summed (size, average price, fees) and moves it to the newest place.
Every other event is an entry of its own. ``line`` is the text form the file keeps:
``2026-11-26T19:05:01.123Z fill Bought 0.0500 BTC-PERP at avg 100,123.4 · 3 pieces · taker · fee 1.25``.
Nothing here imports Textual.
"""

from __future__ import annotations

import collections
from datetime import UTC, datetime
from decimal import Decimal

import msgspec

from tui.api.decimals import decimal_places

__all__ = ["ENTRIES_KEPT", "LOG_KINDS", "EntryBook", "LogEntry", "OrderFills", "iso_ms"]

ENTRIES_KEPT = 500
ORDERS_SUMMED = 200  # orders whose pieces are summed into one entry; an older order's late piece is a new entry
# what the log holds: the account's events, and what the dashboard and the connection went through
LOG_KINDS = (
    "fill", "trigger", "cancel", "liquidation", "funding", "warning", "alert", "twap", "trail", "chase", "oco",
    "refusal", "disconnect", "reconnect", "protection",
)  # fmt: skip
MAX_TEXT = 400  # an entry's text is cut here: one line of a screen, one line of the file
_ZERO = Decimal(0)


def iso_ms(ms: int) -> str:
    """Milliseconds since the epoch as ISO 8601 UTC to the millisecond: 2026-11-26T19:05:01.123Z."""
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    except (ValueError, OverflowError, OSError):
        return "0000-00-00T00:00:00.000Z"


def one_line(text: str) -> str:
    """``text`` as one printable line of at most ``MAX_TEXT`` characters (control characters become spaces)."""
    clean = "".join(c if c.isprintable() else " " for c in text)
    return clean if len(clean) <= MAX_TEXT else clean[: MAX_TEXT - 1] + "…"


class LogEntry(msgspec.Struct, frozen=True):
    """One line of the log. ``seq`` orders entries as they came (a fill entry summed again takes a new one)."""

    seq: int
    at_ms: int
    kind: str
    text: str

    def line(self) -> str:
        return f"{iso_ms(self.at_ms)} {self.kind} {self.text}"


class OrderFills(msgspec.Struct):
    """The pieces of one order's fills met so far, summed."""

    instrument: str
    side: str
    tick: Decimal | None
    lot: Decimal | None
    money_places: int
    pieces: int = 0
    size: Decimal = _ZERO
    notional: Decimal = _ZERO
    fee: Decimal = _ZERO
    makers: int = 0

    def add(self, size: Decimal, price: Decimal, fee: Decimal, maker: bool) -> None:
        self.pieces += 1
        self.size += size
        self.notional += size * price
        self.fee += fee
        self.makers += maker

    def text(self) -> str:
        verb = "Bought" if self.side == "b" else "Sold"
        avg = self.notional / self.size if self.size else _ZERO
        size = f"{self.size:,.{decimal_places(self.lot, 4)}f}"
        price = f"{avg:,.{decimal_places(self.tick, 2)}f}"
        m = self.money_places
        fee = f"fee {self.fee:,.{m}f}" if self.fee >= 0 else f"rebate {-self.fee:,.{m}f}"
        if self.pieces == 1:
            return f"{verb} {size} {self.instrument} at {price} · {'maker' if self.makers else 'taker'} · {fee}"
        who = "maker" if self.makers == self.pieces else "taker" if not self.makers else f"{self.makers} maker"
        return f"{verb} {size} {self.instrument} at avg {price} · {self.pieces} pieces · {who} · {fee}"


class EntryBook:
    """The log's entries, oldest first, at most ``kept``; how many are unread; which are not yet written."""

    def __init__(self, kept: int = ENTRIES_KEPT) -> None:
        self._kept = kept
        self._entries: collections.OrderedDict[object, LogEntry] = collections.OrderedDict()
        self._orders: collections.OrderedDict[int, OrderFills] = collections.OrderedDict()
        self._seq = 0
        self.read_seq = 0  # entries up to this seq have been seen on the log screen
        self._unwritten: dict[object, LogEntry] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def entries(self) -> list[LogEntry]:
        return list(self._entries.values())

    @property
    def unread(self) -> int:
        return sum(1 for e in self._entries.values() if e.seq > self.read_seq)

    def mark_read(self) -> None:
        self.read_seq = self._seq

    def put(self, key: object, at_ms: int, kind: str, text: str) -> LogEntry:
        """Enter (or, for a key already entered, replace and move to the newest place) one entry."""
        self._seq += 1
        entry = LogEntry(self._seq, at_ms, kind, one_line(text))
        self._entries.pop(key, None)
        self._entries[key] = entry
        while len(self._entries) > self._kept:
            self._entries.popitem(last=False)
        self._unwritten.pop(key, None)  # written once, summed: the file gets the sum of what came meanwhile
        self._unwritten[key] = entry
        return entry

    def add(self, at_ms: int, kind: str, text: str) -> LogEntry:
        return self.put(("seq", self._seq + 1), at_ms, kind, text)

    def fill(
        self,
        order_id: int,
        at_ms: int,
        sums: tuple[str, str, Decimal | None, Decimal | None, int],
        piece: tuple[Decimal, Decimal, Decimal, bool],
    ) -> LogEntry:
        """A piece of order ``order_id`` (``sums``: instrument, side, tick, lot, money places; ``piece``: size,
        price, fee, maker): the order's one entry, its pieces summed. An order id of 0 is a fill of its own."""
        held = self._orders.get(order_id) if order_id else None
        if held is None:
            held = OrderFills(*sums)
            if order_id:
                self._orders[order_id] = held
                if len(self._orders) > ORDERS_SUMMED:
                    self._orders.popitem(last=False)
        held.add(*piece)
        key: object = ("order", order_id) if order_id else ("seq", self._seq + 1)
        return self.put(key, at_ms, "fill", held.text())

    def take_unwritten(self) -> list[LogEntry]:
        """The entries made or changed since the last call, in the order they came: for the file."""
        out = sorted(self._unwritten.values(), key=lambda e: e.seq)
        self._unwritten.clear()
        return out
