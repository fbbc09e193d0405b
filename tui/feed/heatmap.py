"""The book's depth over time, for the heatmap: a ring of columns, one per sample (a second; five on a slow link),
each the selected instrument's book near the top (``LEVELS_KEPT`` levels a side) and the trades since the last one.

Memory is bounded: at most ``COLUMNS_KEPT`` columns of at most ``LEVELS_KEPT`` levels and ``TRADES_KEPT`` trades
each, held as float arrays (they are for drawing only: nothing is traded from them), ~1.5 MB when full. Another
instrument starts a new history.

``heat_rows`` lays the columns out on a price axis: each cell the size resting in its price band at its time, as a
shade of four, with the trades of that time over it.
"""

from __future__ import annotations

import math
from array import array
from collections import deque
from collections.abc import Sequence
from typing import NamedTuple

from .state import MarketState

__all__ = ["COLUMNS_KEPT", "SHADES", "DepthColumn", "DepthHistory", "HeatCell", "heat_rows"]

COLUMNS_KEPT = 600  # ten minutes of one-second columns
LEVELS_KEPT = 80  # book levels a side in each column
TRADES_KEPT = 32  # trades a column keeps (the largest, when more came in its second)
SHADES = " ░▒▓█"  # no size, then four shades from the least to the most
BUY_TRADE, SELL_TRADE = "▲", "▼"


class DepthColumn(NamedTuple):
    """One sample: when (seconds, the sampler's clock), the book's levels (price, size pairs, flat) and the trades
    since the sample before (price, size, 1.0 for a buy by the taker, 0.0 for a sell; flat)."""

    at_s: float
    bids: array[float]
    asks: array[float]
    trades: array[float]


class DepthHistory:
    """The last ``columns`` samples of one instrument's book, oldest first."""

    def __init__(self, columns: int = COLUMNS_KEPT) -> None:
        self.ring: deque[DepthColumn] = deque(maxlen=columns)
        self.symbol = ""
        self.samples = 0  # counts every sample taken: a view redraws when it moved on
        self._last_trade: int | None = None

    def sample(self, market: MarketState, at_s: float) -> bool:
        """Take a column from ``market`` (its selected instrument's book and trades); False when the book is not
        loaded (or stale: its levels may be wrong) and nothing was taken."""
        book = market.book
        if book.symbol != self.symbol:
            self.ring.clear()
            self.symbol = book.symbol
            self._last_trade = None
        if not book.loaded or book.stale:
            return False
        bids = array("d", [v for level in book.levels("bids", LEVELS_KEPT) for v in map(float, level)])
        asks = array("d", [v for level in book.levels("asks", LEVELS_KEPT) for v in map(float, level)])
        fresh = []
        for trade in market.trades:  # newest first
            if trade.trade_id == self._last_trade or trade.instrument != self.symbol:
                break
            fresh.append(trade)
        if self._last_trade is None:
            fresh = []  # the trades before the first column are not of its second
        if market.trades:
            self._last_trade = market.trades[0].trade_id
        fresh = sorted(fresh, key=lambda t: t.size, reverse=True)[:TRADES_KEPT]
        trades = array("d", [v for t in fresh for v in (float(t.price), float(t.size), float(t.side == "b"))])
        self.ring.append(DepthColumn(at_s, bids, asks, trades))
        self.samples += 1
        return True


class HeatCell(NamedTuple):
    """What a cell shows: ``text`` (a shade or a trade's mark) and whose it is: ``bid``, ``ask``, ``buy``, ``sell``
    (a trade) or ``""`` (nothing)."""

    text: str
    kind: str


EMPTY = HeatCell(" ", "")


def _band(price: float, top: float, step: float) -> int:
    """The row of ``price`` on an axis from ``top`` down, ``step`` a row: row ``r`` holds the prices from
    ``top - r * step`` down to (not including) the next row's."""
    return math.floor((top - price) / step + 1e-9)  # a price on a row's line is that row's, not the one above


def heat_rows(columns: Sequence[DepthColumn], top: float, step: float, rows: int) -> list[list[HeatCell]]:
    """``rows`` rows of one cell per column: the size resting in each row's price band (bids at or under ``top -
    row * step``, down to the next row's price) as a shade of the largest there (its 95th percentile, so that one
    wall does not wash the rest out), bid or ask; trades of that column over it."""
    sizes: list[dict[tuple[int, str], float]] = []
    for column in columns:
        cells: dict[tuple[int, str], float] = {}
        for side, flat in (("bid", column.bids), ("ask", column.asks)):
            for i in range(0, len(flat), 2):
                row = _band(flat[i], top, step)
                if 0 <= row < rows:
                    cells[(row, side)] = cells.get((row, side), 0.0) + flat[i + 1]
        sizes.append(cells)
    every = sorted(v for cells in sizes for v in cells.values() if v > 0)
    scale = every[min(len(every) - 1, int(len(every) * 0.95))] if every else 1.0
    grid = [[EMPTY] * len(columns) for _ in range(rows)]
    for x, (column, cells) in enumerate(zip(columns, sizes, strict=True)):
        for (row, side), size in cells.items():
            shown = grid[row][x]
            if shown.kind and cells.get((row, shown.kind), 0.0) >= size:
                continue  # a band with both sides (a crossed sample, a wide band) shows the larger
            level = min(4, max(1, math.ceil(4 * size / scale)))
            grid[row][x] = HeatCell(SHADES[level], side)
        flat = column.trades
        for i in range(0, len(flat), 3):
            row = _band(flat[i], top, step)
            if 0 <= row < rows:
                buy = flat[i + 2] > 0
                grid[row][x] = HeatCell(BUY_TRADE if buy else SELL_TRADE, "buy" if buy else "sell")
    return grid
