"""The order form's model (what it holds, what it is checked against, the plan it makes) and its checks
(``validate``), with the market-order estimates and the confirmation rules."""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any, Literal

import msgspec

from tui.api.decimals import decimal_places
from tui.api.models import Order
from tui.api.wire import order_item

from .grammar import CLOID_MAX as CLOID_MAX  # the order form's limit, kept importable from here
from .grammar import FieldError, is_multiple, parse_cloid, parse_positive

Side = Literal["buy", "sell"]
Kind = Literal["limit", "market", "stop", "take_profit", "stop_loss"]
SizeUnit = Literal["base", "quote", "percent"]
Tif = Literal["GTC", "IOC", "FOK"]

KINDS: tuple[Kind, ...] = ("limit", "market", "stop", "take_profit", "stop_loss")
SIZE_UNITS: tuple[SizeUnit, ...] = ("base", "quote", "percent")
TIFS: tuple[Tif, ...] = ("GTC", "IOC", "FOK")
TRIGGERED: frozenset[str] = frozenset({"stop", "take_profit", "stop_loss"})
DEFAULT_SLIPPAGE_PCT = Decimal(1)  # a market order fills at most this far beyond the best price
Level = tuple[Decimal, Decimal]  # (price, size) of one book level


def as_side(text: str) -> Side | None:
    """``text`` as an order side; None when it is neither "buy" nor "sell"."""
    return "buy" if text == "buy" else "sell" if text == "sell" else None


class OrderInput(msgspec.Struct, frozen=True):
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


class OrderContext(msgspec.Struct, frozen=True):
    """What validation needs to know about the instrument, the book and the account right now."""

    instrument_id: int
    symbol: str
    kind: Literal["perp", "spot"]
    tick: Decimal
    lot: Decimal
    min_notional: Decimal
    max_leverage: Decimal
    leverage: Decimal | None = None  # the leverage in force on the instrument (None: not read yet)
    best_bid: Decimal | None = None
    best_ask: Decimal | None = None
    mark: Decimal | None = None
    available: Decimal = Decimal(0)  # quote currency the account can commit
    base_available: Decimal | None = None  # spot: base asset the account holds (for sells)
    position: Decimal = Decimal(0)  # signed size of the perp position, negative when short
    bids: tuple[Level, ...] = ()  # the visible book, best first: what a market order is estimated against
    asks: tuple[Level, ...] = ()
    slippage_pct: Decimal = DEFAULT_SLIPPAGE_PCT  # how far beyond the best price a market order may fill

    def levels(self, side: Side) -> tuple[Level, ...]:
        """The levels an order of ``side`` takes: the asks for a buy, the bids for a sell."""
        return self.asks if side == "buy" else self.bids

    @property
    def base_asset(self) -> str:
        return self.symbol.split("/")[0].split("-")[0]


class OrderPlan(msgspec.Struct, frozen=True):
    """A validated order: what will be sent, and what it is worth."""

    instrument_id: int
    symbol: str
    side: Side
    kind: Kind
    price: Decimal  # the limit price; a market order's protection price (0: bounded by the exchange)
    size: Decimal
    reference_price: Decimal  # the price the notional is computed at
    tif: Tif = "GTC"
    post_only: bool = False
    reduce_only: bool = False
    trigger: Decimal | None = None
    cloid: str = ""
    market: bool = False  # fills at market, bounded by ``price``
    grouping: Literal["", "normal", "position"] = ""  # a TP/SL of a bracket ("normal") or of a position

    @property
    def notional(self) -> Decimal:
        return self.reference_price * self.size

    @property
    def is_market(self) -> bool:
        return self.market or self.kind == "market"

    def to_wire(self) -> dict[str, Any]:
        """The placeOrder item for this plan."""
        tpsl: Literal["tp", "sl", ""] = "tp" if self.kind == "take_profit" else "sl" if self.kind == "stop_loss" else ""
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
            grouping=self.grouping,
        )

    def describe(self) -> str:
        """One line a person reads in a confirmation: 'BUY 0.5 BTC-PERP @ 100,000 (limit GTC)'."""
        at = fmt_decimal(self.price)
        if self.is_market:
            worst = "at most" if self.side == "buy" else "at least"
            at = f"market ({worst} {fmt_decimal(self.price)})" if self.price else "market"
        trig = f", trigger {fmt_decimal(self.trigger)}" if self.trigger else ""
        flags = "".join((" post-only" if self.post_only else "", " reduce-only" if self.reduce_only else ""))
        kind = self.kind.replace("_", "-")
        tif = "IOC" if self.is_market and self.tif == "GTC" else self.tif  # as ``to_wire`` sends it
        return f"{self.side.upper()} {fmt_decimal(self.size)} {self.symbol} @ {at} ({kind} {tif}{trig}{flags})"


