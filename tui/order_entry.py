"""Order entry without Textual: parse and validate what the form holds, and build the placeOrder item.

Everything is checked before anything is sent: tick and lot multiples, the minimum notional, the leverage
cap (notional against available balance x max leverage), reduce-only without a position to reduce,
post-only that would cross, trigger prices on the wrong side of the mark. A failure is a message keyed
by the form field it belongs to, so the form can show it under that field. Values stay ``Decimal``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Decimal, InvalidOperation
from typing import Any, Literal

from tui.api.wire import order_item

__all__ = [
    "KINDS",
    "SIZE_UNITS",
    "TIFS",
    "ConfirmPolicy",
    "OrderContext",
    "OrderInput",
    "OrderPlan",
    "Validation",
    "close_position_plan",
    "confirmation_reasons",
    "fmt_decimal",
    "validate",
]

Side = Literal["buy", "sell"]
Kind = Literal["limit", "market", "stop", "take_profit", "stop_loss"]
SizeUnit = Literal["base", "quote", "percent"]
Tif = Literal["GTC", "IOC", "FOK"]

KINDS: tuple[Kind, ...] = ("limit", "market", "stop", "take_profit", "stop_loss")
SIZE_UNITS: tuple[SizeUnit, ...] = ("base", "quote", "percent")
TIFS: tuple[Tif, ...] = ("GTC", "IOC", "FOK")
TRIGGERED: frozenset[str] = frozenset({"stop", "take_profit", "stop_loss"})
CLOID_MAX = 128


@dataclass(frozen=True, slots=True)
class OrderInput:
    """What the form holds: text as typed, choices as chosen."""

    side: Side = "buy"
    kind: Kind = "limit"
    price: str = ""
    trigger: str = ""
    size: str = ""
    size_unit: SizeUnit = "base"
    tif: Tif = "GTC"
    post_only: bool = False
    reduce_only: bool = False
    cloid: str = ""


@dataclass(frozen=True, slots=True)
class OrderContext:
    """What validation needs to know about the instrument, the book and the account right now."""

    instrument_id: int
    symbol: str
    kind: Literal["perp", "spot"]
    tick: Decimal
    lot: Decimal
    min_notional: Decimal
    max_leverage: Decimal
    best_bid: Decimal | None = None
    best_ask: Decimal | None = None
    mark: Decimal | None = None
    available: Decimal = Decimal(0)  # quote currency the account can commit
    base_available: Decimal | None = None  # spot: base asset the account holds (for sells)
    position: Decimal = Decimal(0)  # signed size of the perp position, negative when short

    @property
    def base_asset(self) -> str:
        return self.symbol.split("/")[0].split("-")[0]


@dataclass(frozen=True, slots=True)
class OrderPlan:
    """A validated order: what will be sent, and what it is worth."""

    instrument_id: int
    symbol: str
    side: Side
    kind: Kind
    price: Decimal  # 0 for a market order (the exchange bounds it by the mark and its slippage)
    size: Decimal
    reference_price: Decimal  # the price the notional is computed at
    tif: Tif = "GTC"
    post_only: bool = False
    reduce_only: bool = False
    trigger: Decimal | None = None
    cloid: str = ""

    @property
    def notional(self) -> Decimal:
        return self.reference_price * self.size

    @property
    def is_market(self) -> bool:
        return self.kind == "market" or (self.kind in TRIGGERED and not self.price)

    def to_wire(self) -> dict[str, Any]:
        """The placeOrder item for this plan."""
        tpsl: Literal["tp", "sl", ""] = {"take_profit": "tp", "stop_loss": "sl"}.get(self.kind, "")  # type: ignore[assignment]
        tif: Tif = "IOC" if self.is_market and self.tif == "GTC" else self.tif
        return order_item(
            self.instrument_id,
            "b" if self.side == "buy" else "s",
            self.price,
            self.size,
            tif=tif,
            reduce_only=self.reduce_only,
            post_only=self.post_only,
            cloid=self.cloid,
            trigger_px=self.trigger,
            is_market=self.is_market,
            tpsl=tpsl,
        )

    def describe(self) -> str:
        """One line a person reads in a confirmation: 'BUY 0.5 BTC-PERP @ 100,000 (limit GTC)'."""
        at = "market" if self.is_market else fmt_decimal(self.price)
        trig = f", trigger {fmt_decimal(self.trigger)}" if self.trigger else ""
        flags = "".join((" post-only" if self.post_only else "", " reduce-only" if self.reduce_only else ""))
        kind = self.kind.replace("_", "-")
        return f"{self.side.upper()} {fmt_decimal(self.size)} {self.symbol} @ {at} ({kind} {self.tif}{trig}{flags})"


@dataclass(frozen=True, slots=True)
class Validation:
    """Either a plan or, per field, what is wrong with it."""

    plan: OrderPlan | None
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.plan is not None and not self.errors


@dataclass(frozen=True, slots=True)
class ConfirmPolicy:
    """When to ask before sending: a large notional, or a limit price far through the book."""

    max_notional: Decimal = Decimal(50_000)
    max_through_pct: Decimal = Decimal(2)


def fmt_decimal(value: Decimal | None) -> str:
    """Plain notation with thousands separators, no exponent, no trailing zeros: 100,000.5."""
    if value is None:
        return "-"
    text = format(value.normalize(), "f")
    whole, dot, frac = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    whole = whole.lstrip("-")
    return f"{sign}{int(whole):,}{dot}{frac}"


def _parse(text: str, name: str) -> Decimal:
    """A positive finite decimal from the form, or ValueError with a message for the field."""
    cleaned = text.strip().replace(",", "").replace("_", "")
    if not cleaned:
        raise ValueError(f"{name} is required")
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        raise ValueError(f"{name}: {text.strip()!r} is not a number") from None
    if not value.is_finite():
        raise ValueError(f"{name}: {text.strip()!r} is not a number")
    if value <= 0:
        raise ValueError(f"{name} must be greater than 0")
    if abs(value.adjusted()) > 30:
        raise ValueError(f"{name}: {text.strip()!r} is out of range")
    return value


def _floor(value: Decimal, step: Decimal) -> Decimal:
    return (value / step).to_integral_value(ROUND_FLOOR) * step


def _off_grid(value: Decimal, step: Decimal, what: str, name: str) -> str | None:
    if value % step == 0:
        return None
    lo = _floor(value, step)
    return f"{name} {fmt_decimal(value)} is not a multiple of the {what} {fmt_decimal(step)} (try {fmt_decimal(lo)})"


def _reference_price(form: OrderInput, ctx: OrderContext, price: Decimal | None) -> Decimal | None:
    """The price the order's value is computed at: its limit price, else where it would trade now."""
    if price:
        return price
    far = ctx.best_ask if form.side == "buy" else ctx.best_bid
    return far or ctx.mark


