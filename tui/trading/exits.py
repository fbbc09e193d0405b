"""Brackets (an entry with its take-profit and stop-loss) and a position's own TP/SL."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from .orders import (
    Kind,
    OrderContext,
    OrderInput,
    OrderPlan,
    Side,
    _off_grid,
    _parse,
    fmt_decimal,
    protection_price,
    validate,
)


def _exit_plans(
    ctx: OrderContext,
    entry_side: Side,
    size: Decimal,
    ref: Decimal,
    tp: str,
    sl: str,
    grouping: Literal["normal", "position"],
) -> tuple[list[OrderPlan], dict[str, str]]:
    """Take-profit and stop-loss orders closing ``size`` bought (or sold) at about ``ref``: reduce-only trigger
    market orders on the other side, each bounded by the slippage limit from its trigger. Errors keyed tp, sl."""
    side: Side = "sell" if entry_side == "buy" else "buy"
    plans: list[OrderPlan] = []
    errors: dict[str, str] = {}
    if not tp.strip() and not sl.strip():
        return [], {"tp": "give a take-profit or a stop-loss price (or both)"}
    exits: tuple[tuple[str, str, Kind], ...] = (("tp", tp, "take_profit"), ("sl", sl, "stop_loss"))
    for name, text, kind in exits:
        if not text.strip():
            continue
        try:
            trigger = _parse(text, "take-profit" if name == "tp" else "stop-loss")
        except ValueError as exc:
            errors[name] = str(exc)
            continue
        if msg := _off_grid(trigger, ctx.tick, "tick size", name):
            errors[name] = msg
            continue
        above = trigger > ref
        if (name == "tp") != (above == (entry_side == "buy")):
            way = "above" if (name == "tp") == (entry_side == "buy") else "below"
            what, held = ("take-profit" if name == "tp" else "stop-loss"), ("long" if entry_side == "buy" else "short")
            errors[name] = f"a {what} of a {held} goes {way} {fmt_decimal(ref)}"
            continue
        bound = protection_price(side, trigger, ctx.slippage_pct, ctx.tick)
        plans.append(
            OrderPlan(
                ctx.instrument_id,
                ctx.symbol,
                side,
                kind,
                bound,
                size,
                trigger,
                tif="IOC",
                reduce_only=True,
                trigger=trigger,
                market=True,
                grouping=grouping,
            )
        )
    return plans, errors


def bracket_plans(
    ctx: OrderContext, side: Side, price: str, size: str, tp: str, sl: str
) -> tuple[list[OrderPlan] | None, dict[str, str]]:
    """An entry (a GTC limit at ``price``, or a bounded market order when it is empty) and its take-profit
    and/or stop-loss for the same size, grouped ("normal") so that they wait for the entry to fill and go
    with it. Errors keyed price, size, tp, sl (and what ``validate`` says of the entry)."""
    if ctx.kind != "perp":
        return None, {"price": "brackets are for perps"}
    form = OrderInput(side=side, kind="limit" if price.strip() else "market", price=price, size=size)
    entry = validate(form, ctx)
    if not entry.ok or entry.plan is None:
        return None, dict(entry.errors)
    exits, errors = _exit_plans(ctx, side, entry.plan.size, entry.plan.reference_price, tp, sl, "normal")
    return (None, errors) if errors else ([entry.plan, *exits], {})


def position_exit_plans(ctx: OrderContext, tp: str, sl: str) -> tuple[list[OrderPlan] | None, dict[str, str]]:
    """Take-profit and/or stop-loss for the whole position in ``ctx`` (grouping "position": they go when
    it is closed). Errors keyed tp and sl."""
    if ctx.kind != "perp" or not ctx.position:
        return None, {"tp": f"no {ctx.symbol} position"}
    side: Side = "buy" if ctx.position > 0 else "sell"
    ref = ctx.mark or ctx.best_bid or ctx.best_ask
    if ref is None:
        return None, {"tp": "no price to check the levels against"}
    plans, errors = _exit_plans(ctx, side, abs(ctx.position), ref, tp, sl, "position")
    return (None, errors) if errors else (plans, {})


def stop_loss_plan(ctx: OrderContext, entry: OrderPlan, stop: str) -> tuple[OrderPlan | None, str]:
    """The stop-loss that goes with ``entry`` as a bracket (a reduce-only trigger market order for its size at
    ``stop``, grouped "normal": it waits for the entry to fill); or None and why."""
    if ctx.kind != "perp":
        return None, "a stop with the order is for perps"
    plans, errors = _exit_plans(ctx, entry.side, entry.size, entry.reference_price, "", stop, "normal")
    return (plans[0], "") if plans else (None, errors.get("sl") or next(iter(errors.values()), "no stop"))