class Validation(msgspec.Struct, frozen=True):
    """Either a plan or, per field, what is wrong with it."""

    plan: OrderPlan | None
    errors: dict[str, str] = msgspec.field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.plan is not None and not self.errors


class ConfirmPolicy(msgspec.Struct, frozen=True):
    """When to ask before sending (a large notional, a limit price far through the book, a market order the
    visible book cannot fill within its bound), and how far beyond the best price a market order may fill."""

    max_notional: Decimal = Decimal(50_000)
    max_through_pct: Decimal = Decimal(2)
    slippage_pct: Decimal = DEFAULT_SLIPPAGE_PCT


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
    """A positive decimal from the form in the one grammar of every form (``grammar.parse_positive``: ASCII digits
    and at most one point, within 1e-30 to 1e30), or ValueError (``FieldError``) with a message for the field."""
    return parse_positive(name, text)


def _floor(value: Decimal, step: Decimal) -> Decimal:
    return (value / step).to_integral_value(ROUND_FLOOR) * step


def _off_grid(value: Decimal, step: Decimal, what: str, name: str) -> str | None:
    if is_multiple(value, step):  # exact at any size: ``%`` raises past 28 digits of quotient
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
    try:
        parse_cloid("cloid", form.cloid)
    except FieldError as exc:
        errors["cloid"] = exc.message

    market = form.kind == "market" or (triggered and price is None)
    if market and not errors:
        base = trigger if triggered else (ctx.best_ask if form.side == "buy" else ctx.best_bid) or ctx.mark
        if base is None:
            errors["price"] = "no price to bound the market order by: the book is empty"
        else:
            price = protection_price(form.side, base, ctx.slippage_pct, ctx.tick)
    ref = _reference_price(form, ctx, None if market else price)
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
        market=market,
    )
    return Validation(plan)


def _money(value: Decimal) -> str:
    return f"{value:,.2f}"


def protection_price(side: Side, base: Decimal, slippage_pct: Decimal, tick: Decimal) -> Decimal:
    """The worst price a market order of ``side`` accepts: ``slippage_pct`` beyond ``base``, on the tick,
    rounded toward ``base`` (a buy's bound down, a sell's up) and never less than one tick."""
    factor = slippage_pct / 100
    if side == "buy":
        return (base * (1 + factor) / tick).to_integral_value(ROUND_FLOOR) * tick
    bound = (base * (1 - factor) / tick).to_integral_value(ROUND_CEILING) * tick
    return max(bound, tick)


class FillEstimate(msgspec.Struct, frozen=True):
    """What a market order would take from the visible book: ``size`` of the ``wanted`` at ``average``."""

    wanted: Decimal
    size: Decimal  # what the visible book fills within the bound
    average: Decimal | None  # None when nothing fills
    best: Decimal | None  # the best price on the side the order takes
    worst: Decimal | None  # the last level it reaches
    beyond: bool  # the visible book within the bound is too thin: the order would go past it

    @property
    def slippage_pct(self) -> Decimal | None:
        """How far the average is from the best price, in % (always >= 0)."""
        if self.average is None or not self.best:
            return None
        return abs(self.average - self.best) / self.best * 100


