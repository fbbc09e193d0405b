"""The risk of an order before it is sent: the leverage in force, the margin mode, the margin the order takes,
the estimated liquidation price of the position it leaves, the available balance after it and its fee.

Pure arithmetic on what the account summary and the instrument say (``RiskInputs``), the way the exchange
defines it (``tui.sim.engine.accounts`` and ``tui.feed.risk``). With ``s`` the signed size after the order,
``mmr``/``mmd`` the margin tier of its notional, and ``K`` the margin the position stands on less its cost
basis (``B - s * e``)::

    K + s * p = M + mmr * |s| * p - mmd   =>   p = (M - mmd - K) / (s - mmr * |s|)

- **cross**: ``K`` = the margin balance less this position's uPnL and cost basis, and ``M`` the maintenance
  margin of every other cross position. A fill of signed ``q`` at ``P`` with fee ``f`` moves ``K`` by exactly
  ``-(q * P) - f`` (collateral less cost basis moves by the fill's signed value), whether it adds, reduces or flips.
- **isolated**: ``K`` = the position's own margin less its cost basis, ``M`` = 0. Reducing releases the closed
  fraction of both; what is opened at ``P`` brings ``|opened| * P / leverage`` of margin.

The margin the order takes is the initial margin it adds (``(|s| - |s0|) * P / leverage`` in cross, as the
exchange reserves for a resting order; the change of the position's own margin in isolated), never below 0.
Anything not known yet gives None (shown ``—``), never 0.
"""

from __future__ import annotations

from decimal import Decimal

import msgspec

from tui.api.decimals import decimal_places
from tui.api.models import MarginTier

from .orders import OrderContext, OrderPlan, fmt_decimal

__all__ = [
    "UNKNOWN",
    "RiskInputs",
    "RiskPreview",
    "is_maker",
    "liquidation_line",
    "order_fee",
    "preview",
    "preview_plan",
    "risk_lines",
]

ZERO = Decimal(0)
UNKNOWN = "—"
NO_PRICE_REACHES = "equity covers a fall to 0"


class RiskInputs(msgspec.Struct, frozen=True):
    """What the estimate needs of the account and the instrument; None where it is not known (yet)."""

    leverage: Decimal | None = None  # the leverage in force on the instrument (not its maximum)
    isolated: bool | None = None  # the margin mode on the instrument
    position: Decimal = ZERO  # signed size held now
    entry: Decimal | None = None  # its entry price (None: unknown; not needed when flat)
    iso_margin: Decimal | None = None  # isolated: the position's own margin now
    margin_balance: Decimal | None = None  # cross: the account's margin balance (its cross equity)
    position_upnl: Decimal | None = None  # cross: this position's uPnL inside the margin balance
    other_mm: Decimal | None = None  # cross: maintenance margin of every other cross position
    available: Decimal | None = None  # available balance now
    tiers: tuple[MarginTier, ...] = ()
    maker_rate: Decimal | None = None
    taker_rate: Decimal | None = None


class RiskPreview(msgspec.Struct, frozen=True):
    """The estimate for one order: every figure None when it cannot be told."""

    leverage: Decimal | None
    isolated: bool | None
    size_after: Decimal  # signed
    margin: Decimal | None  # what the order takes (>= 0)
    liquidation: Decimal | None
    liq_reason: str  # why there is no liquidation price ("flat after this order", NO_PRICE_REACHES) or ""
    available_after: Decimal | None
    fee: Decimal | None
    maker: bool


def _tier(tiers: tuple[MarginTier, ...], notional: Decimal) -> MarginTier | None:
    """The margin tier of a position of ``notional``: the last whose threshold it reaches."""
    chosen = tiers[0] if tiers else None
    for t in tiers:
        if notional >= t.notional_usd_threshold:
            chosen = t
    return chosen


def _liquidation(size: Decimal, k: Decimal, others: Decimal, tier: MarginTier) -> tuple[Decimal | None, str]:
    denominator = size - tier.mmr * abs(size)
    if not denominator:
        return None, ""
    price = (others - tier.mmd - k) / denominator
    if price <= 0:
        return None, NO_PRICE_REACHES
    return price, ""


def order_fee(inputs: RiskInputs, size: Decimal, price: Decimal, *, maker: bool) -> Decimal | None:
    """The fee of a fill of ``size`` (either sign) at ``price`` at the account's maker or taker rate (negative: a
    rebate); None while the rates are not read. Every fee a form shows is this one computation."""
    rate = inputs.maker_rate if maker else inputs.taker_rate
    return abs(size) * price * rate if rate is not None else None