def validate(form: OrderInput, ctx: OrderContext) -> Validation:
    """Check ``form`` against ``ctx``: an ``OrderPlan``, or error messages keyed by form field.

    Fields: ``price``, ``trigger``, ``size``, ``tif``, ``post_only``, ``reduce_only``, ``cloid``, ``kind``.
    """
    errors: dict[str, str] = {}
    triggered = form.kind in TRIGGERED
    reduce_only = form.reduce_only or form.kind in ("take_profit", "stop_loss")  # they close a position
    price: Decimal | None = None
    trigger: Decimal | None = None

    if form.kind == "limit" or (triggered and form.price.strip()):
        try:
            price = _parse(form.price, "price")
        except ValueError as exc:
            errors["price"] = str(exc)
        else:
            msg = _off_grid(price, ctx.tick, "tick size", "price")
            if msg:
                errors["price"] = msg
    if triggered:
        if ctx.kind != "perp":
            errors["kind"] = "stop, take-profit and stop-loss orders are for perps only"
        try:
            trigger = _parse(form.trigger, "trigger price")
        except ValueError as exc:
            errors["trigger"] = str(exc)
        else:
            msg = _off_grid(trigger, ctx.tick, "tick size", "trigger price") or _trigger_side(form, ctx, trigger)
            if msg:
                errors["trigger"] = msg

    if form.post_only and (form.kind != "limit" or form.tif != "GTC"):
        errors["post_only"] = "post-only needs a GTC limit order"
    elif form.post_only and price is not None:
        msg = _crosses(form.side, price, ctx)
        if msg:
            errors["post_only"] = msg
    if reduce_only:
        msg = _reduce_only_problem(form.side, ctx)
        if msg:
            errors["reduce_only"] = msg
    if len(form.cloid) > CLOID_MAX:
        errors["cloid"] = f"client order id: at most {CLOID_MAX} characters"

    ref = _reference_price(form, ctx, price)
    size = _size(form, ctx, ref, errors)
    if size is None or ref is None or errors:
        if ref is None and "price" not in errors:
            errors["price"] = "no price to value the order at: the book is empty"
        return Validation(None, errors)

    notional = ref * size
    if not reduce_only and notional < ctx.min_notional:
        errors["size"] = f"order value {_money(notional)} is below the minimum {fmt_decimal(ctx.min_notional)} USDC"
    elif not reduce_only:
        msg = _funds_problem(form.side, size, notional, ctx)
        if msg:
            errors["size"] = msg
    if errors:
        return Validation(None, errors)
    plan = OrderPlan(
        instrument_id=ctx.instrument_id,
        symbol=ctx.symbol,
        side=form.side,
        kind=form.kind,
        price=price or Decimal(0),
        size=size,
        reference_price=ref,
        tif=form.tif,
        post_only=form.post_only,
        reduce_only=reduce_only,
        trigger=trigger,
        cloid=form.cloid.strip(),
    )
    return Validation(plan)


def _money(value: Decimal) -> str:
    return f"{value:,.2f}"


