"""The price ladder's arithmetic, without Textual: a fixed price axis and what each of its levels holds.

The axis is a column of prices ``step`` apart (the tick times the book's grouping), from ``top`` down. It stays
where it is as the market moves, so a level is always on the same line; it moves only when recentred on the mid,
or when the cursor is taken past its edge. Levels bucket as the book groups them: a bid at 100.07 shows on the
100.0 level of a 0.1 step (floor), an ask on the 100.1 level (ceiling), so each side reads as it would fill.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

import msgspec

from tui.api.models import Order, Trade

from .orders import OrderContext, OrderInput, Side, Validation, validate

__all__ = ["LadderAxis", "LadderLevel", "bucket", "ladder_levels", "ladder_order", "ladder_size", "orders_at"]

MAX_DEPTH = 5_000  # book levels read per side at most, however far the axis is from the best prices


def bucket(price: Decimal, step: Decimal, side: str) -> Decimal:
    """The level of ``price`` on an axis ``step`` apart: bids (``b``/``bids``/buy) floor, asks ceil."""
    rounding = ROUND_FLOOR if side in ("b", "bids", "buy") else ROUND_CEILING
    return (price / step).to_integral_value(rounding) * step


class LadderAxis(msgspec.Struct):
    """``rows`` prices ``step`` apart from ``top`` down."""

    top: Decimal
    step: Decimal
    rows: int

    @classmethod
    def centred(cls, mid: Decimal, step: Decimal, rows: int) -> LadderAxis:
        """An axis of ``rows`` levels with ``mid``'s level in the middle row."""
        if step <= 0 or rows < 1:
            raise ValueError("a ladder needs a positive step and at least one row")
        return cls(bucket(mid, step, "bids") + (rows // 2) * step, step, rows)

    def price(self, row: int) -> Decimal:
        return self.top - row * self.step

    @property
    def bottom(self) -> Decimal:
        return self.price(self.rows - 1)

    def row_of(self, price: Decimal) -> int | None:
        """The row of the level ``price`` (already on the axis's grid), or None when it is off the axis."""
        row = (self.top - price) / self.step
        if row != row.to_integral_value() or not 0 <= row < self.rows:
            return None
        return int(row)

    def prices(self) -> list[Decimal]:
        return [self.price(i) for i in range(self.rows)]

    def scrolled_to(self, price: Decimal) -> LadderAxis:
        """The axis moved the least to hold the level ``price`` (itself when it does)."""
        if price > self.top:
            return LadderAxis(price, self.step, self.rows)
        if price < self.bottom:
            return LadderAxis(price + (self.rows - 1) * self.step, self.step, self.rows)
        return self

    def depth_for(self, best: Decimal | None) -> int:
        """How many grouped book levels to read from ``best`` to reach past the axis's far end."""
        if best is None:
            return self.rows
        gap: Decimal = max(abs(best - self.top), abs(best - self.bottom)) / self.step
        return min(MAX_DEPTH, int(gap) + 1 + self.rows)


class LadderLevel(msgspec.Struct, frozen=True):
    """One level of the ladder: the book's sizes there, the trader's own resting orders, the last trade."""

    price: Decimal
    bid: Decimal = Decimal(0)
    ask: Decimal = Decimal(0)
    my_bid: Decimal = Decimal(0)  # unfilled size of the trader's buy orders on this level
    my_ask: Decimal = Decimal(0)
    my_count: int = 0  # how many of the trader's orders rest on this level (either side)
    last: Decimal | None = None  # the last trade's size, on the level it traded at


def ladder_levels(
    axis: LadderAxis,
    bids: Iterable[tuple[Decimal, Decimal]],
    asks: Iterable[tuple[Decimal, Decimal]],
    orders: Iterable[Order],
    last: Trade | None,
) -> list[LadderLevel]:
    """Every level of ``axis``, top first, from the book's (already grouped) ``bids`` and ``asks``, the trader's
    open ``orders`` on the instrument (trigger orders without a limit price have no level) and the ``last`` trade."""
    bid_at = dict(bids)
    ask_at = dict(asks)
    mine: dict[Decimal, list[Decimal]] = {}
    for o in orders:
        if o.limit_price > 0 and o.unfilled > 0:
            at = mine.setdefault(bucket(o.limit_price, axis.step, o.side), [Decimal(0), Decimal(0), Decimal(0)])
            at[0 if o.side == "b" else 1] += o.unfilled
            at[2] += 1
    traded = bucket(last.price, axis.step, "bids") if last is not None else None
    out = []
    for price in axis.prices():
        my_bid, my_ask, count = mine.get(price, (Decimal(0), Decimal(0), Decimal(0)))
        out.append(
            LadderLevel(
                price,
                bid_at.get(price, Decimal(0)),
                ask_at.get(price, Decimal(0)),
                my_bid,
                my_ask,
                int(count),
                last.size if last is not None and price == traded else None,
            )
        )
    return out


def orders_at(orders: Iterable[Order], symbol: str, price: Decimal, step: Decimal) -> list[Order]:
    """The trader's open orders on ``symbol`` resting on the level ``price`` of an axis ``step`` apart."""
    return [
        o
        for o in orders
        if o.instrument == symbol and o.limit_price > 0 and bucket(o.limit_price, step, o.side) == price
    ]


def ladder_order(side: Side, price: Decimal, size: str, ctx: OrderContext) -> Validation:
    """A GTC limit order at the ladder's ``price`` for ``size`` (in the base asset, as typed): checked exactly as
    the order form checks what it holds, so a ladder order is refused for the same reasons."""
    return validate(OrderInput(side=side, kind="limit", price=format(price, "f"), size=size, size_unit="base"), ctx)


def ladder_size(ctx: OrderContext, notional: Decimal | None) -> Decimal | None:
    """The ladder's size on ``ctx``'s instrument when the trader has set none: ``notional`` USDC at the mid
    (the profile's ``ladder_notional``) rounded down to the lot, never below twice the exchange's minimum order
    value rounded up to the lot (so a level well away from the mid still meets the minimum), which is also the
    size when ``notional`` is None. None while the instrument has no price."""
    bid, ask = ctx.best_bid, ctx.best_ask
    price = (bid + ask) / 2 if bid and ask else ctx.mark or bid or ask
    if not price or ctx.lot <= 0:
        return None
    smallest = max(ctx.lot, (2 * ctx.min_notional / price / ctx.lot).to_integral_value(ROUND_CEILING) * ctx.lot)
    if notional is None:
        return smallest
    return max(smallest, (notional / price / ctx.lot).to_integral_value(ROUND_FLOOR) * ctx.lot)