def preview(inputs: RiskInputs, signed_size: Decimal, price: Decimal, *, maker: bool) -> RiskPreview:
    """The estimate for a fill of ``signed_size`` (negative: a sell) at ``price`` (see the module's notes)."""
    s0, q = inputs.position, signed_size
    s = s0 + q
    lev = inputs.leverage if inputs.leverage else None
    fee = order_fee(inputs, q, price, maker=maker)
    reducing = bool(s0) and (s0 > 0) != (q > 0)
    closed = min(abs(q), abs(s0)) if reducing else ZERO
    opened = abs(q) - closed
    need_entry = bool(s0) and inputs.entry is None
    tier = _tier(inputs.tiers, abs(s) * price)
    liq: Decimal | None = None
    reason = "flat after this order" if not s else ""
    margin: Decimal | None = None
    after: Decimal | None = None

    if inputs.isolated:
        iso0 = inputs.iso_margin if s0 else ZERO
        if iso0 is not None and lev is not None and not need_entry:
            entry = inputs.entry or ZERO
            kept = (abs(s0) - closed) / abs(s0) if s0 else ZERO
            iso = iso0 * kept + opened * price / lev
            cost = s0 * entry * kept + (opened if q > 0 else -opened) * price
            change = iso - iso0
            margin = max(change, ZERO)
            realized = closed * (price - entry) * (1 if s0 > 0 else -1)
            if inputs.available is not None and fee is not None:
                after = inputs.available - change + realized - fee
            if s and tier is not None:
                liq, reason = _liquidation(s, iso - cost, ZERO, tier)
    elif inputs.isolated is False:
        if lev is not None:
            change = (abs(s) - abs(s0)) * price / lev
            margin = max(change, ZERO)
            if inputs.available is not None and fee is not None:
                after = inputs.available - change - fee
        cross = (inputs.margin_balance, inputs.other_mm) + ((inputs.position_upnl,) if s0 else ())
        if s and tier is not None and None not in cross and not need_entry:
            assert inputs.margin_balance is not None and inputs.other_mm is not None
            k0 = inputs.margin_balance - (inputs.position_upnl or ZERO) - s0 * (inputs.entry or ZERO)
            k = k0 - q * price - (fee or ZERO)  # a fee not known yet moves it by a few cents at most
            liq, reason = _liquidation(s, k, inputs.other_mm, tier)
    return RiskPreview(lev, inputs.isolated, s, margin, liq, reason, after, fee, maker)


def is_maker(plan: OrderPlan, ctx: OrderContext) -> bool:
    """Whether ``plan`` pays the maker rate: post-only does; a market or triggered order, an IOC or FOK limit and
    a limit price through the best price on the other side take liquidity."""
    if plan.post_only:
        return True
    if plan.is_market or plan.trigger is not None or plan.tif != "GTC":
        return False
    far = ctx.best_ask if plan.side == "buy" else ctx.best_bid
    if far is None:
        return True
    return plan.price < far if plan.side == "buy" else plan.price > far


def preview_plan(plan: OrderPlan, ctx: OrderContext, inputs: RiskInputs) -> RiskPreview:
    """The estimate for ``plan`` filling whole at its reference price."""
    signed = plan.size if plan.side == "buy" else -plan.size
    return preview(inputs, signed, plan.reference_price, maker=is_maker(plan, ctx))


def money(value: Decimal | None) -> str:
    """USDC at its two decimals, or ``—`` when unknown."""
    return UNKNOWN if value is None else f"{value:,.2f}"


def on_tick(value: Decimal | None, tick: Decimal) -> str:
    """A price at the instrument's tick (rounded to it), or ``—``."""
    if value is None:
        return UNKNOWN
    places = decimal_places(tick)
    return f"{(value / tick).to_integral_value() * tick:,.{places}f}"


def mode_words(isolated: bool | None) -> str:
    """The margin mode, and that this interface cannot switch it (the exchange has no action for it)."""
    if isolated is None:
        return f"margin mode {UNKNOWN}"
    return f"{'isolated' if isolated else 'cross'} (switch: not in the interface)"


def liquidation_words(p: RiskPreview, tick: Decimal) -> str:
    """The liquidation price after the order: ``≈ 90,500.0``, ``none (equity covers a fall to 0)``, ``—``."""
    if p.liquidation is not None:
        return f"≈ {on_tick(p.liquidation, tick)}"
    return f"none ({p.liq_reason})" if p.liq_reason else UNKNOWN


def liquidation_line(plan: OrderPlan, ctx: OrderContext, inputs: RiskInputs) -> str:
    """What a confirmation repeats: the liquidation price the position would have once ``plan`` fills."""
    return f"liquidation price after: {liquidation_words(preview_plan(plan, ctx, inputs), ctx.tick)}"


def leverage_line(leverage: Decimal | None, isolated: bool | None, leverage_key: str = "") -> str:
    """The leverage in force (and the key that changes it) and the margin mode."""
    lev = f"{fmt_decimal(leverage)}x" if leverage else UNKNOWN
    change = f" ({leverage_key}: change)" if leverage_key else ""
    return f"leverage {lev}{change} · {mode_words(isolated)}"


def risk_lines(p: RiskPreview, tick: Decimal, *, leverage_key: str = "") -> list[str]:
    """Three lines for a form: margin and fee; liquidation and available balance after; leverage and mode."""
    rate = "maker" if p.maker else "taker"
    fee = f"rebate {money(-p.fee)}" if p.fee is not None and p.fee < 0 else f"fee {money(p.fee)}"
    return [
        f"margin {money(p.margin)} · {fee} ({rate})",
        f"liq after {liquidation_words(p, tick)} · avail after {money(p.available_after)}",
        leverage_line(p.leverage, p.isolated, leverage_key),
    ]