def _trigger_side(form: OrderInput, ctx: OrderContext, trigger: Decimal) -> str | None:
    """A trigger already on the firing side of the mark would fire at once: almost always a typo."""
    if ctx.mark is None:
        return None
    # stop and stop-loss fire when the price moves against the order's side; take-profit the other way
    above = (form.side == "buy") == (form.kind != "take_profit")
    name = form.kind.replace("_", "-")
    if above and trigger <= ctx.mark:
        return f"a {form.side} {name} triggers above the mark {fmt_decimal(ctx.mark)}"
    if not above and trigger >= ctx.mark:
        return f"a {form.side} {name} triggers below the mark {fmt_decimal(ctx.mark)}"
    return None


def _crosses(side: Side, price: Decimal, ctx: OrderContext) -> str | None:
    if side == "buy" and ctx.best_ask is not None and price >= ctx.best_ask:
        return f"post-only buy at {fmt_decimal(price)} would cross the best ask {fmt_decimal(ctx.best_ask)}"
    if side == "sell" and ctx.best_bid is not None and price <= ctx.best_bid:
        return f"post-only sell at {fmt_decimal(price)} would cross the best bid {fmt_decimal(ctx.best_bid)}"
    return None


def _reduce_only_problem(side: Side, ctx: OrderContext) -> str | None:
    if ctx.kind != "perp":
        return "reduce-only applies to perps only"
    reducible = ctx.position < 0 if side == "buy" else ctx.position > 0
    if not reducible:
        want = "short" if side == "buy" else "long"
        return f"reduce-only {side}: no {want} position in {ctx.symbol} to reduce"
    return None


def _size(form: OrderInput, ctx: OrderContext, ref: Decimal | None, errors: dict[str, str]) -> Decimal | None:
    """The order size in base units, or None with a message in ``errors['size']``."""
    label = {"base": f"size ({ctx.base_asset})", "quote": "size (USDC)", "percent": "size (%)"}[form.size_unit]
    try:
        amount = _parse(form.size, label)
    except ValueError as exc:
        errors["size"] = str(exc)
        return None
    if form.size_unit == "base":
        msg = _off_grid(amount, ctx.lot, "lot size", "size")
        if msg:
            errors["size"] = msg
            return None
        return amount
    if form.size_unit == "percent" and amount > 100:
        errors["size"] = "size (%) must be at most 100"
        return None
    if ref is None:
        return None  # the caller reports the missing price
    if form.size_unit == "quote":
        base = amount / ref
    elif ctx.kind == "spot" and form.side == "sell":
        base = (ctx.base_available or Decimal(0)) * amount / 100
    else:
        base = ctx.available * amount / 100 / ref
    size = _floor(base, ctx.lot)
    if size <= 0:
        errors["size"] = f"{fmt_decimal(amount)}{'%' if form.size_unit == 'percent' else ' USDC'} is less than one lot"
        return None
    return size


def _funds_problem(side: Side, size: Decimal, notional: Decimal, ctx: OrderContext) -> str | None:
    if ctx.kind == "perp":
        cap = ctx.available * ctx.max_leverage
        if notional > cap:
            return (
                f"order value {_money(notional)} is above available {_money(ctx.available)}"
                f" x max leverage {fmt_decimal(ctx.max_leverage)} = {_money(cap)}"
            )
        return None
    if side == "buy" and notional > ctx.available:
        return f"order value {_money(notional)} is above the available {_money(ctx.available)} USDC"
    if side == "sell" and ctx.base_available is not None and size > ctx.base_available:
        return f"size {fmt_decimal(size)} is above the {fmt_decimal(ctx.base_available)} {ctx.base_asset} held"
    return None


def confirmation_reasons(plan: OrderPlan, ctx: OrderContext, policy: ConfirmPolicy) -> list[str]:
    """Why this order should be confirmed before it is sent; empty when it need not be."""
    reasons: list[str] = []
    if plan.notional > policy.max_notional:
        reasons.append(f"order value {_money(plan.notional)} USDC is above {fmt_decimal(policy.max_notional)} USDC")
    if plan.kind == "limit":
        far = ctx.best_ask if plan.side == "buy" else ctx.best_bid
        if far:
            through = (plan.price - far) / far * 100 if plan.side == "buy" else (far - plan.price) / far * 100
            if through > policy.max_through_pct:
                which = "best ask" if plan.side == "buy" else "best bid"
                reasons.append(
                    f"price {fmt_decimal(plan.price)} is {through:.1f}% through the {which} {fmt_decimal(far)}"
                    f" (limit {fmt_decimal(policy.max_through_pct)}%)"
                )
    return reasons


def close_position_plan(ctx: OrderContext) -> OrderPlan | None:
    """A reduce-only market order that closes the whole position in ``ctx``; None if there is none."""
    if ctx.kind != "perp" or not ctx.position:
        return None
    side: Side = "sell" if ctx.position > 0 else "buy"
    ref = (ctx.best_bid if side == "sell" else ctx.best_ask) or ctx.mark or Decimal(0)
    return OrderPlan(
        instrument_id=ctx.instrument_id,
        symbol=ctx.symbol,
        side=side,
        kind="market",
        price=Decimal(0),
        size=abs(ctx.position),
        reference_price=ref,
        tif="IOC",
        reduce_only=True,
    )
