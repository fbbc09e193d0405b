"""Runtime state of one instrument: its book, prices, triggers, holders, recent trades and event bookkeeping.

Prices (all ``Decimal``):

- ``index`` is set from outside (``Exchange.set_index_price``, by the synthetic market); it starts at the
  instrument's ``initial_price``.
- ``external_mark``, when set (``Exchange.set_mark_price``, by a mirror of another exchange), is the mark:
  the source's own mark, followed as it is.
- ``last`` is the price of the latest trade (None before the first one).
- ``mark = median(index, mid, last)`` where a missing ``mid`` (one side of the book empty) or ``last``
  is replaced by ``index``. The median of three resists a single thin quote or a stray trade, and it
  follows the book when book and trades agree against a stale index. Like real exchanges, the engine
  recomputes the mark on a schedule, not per trade: at every ``tick`` and on every index update. Margin
  figures therefore move with the mark at tick boundaries, which also keeps order placement cheap.
"""

from __future__ import annotations

from collections import deque
from decimal import Decimal
from typing import TYPE_CHECKING

from .book import OrderBook
from .instruments import PerpSpec, SpotSpec
from .records import Trade
from .values import ZERO

#: The largest order size, in lots (keeps every product well inside Decimal's 28 digits).
MAX_LOTS = Decimal(10) ** 12

if TYPE_CHECKING:
    from .accounts import Account, Order


class Market:
    """One instrument at run time (perp or spot)."""

    __slots__ = (
        "band_down",
        "band_hi",
        "band_lo",
        "band_up",
        "book",
        "delisted",
        "external_mark",
        "funding_rate",
        "holders",
        "id",
        "index",
        "index_ms",
        "is_perp",
        "last",
        "lot",
        "mark",
        "max_size",
        "min_notional",
        "name",
        "notional_total",
        "open_interest",
        "pending_trades",
        "premium_n",
        "premium_sum",
        "seq",
        "spec",
        "tick",
        "trades",
        "triggers",
        "volume_marks",
    )

    def __init__(self, spec: PerpSpec | SpotSpec, trades_kept: int, now_ms: int, band: Decimal) -> None:
        self.spec = spec
        self.id = spec.id
        self.name = spec.name
        self.is_perp = isinstance(spec, PerpSpec)
        self.tick = spec.tick
        self.lot = spec.lot
        self.book = OrderBook()
        self.delisted = spec.delisted if isinstance(spec, PerpSpec) else False
        self.min_notional = spec.min_notional if isinstance(spec, PerpSpec) else spec.min_quote
        self.max_size = spec.lot * MAX_LOTS
        self.index = spec.initial_price
        self.index_ms = now_ms
        self.mark = spec.initial_price
        self.external_mark: Decimal | None = None
        self.band_up = 1 + band
        self.band_down = 1 - band
        self.band_lo = self.band_hi = self.mark
        self.set_mark(spec.initial_price)
        self.last: Decimal | None = None
        self.seq = 0  # orderbook sequence number: +1 per emitted update
        self.triggers: dict[int, Order] = {}  # trigger orders waiting for the mark
        self.holders: set[Account] = set()  # accounts with a non-zero position
        self.open_interest = ZERO  # sum of long sizes
        self.trades: deque[Trade] = deque(maxlen=trades_kept)
        self.pending_trades: list[Trade] = []  # for the next ``trades`` event
        self.premium_sum = ZERO  # premium samples since the last funding settlement
        self.premium_n = 0
        self.notional_total = ZERO  # all notional ever traded
        # hour number -> notional_total when the hour began (recorded by tick; 25 hours kept)
        self.volume_marks: dict[int, Decimal] = {now_ms // 3_600_000: ZERO}
        self.funding_rate = ZERO  # the rate the next settlement would apply (ticker ``funding_rate``)

    @property
    def perp(self) -> PerpSpec:
        """The perp spec (callers check ``is_perp`` first)."""
        assert isinstance(self.spec, PerpSpec)
        return self.spec

    @property
    def spot(self) -> SpotSpec:
        """The spot spec (callers check ``is_perp`` first)."""
        assert isinstance(self.spec, SpotSpec)
        return self.spec

    def set_mark(self, mark: Decimal) -> None:
        """Set the mark and the band limit prices must lie in: mark * (1 -+ band)."""
        self.mark = mark
        self.band_hi = mark * self.band_up
        self.band_lo = mark * self.band_down

    def compute_mark(self) -> Decimal:
        """median(index, mid, last), missing values replaced by the index; the external mark when there is one."""
        if self.external_mark is not None:
            return self.external_mark
        idx = self.index
        mid = self.book.mid()
        a = idx if mid is None else mid
        b = idx if self.last is None else self.last
        # median of three without sorting
        if a > b:
            a, b = b, a
        if idx <= a:
            return a
        if idx >= b:
            return b
        return idx
