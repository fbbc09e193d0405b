"""An order's round trip as the trader lives it: signed, acknowledged by the exchange, then seen on the socket
(its order or fill pushed, matched by cloid). ``Latency`` keeps the last order's times and the session's, for the
status bar; the times are one monotonic clock's (the feed's), in seconds."""

from __future__ import annotations

import collections
import statistics
from collections.abc import Callable, Mapping, Sequence

import msgspec

__all__ = ["Latency", "OrderTiming"]

KEPT = 1000  # round trips kept for the session's median


class OrderTiming(msgspec.Struct):
    """One submission: its cloids, when it was signed, acknowledged and first seen on the socket."""

    cloids: tuple[str, ...]
    signed: float
    acked: float | None = None
    seen: float | None = None


class Latency:
    """The last order's sign -> acknowledgement -> socket times and the session's median round trip."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.last: OrderTiming | None = None
        self._trips: collections.deque[float] = collections.deque(maxlen=KEPT)  # sign -> seen, in seconds
        self._pending: list[OrderTiming] = []  # acknowledged, not yet seen on the socket

    def start(self, cloids: Sequence[str]) -> OrderTiming:
        """A submission of ``cloids`` about to be signed."""
        return OrderTiming(tuple(c for c in cloids if c), self.clock())

    def answered(self, timing: OrderTiming) -> None:
        """The exchange acknowledged ``timing``'s submission: it is now the last order."""
        timing.acked = self.clock()
        self.last = timing
        self._pending = [*self._pending[-20:], timing]

    def observe(self, seen: Mapping[str, float]) -> None:
        """Match the acknowledged submissions with ``seen`` (cloid -> when the socket first showed it)."""
        still = []
        for timing in self._pending:
            times = [seen[c] for c in timing.cloids if c in seen]
            if times:
                timing.seen = min(times)
                self._trips.append(max(0.0, timing.seen - timing.signed))
            else:
                still.append(timing)
        self._pending = still

    @property
    def median_ms(self) -> int | None:
        """The session's median sign -> socket time; None before any."""
        return round(statistics.median(self._trips) * 1000) if self._trips else None

    def words(self) -> str | None:
        """'order 12→31 ms · median 30' (sign → ack → socket, ms from the signing); None before any order."""
        last = self.last
        if last is None or last.acked is None:
            return None
        ack = f"{round((last.acked - last.signed) * 1000)}"
        ws = "…" if last.seen is None else f"{round((last.seen - last.signed) * 1000)}"
        median = self.median_ms
        return f"order {ack}→{ws} ms" + (f" · median {median}" if median is not None else "")
