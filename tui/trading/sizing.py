"""Sizes the order form offers: a preset share (25/50/75/100%) of the position or of the buying power, and a size
from risk (a percent of equity lost if the stop is hit).

Presets: an order against the position held (a sell while long, a buy while short) is sized from the position,
so 100% closes it exactly; any other from the buying power, the available balance times the leverage in force,
with the taker fee set aside, at the order's price (spot: the available quote, or the base held for a sell).

From risk: with ``R`` = equity x percent / 100, entry ``E``, stop ``S`` and fee rate ``f`` (paid entering and
leaving), one unit loses ``|E - S| + f x (E + S)`` if the stop is hit, so the size is ``R`` over that, rounded
down to the lot, and the loss at the stop, fees included, is ``size x (|E - S| + f x (E + S))``, never above ``R``.
The stop is a stop-market order: it may fill past its trigger, down to its slippage bound, so the loss at that
bound is given too. Every size rounds down to the lot; nothing here rounds up.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal
from typing import Literal

import msgspec

from .grammar import FieldError, is_multiple, parse_positive
from .orders import OrderContext, Side, fmt_decimal, protection_price

__all__ = ["PRESETS", "Preset", "RiskSize", "loss_at", "preset_size", "risk_size"]

PRESETS = (25, 50, 75, 100)
ZERO = Decimal(0)


class Preset(msgspec.Struct, frozen=True):
    """A preset's size and what it is a share of, in words ("of the long 0.3", "of buying power 1,200 USDC")."""

    size: Decimal
    of: Literal["position", "buying power", "base held"]
    words: str


class RiskSize(msgspec.Struct, frozen=True):
    """A size from risk, and what it loses at the stop (fees included) and at the stop's slippage bound."""

    size: Decimal
    budget: Decimal  # equity x percent
    loss: Decimal  # at the stop price, fees included
    worst_price: Decimal  # the stop-market's bound
    worst_loss: Decimal  # at that bound, fees included


def _floor(value: Decimal, lot: Decimal) -> Decimal:
    return (value / lot).to_integral_value(ROUND_FLOOR) * lot


def reduces(side: Side, position: Decimal) -> bool:
    """Whether an order of ``side`` goes against ``position`` (signed)."""
    return position < 0 if side == "buy" else position > 0


def preset_size(
    percent: int, side: Side, ctx: OrderContext, price: Decimal | None, taker_rate: Decimal | None = None
) -> Preset:
    """``percent`` of the position (when ``side`` reduces it) or of the buying power at ``price`` (the form's
    limit price, else where a market order would trade). FieldError keyed ``size`` when it cannot be told."""
    if percent not in PRESETS:
        raise FieldError("size", f"a preset is one of {', '.join(f'{p}%' for p in PRESETS)}")
    share = Decimal(percent) / 100
    if ctx.kind == "perp" and reduces(side, ctx.position):
        held = abs(ctx.position)
        size = held if percent == 100 else _floor(held * share, ctx.lot)
        words = f"{percent}% of the {'long' if ctx.position > 0 else 'short'} {fmt_decimal(held)}"
        return _checked(Preset(size, "position", words), ctx)
    if ctx.kind == "spot" and side == "sell":
        held = ctx.base_available or ZERO
        size = _floor(held * share, ctx.lot)
        return _checked(Preset(size, "base held", f"{percent}% of {fmt_decimal(held)} {ctx.base_asset} held"), ctx)
    ref = price or (ctx.best_ask if side == "buy" else ctx.best_bid) or ctx.mark
    if not ref:
        raise FieldError("size", "no price to size the order at: the book is empty")
    lev = (ctx.leverage or ctx.max_leverage) if ctx.kind == "perp" else Decimal(1)
    fee = taker_rate if taker_rate and taker_rate > 0 else ZERO
    power = ctx.available * lev
    # the margin (value / leverage) and the fee (value x rate) both come out of the available balance
    size = _floor(power * share / (ref * (1 + lev * fee)), ctx.lot)
    words = f"{percent}% of buying power {power:,.2f} USDC"  # money in cents, as everywhere
    words += f" ({fmt_decimal(lev)}x)" if ctx.kind == "perp" else ""
    return _checked(Preset(size, "buying power", words), ctx)


def _checked(preset: Preset, ctx: OrderContext) -> Preset:
    if preset.size <= 0:
        raise FieldError("size", f"{preset.words} is less than one lot ({fmt_decimal(ctx.lot)})")
    return preset


def loss_at(side: Side, size: Decimal, entry: Decimal, exit_price: Decimal, fee_rate: Decimal) -> Decimal:
    """What ``size`` entered at ``entry`` on ``side`` loses leaving at ``exit_price``, fees (``fee_rate`` of each
    side's value) included; negative when it gains."""
    move = (entry - exit_price) if side == "buy" else (exit_price - entry)
    return size * move + fee_rate * size * (entry + exit_price)


def risk_size(
    side: Side,
    equity: Decimal,
    percent_text: str,
    entry: Decimal,
    stop_text: str,
    ctx: OrderContext,
    fee_rate: Decimal | None,
) -> RiskSize:
    """The size that loses ``percent_text`` % of ``equity`` if the stop at ``stop_text`` is hit, entering at
    ``entry``. FieldError keyed ``risk`` or ``stop`` when a value is wrong."""
    percent = parse_positive("risk", percent_text, "risk (%)")
    if percent > 100:
        raise FieldError("risk", "risk is a percent of equity: at most 100")
    stop = parse_positive("stop", stop_text, "stop price")
    if not is_multiple(stop, ctx.tick):
        raise FieldError("stop", f"stop {fmt_decimal(stop)} is not a multiple of the tick size {fmt_decimal(ctx.tick)}")
    if side == "buy" and stop >= entry:
        raise FieldError("stop", f"a buy's stop goes below its entry {fmt_decimal(entry)}")
    if side == "sell" and stop <= entry:
        raise FieldError("stop", f"a sell's stop goes above its entry {fmt_decimal(entry)}")
    if equity <= 0:
        raise FieldError("risk", "no equity to risk a share of")
    rate = fee_rate if fee_rate and fee_rate > 0 else ZERO
    budget = equity * percent / 100
    per_unit = loss_at(side, Decimal(1), entry, stop, rate)
    size = _floor(budget / per_unit, ctx.lot)
    if size <= 0:
        raise FieldError("risk", f"{fmt_decimal(percent)}% of equity ({budget:,.2f} USDC) is less than one lot's loss")
    exit_side: Side = "sell" if side == "buy" else "buy"
    worst = protection_price(exit_side, stop, ctx.slippage_pct, ctx.tick)
    loss, worst_loss = loss_at(side, size, entry, stop, rate), loss_at(side, size, entry, worst, rate)
    return RiskSize(size, budget, loss, worst, worst_loss)
