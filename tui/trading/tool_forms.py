"""What the chase and OCO forms hold, read into a runner's order: every field parsed in the order form's grammar
and the result checked as the order form checks an order (``validate``: tick, lot, notional, margin, reduce-only,
trigger side), so a bad field is a ``FieldError`` on that field and nothing is started. And which tool placed an
open order, told by its client order id (``tool_of``)."""

from __future__ import annotations

import re
from decimal import Decimal

import msgspec

from .chase import ChaseSpec, chase_target
from .grammar import FieldError
from .orders import OrderContext, OrderInput, OrderPlan, Side, as_side, fmt_decimal, validate
from .outcomes import checked

__all__ = ["chase_from_form", "oco_from_form", "oco_stop", "oco_take_profit", "tool_of"]

_CHASE = re.compile(r"ch\d+x\d+-\d+")
_OCO = re.compile(r"oc\d+x\d+-([ts])\d+")
_TRAIL = re.compile(r"tr\d+x\d+-\d+")


def tool_of(cloid: str) -> str | None:
    """What an open order is to xtui's runners, by its cloid: "chase", "OCO TP", "OCO stop", "trailing stop"; None:
    none of them."""
    if _CHASE.fullmatch(cloid):
        return "chase"
    if _TRAIL.fullmatch(cloid):
        return "trailing stop"
    if m := _OCO.fullmatch(cloid):
        return "OCO TP" if m.group(1) == "t" else "OCO stop"
    return None


def chase_from_form(values: dict[str, str], ctx: OrderContext) -> tuple[ChaseSpec, OrderPlan]:
    """The chase a form describes (side, size, limit), and its first order as the touch prices it now."""
    side = as_side(values.get("side", "").strip().lower())
    if side is None:
        raise FieldError("side", "buy or sell")
    limit: Decimal | None = None
    if values.get("limit", "").strip():
        probe = validate(OrderInput(side=side, kind="limit", price=values["limit"].strip(), size="1"), ctx)
        if "price" in probe.errors:
            raise FieldError("limit", probe.errors["price"].replace("price", "limit", 1))
        limit = Decimal(values["limit"].strip())
    spec = ChaseSpec(ctx.symbol, side, Decimal(0), limit)
    touch = chase_target(spec, ctx)
    if touch is None:
        raise FieldError("size", f"no best {'bid' if side == 'buy' else 'ask'} to chase: the book is empty")
    form = OrderInput(side=side, kind="limit", price=format(touch, "f"), size=values.get("size", ""), post_only=True)
    plan = checked(validate(form, ctx), ("size", "side", "limit"))
    return msgspec.structs.replace(spec, size=plan.size), plan


def oco_from_form(values: dict[str, str], ctx: OrderContext) -> tuple[OrderPlan, OrderPlan]:
    """The take-profit limit and the stop (market, bounded) that close ``size`` of the position on ``ctx``: both
    reduce-only, on the side that closes it."""
    return oco_take_profit(values, ctx), oco_stop(values, ctx)


def _oco_side(ctx: OrderContext) -> Side:
    if ctx.kind != "perp":
        raise FieldError("size", "OCO closes a perp position: this is a spot instrument")
    if not ctx.position:
        raise FieldError("size", f"OCO closes a position: there is none on {ctx.symbol}")
    return "sell" if ctx.position > 0 else "buy"


def _oco_size(values: dict[str, str], ctx: OrderContext) -> str:
    return values.get("size", "").strip() or format(abs(ctx.position), "f")


def oco_take_profit(values: dict[str, str], ctx: OrderContext) -> OrderPlan:
    """The OCO's take-profit alone (a reduce-only limit beyond the mark), or a ``FieldError`` on size/take_profit:
    what the form's preview prices before the stop is typed."""
    side = _oco_side(ctx)
    tp_form = OrderInput(
        side=side, kind="limit", price=values.get("take_profit", "").strip(), size=_oco_size(values, ctx)
    )
    tp = checked(validate(msgspec.structs.replace(tp_form, reduce_only=True), ctx), ("take_profit", "size"))
    if tp.size > abs(ctx.position):
        raise FieldError("size", f"more than the position ({fmt_decimal(abs(ctx.position))})")
    if ctx.mark is not None and (tp.price <= ctx.mark if side == "sell" else tp.price >= ctx.mark):
        where = "above" if side == "sell" else "below"
        raise FieldError("take_profit", f"a take-profit of a {'long' if side == 'sell' else 'short'} is {where} "
                         f"the mark {fmt_decimal(ctx.mark)}")  # fmt: skip
    return tp


def oco_stop(values: dict[str, str], ctx: OrderContext) -> OrderPlan:
    """The OCO's stop alone (a reduce-only stop market, bounded by the slippage limit from its trigger), or a
    ``FieldError`` on size/stop."""
    side = _oco_side(ctx)
    stop_form = OrderInput(side=side, kind="stop", trigger=values.get("stop", "").strip(), size=_oco_size(values, ctx),
                           reduce_only=True)  # fmt: skip
    stop = checked(validate(stop_form, ctx), ("stop", "size"))  # its trigger's faults land on "stop"
    if stop.size > abs(ctx.position):
        raise FieldError("size", f"more than the position ({fmt_decimal(abs(ctx.position))})")
    return stop
