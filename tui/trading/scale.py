"""Scale orders: one size spread over ``count`` limit orders between two prices."""

from __future__ import annotations

from decimal import Decimal

import msgspec

from .grammar import FieldError, parse_whole
from .orders import OrderContext, OrderPlan, Side, _floor, _funds_problem, _money, _parse, fmt_decimal

SCALE_MAX = 50  # orders in one scale
SCALE_WEIGHTS = ("flat", "low", "high")  # equal sizes, more size at the low price, more at the high price


class ScalePlan(msgspec.Struct, frozen=True):
    """N limit orders between two prices, sent as one placeOrder and cancelled as a group (``group``)."""

    orders: tuple[OrderPlan, ...]
    group: str  # the client order ids are ``<group>-<n>``

    @property
    def size(self) -> Decimal:
        return sum((o.size for o in self.orders), Decimal(0))

    @property
    def notional(self) -> Decimal:
        return sum((o.notional for o in self.orders), Decimal(0))

    @property
    def average(self) -> Decimal:
        return self.notional / self.size if self.size else Decimal(0)


def scale_prices(near: Decimal, tick: Decimal) -> tuple[Decimal, Decimal]:
    """The prices a scale form starts with: from 1% under ``near`` (floored to the tick) up to ``near`` (on it)."""
    return _floor(near * Decimal("0.99"), tick), _floor(near, tick)


def scale_group_of(cloid: str) -> str | None:
    """The scale group a client order id belongs to (``sc…-<n>``), or None."""
    group, sep, n = cloid.rpartition("-")
    return group if sep and group.startswith("sc") and n.isascii() and n.isdigit() else None


def scale_plan(
    ctx: OrderContext, side: Side, low: str, high: str, count: str, total: str, weight: str, group: str
) -> tuple[ScalePlan | None, dict[str, str]]:
    """``count`` limit orders of ``side`` from ``low`` to ``high`` (both included, on the tick), ``total``
    size split equally or weighted (linearly, 1 to N) toward the low or the high price; each order checked
    against tick, lot and minimum notional, and the whole against the funds, before anything is sent.
    Errors are keyed ``low``, ``high``, ``count``, ``size`` and ``weight``."""
    errors: dict[str, str] = {}
    prices: dict[str, Decimal] = {}
    for name, text in (("low", low), ("high", high)):
        try:
            prices[name] = _parse(text, f"{name} price")
        except ValueError as exc:
            errors[name] = str(exc)
    n = 0
    try:
        n = parse_whole("count", count, lo=2, hi=SCALE_MAX, what="number of orders")
    except FieldError as exc:
        errors["count"] = exc.message
    size = Decimal(0)
    try:
        size = _parse(total, "total size")
    except ValueError as exc:
        errors["size"] = str(exc)
    if weight not in SCALE_WEIGHTS:
        errors["weight"] = f"one of {', '.join(SCALE_WEIGHTS)}"
    if errors:
        return None, errors
    lo, hi = sorted((prices["low"], prices["high"]))
    if lo == hi:
        return None, {"high": "the two prices must differ"}
    step = (hi - lo) / (n - 1)
    levels = [_floor(lo + step * i, ctx.tick) for i in range(n - 1)] + [_floor(hi, ctx.tick)]
    if len(set(levels)) != n:
        return None, {"count": f"{n} orders do not fit between the prices at a {fmt_decimal(ctx.tick)} tick"}
    weights = [1] * n if weight == "flat" else list(range(n, 0, -1)) if weight == "low" else list(range(1, n + 1))
    sizes = [_floor(size * w / sum(weights), ctx.lot) for w in weights]
    sizes[-1 if weight != "low" else 0] += _floor(size - sum(sizes), ctx.lot)  # the remainder to the heaviest end
    orders: list[OrderPlan] = []
    for i, (price, each) in enumerate(zip(levels, sizes, strict=True)):
        if each <= 0:
            return None, {"size": f"{fmt_decimal(size)} over {n} orders leaves an order under one lot"}
        if price * each < ctx.min_notional:
            return None, {"size": f"the order at {fmt_decimal(price)} is worth {_money(price * each)}, "
                                  f"under the minimum {fmt_decimal(ctx.min_notional)} USDC"}  # fmt: skip
        touch = ctx.best_ask if side == "buy" else ctx.best_bid
        if touch is not None and (price >= touch if side == "buy" else price <= touch):
            where = "ask" if side == "buy" else "bid"
            return None, {
                "high" if side == "buy" else "low": f"{fmt_decimal(price)} is through the best {where} "
                f"{fmt_decimal(touch)}: a scale rests in the book, none of it fills at once"
            }
        orders.append(
            OrderPlan(ctx.instrument_id, ctx.symbol, side, "limit", price, each, price, cloid=f"{group}-{i + 1}")
        )
    plan = ScalePlan(tuple(orders), group)
    funds = _funds_problem(side, plan.size, plan.notional, ctx)
    return (None, {"size": funds}) if funds else (plan, {})
