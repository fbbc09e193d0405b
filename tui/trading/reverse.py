"""Reversing a position: one market order of twice its size the other way, and what it left, in words.

One IOC order, not reduce-only, of twice the size held, bounded by the slippage limit like every market order: it
closes the position and opens the same size the other way in one step, so there is never a moment with a close
done and the opening still to send. Filled in part (the book within the bound too thin), the IOC's rest is
cancelled by the exchange, and the position is whatever the part filled made of it, which may still be the old
side, flat, or the new side smaller: the outcome says which, from the exchange's record (the order settled by its
cloid, and the position read after). Nothing is sent again.
"""

from __future__ import annotations

from decimal import Decimal

from .orders import OrderContext, OrderInput, OrderPlan, Side, fmt_decimal, validate

__all__ = ["reverse_outcome", "reverse_plan", "side_words"]


def reverse_plan(ctx: OrderContext) -> tuple[OrderPlan | None, str]:
    """The order that reverses the position in ``ctx``; or None and why not."""
    if ctx.kind != "perp" or not ctx.position:
        return None, f"no {ctx.symbol} position to reverse"
    side: Side = "sell" if ctx.position > 0 else "buy"
    size = fmt_decimal(abs(ctx.position) * 2).replace(",", "")
    result = validate(OrderInput(side=side, kind="market", size=size, tif="IOC"), ctx)
    if result.plan is None:
        return None, "; ".join(result.errors.values()) or "cannot be sent"
    return result.plan, ""


def side_words(size: Decimal) -> str:
    """'long 0.01', 'short 0.01' or 'flat'."""
    if not size:
        return "flat"
    return f"{'long' if size > 0 else 'short'} {fmt_decimal(abs(size))}"


def reverse_outcome(symbol: str, before: Decimal, wanted: Decimal, filled: Decimal, after: Decimal | None) -> str:
    """What a reverse of ``before`` (signed) did: ``filled`` of the ``wanted`` order, the position ``after`` as read
    (None: not read, so told from the fill)."""
    told = after if after is not None else before + (filled if before < 0 else -filled)
    now = side_words(told) + ("" if after is not None else " (from the fill: the position could not be read)")
    if filled == wanted:
        return f"reversed {symbol}: {side_words(before)} → {now}"
    if not filled:
        return f"{symbol} not reversed: nothing filled within the slippage bound; the position is {now}"
    return (
        f"{symbol} reversed in part: {fmt_decimal(filled)} of {fmt_decimal(wanted)} filled within the slippage"
        f" bound, the rest cancelled (IOC); the position is now {now}"
    )