def estimate_fill(side: Side, size: Decimal, levels: tuple[Level, ...], bound: Decimal | None) -> FillEstimate:
    """Walk ``levels`` (best first) for ``size``, stopping at ``bound`` (a buy takes asks up to it, a sell
    bids down to it)."""
    left, cost, worst = size, Decimal(0), None
    for price, available in levels:
        if bound and (price > bound if side == "buy" else price < bound):
            break
        take = min(left, available)
        cost += take * price
        left -= take
        worst = price
        if not left:
            break
    filled = size - left
    best = levels[0][0] if levels else None
    return FillEstimate(size, filled, cost / filled if filled else None, best, worst, bool(left))


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
        # the exchange reserves margin for what the order adds to the position's size, at the leverage in force
        signed = size if side == "buy" else -size
        opened = max(abs(ctx.position + signed) - abs(ctx.position), Decimal(0))
        lev = ctx.leverage or ctx.max_leverage
        which = "leverage in force" if ctx.leverage else "max leverage: the leverage in force is not read yet"
        margin = notional * opened / size / lev
        if margin > ctx.available:
            opens = "" if opened == size else f" for the {fmt_decimal(opened)} it adds to the position"
            return (
                f"margin {_money(margin)}{opens} is above available {_money(ctx.available)} USDC"
                f" (value {_money(notional * opened / size)} / {fmt_decimal(lev)}x, the {which})"
            )
        return None
    if side == "buy" and notional > ctx.available:
        return f"order value {_money(notional)} is above the available {_money(ctx.available)} USDC"
    if side == "sell" and ctx.base_available is not None and size > ctx.base_available:
        return f"size {fmt_decimal(size)} is above the {fmt_decimal(ctx.base_available)} {ctx.base_asset} held"
    return None


def market_estimate(plan: OrderPlan, ctx: OrderContext) -> str | None:
    """A market order's expected fill from the visible book, in words; None for other orders."""
    if not plan.is_market or plan.trigger is not None:
        return None
    est = estimate_fill(plan.side, plan.size, ctx.levels(plan.side), plan.price)
    places = decimal_places(ctx.tick)
    bound = f"worst {plan.price:,.{places}f} ({fmt_decimal(ctx.slippage_pct)}%)"
    if est.average is None:
        return f"est. nothing fills from the visible book · {bound}"
    slip = est.slippage_pct or Decimal(0)
    average = est.average.quantize(ctx.tick / 10, ROUND_CEILING if plan.side == "buy" else ROUND_FLOOR)
    avg = f"{average:,.{places if average % ctx.tick == 0 else places + 1}f}"  # as prices are shown, or finer
    part = f" · only {fmt_decimal(est.size)} visible" if est.beyond else ""
    return f"est. avg {avg} · slippage {slip:.2f}%{part} · {bound}"


def confirmation_reasons(plan: OrderPlan, ctx: OrderContext, policy: ConfirmPolicy) -> list[str]:
    """Why this order should be confirmed before it is sent; empty when it need not be."""
    reasons: list[str] = []
    if plan.notional > policy.max_notional:
        reasons.append(f"order value {_money(plan.notional)} USDC is above {fmt_decimal(policy.max_notional)} USDC")
    if plan.is_market and plan.trigger is None:
        est = estimate_fill(plan.side, plan.size, ctx.levels(plan.side), plan.price)
        if est.beyond:
            bound = f"the {fmt_decimal(ctx.slippage_pct)}% limit ({fmt_decimal(plan.price)})"
            if not est.size:
                reasons.append(f"the visible book has nothing within {bound}: nothing may fill")
            else:
                reasons.append(
                    f"the visible book fills only {fmt_decimal(est.size)} of {fmt_decimal(plan.size)} within {bound};"
                    " the rest may not fill"
                )
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


def resting_order(plan: OrderPlan, oid: int, user: str, timestamp: str) -> Order:
    """The open order the exchange holds once it accepted ``plan`` as ``oid`` (resting, nothing filled yet)."""
    wire = plan.to_wire()
    return Order(
        order_id=oid,
        instrument_id=plan.instrument_id,
        instrument=plan.symbol,
        side=wire["side"],
        position_side=wire["positionSide"],
        limit_price=plan.price,
        size=plan.size,
        unfilled=plan.size,
        state="open",
        cloid=plan.cloid,
        tif=wire["tif"],
        post_only=plan.post_only,
        reduce_only=plan.reduce_only,
        user=user,
        trigger_px=plan.trigger or Decimal(0),
        is_market=plan.is_market,
        tpsl=wire["tpsl"],
        grouping=plan.grouping,
        timestamp=timestamp,
    )
