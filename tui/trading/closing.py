"""Closing a position (in part or whole) and amending a resting order: the plans the desk sends."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import msgspec

from .orders import (
    TIFS,
    Kind,
    OrderContext,
    OrderInput,
    OrderPlan,
    Side,
    Tif,
    Validation,
    _floor,
    _off_grid,
    _parse,
    fmt_decimal,
    protection_price,
)


def close_part_plan(ctx: OrderContext, amount: str, price: str) -> Validation:
    """Close part or all of the position in ``ctx``: ``amount`` in the base asset or as a percentage
    ("50%"), at ``price`` (a reduce-only GTC limit order) or, when ``price`` is empty, at market bounded by
    ``slippage_pct``. Errors are keyed ``size`` and ``price``."""
    if ctx.kind != "perp" or not ctx.position:
        return Validation(None, {"size": f"no {ctx.symbol} position to close"})
    held = abs(ctx.position)
    side: Side = "sell" if ctx.position > 0 else "buy"
    errors: dict[str, str] = {}
    size = Decimal(0)
    text = amount.strip()
    try:
        if text.endswith("%"):
            pct = _parse(text[:-1], "size (%)")
            if pct > 100:
                raise ValueError("size (%) must be at most 100")
            size = held if pct == 100 else _floor(held * pct / 100, ctx.lot)
            if size <= 0:
                raise ValueError(f"{fmt_decimal(pct)}% of {fmt_decimal(held)} is less than one lot")
        else:
            size = _parse(text, "size")
            if msg := _off_grid(size, ctx.lot, "lot size", "size"):
                raise ValueError(msg)
            if size > held:
                raise ValueError(f"size {fmt_decimal(size)} is more than the {fmt_decimal(held)} held")
    except ValueError as exc:
        errors["size"] = str(exc)
    limit: Decimal | None = None
    if price.strip():
        try:
            limit = _parse(price, "price")
            if msg := _off_grid(limit, ctx.tick, "tick size", "price"):
                raise ValueError(msg)
        except ValueError as exc:
            errors["price"] = str(exc)
    best = (ctx.best_bid if side == "sell" else ctx.best_ask) or ctx.mark
    if limit is None and not errors and best is None:
        errors["price"] = "no price to bound the market order by: type a limit price"
    if errors:
        return Validation(None, errors)
    assert best is not None or limit is not None
    bound = limit if limit is not None else protection_price(side, best or Decimal(0), ctx.slippage_pct, ctx.tick)
    plan = OrderPlan(
        instrument_id=ctx.instrument_id,
        symbol=ctx.symbol,
        side=side,
        kind="limit" if limit is not None else "market",
        price=bound,
        size=size,
        reference_price=limit if limit is not None else best or bound,
        tif="GTC" if limit is not None else "IOC",
        reduce_only=True,
        market=limit is None,
    )
    return Validation(plan)


def amend_input(order: Any, price: str, trigger: str, size: str) -> OrderInput:
    """The order form's input for ``order`` (an open order: ``tui.api.models.Order``) with a new price,
    trigger and size: its side, kind, TIF, flags and client order id kept."""
    kind: Kind = "limit"
    if order.tpsl in ("tp", "sl"):
        kind = "take_profit" if order.tpsl == "tp" else "stop_loss"
    elif order.trigger_px:
        kind = "stop"
    tif: Tif = order.tif if order.tif in TIFS else "GTC"
    return OrderInput(
        side="buy" if order.side == "b" else "sell",
        kind=kind,
        price=price,
        trigger=trigger,
        size=size,
        tif=tif,
        post_only=bool(order.post_only),
        reduce_only=bool(order.reduce_only),
        cloid=order.cloid or "",
    )


def freed_by(order: Any, ctx: OrderContext) -> OrderContext:
    """``ctx`` as it will be once ``order`` (an open order of the same instrument) is cancelled: what it holds back
    counts as available again, so an amend is checked against the funds it will really have. A perp order frees
    its value over the leverage in force (the max leverage while that is not read: the least it can hold), a spot
    buy its value, a spot sell its size; a reduce-only or market trigger order holds nothing back."""
    if order.reduce_only or not order.limit_price or order.instrument_id != ctx.instrument_id:
        return ctx
    value = order.limit_price * order.unfilled
    if ctx.kind == "perp":
        return msgspec.structs.replace(ctx, available=ctx.available + value / (ctx.leverage or ctx.max_leverage))
    if order.side == "b":
        return msgspec.structs.replace(ctx, available=ctx.available + value)
    held = ctx.base_available
    return msgspec.structs.replace(ctx, base_available=None if held is None else held + order.unfilled)


def close_position_plan(ctx: OrderContext) -> OrderPlan | None:
    """A reduce-only market order that closes the whole position in ``ctx``; None if there is none."""
    if ctx.kind != "perp" or not ctx.position:
        return None
    side: Side = "sell" if ctx.position > 0 else "buy"
    ref = (ctx.best_bid if side == "sell" else ctx.best_ask) or ctx.mark or Decimal(0)
    bound = protection_price(side, ref, ctx.slippage_pct, ctx.tick) if ref else Decimal(0)
    return OrderPlan(
        instrument_id=ctx.instrument_id,
        symbol=ctx.symbol,
        side=side,
        kind="market",
        price=bound,
        size=abs(ctx.position),
        reference_price=ref,
        tif="IOC",
        reduce_only=True,
        market=True,
    )
