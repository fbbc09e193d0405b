"""A trailing stop's arithmetic and its form, without a runner (``tui.trading.trailing`` runs it).

A trailing stop is a real reduce-only stop-loss (a trigger market order, bounded by the slippage limit from its
trigger) on the side that closes the position: a sell behind a long, a buy above a short. It follows the best
price seen (the mark or the last trade, the trader's choice): the peak (the highest) for a long, the trough (the
lowest) for a short, at a distance in price or in percent of it (the code calls either ``peak``). It only ever
advances, so the stop only ever moves in the trader's favour. A move is worth making only when the stop gains
at least a step (a tenth of the distance, at least a tick), so a price that creeps does not send two actions a tick.
The exchange arms a trigger by where it is against the mark when placed, so a stop is
never placed at or through the mark: it stays a tick short of it.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Literal

import msgspec

from .grammar import FieldError, parse_choice, parse_positive
from .orders import OrderContext, OrderPlan, Side, _off_grid, fmt_decimal, protection_price

__all__ = [
    "SOURCES", "STEP_SHARE", "Source", "TrailSpec", "advance", "improves", "kept_from_mark", "move_step",
    "stop_plan", "trail_spec", "trail_trigger",
]  # fmt: skip

Source = Literal["mark", "last"]
SOURCES: tuple[Source, ...] = ("mark", "last")
STEP_SHARE = Decimal("0.1")  # a move is made when the stop gains at least this share of the distance


class TrailSpec(msgspec.Struct, frozen=True):
    """What the trader asked for: a stop of ``side`` on ``symbol``, ``distance`` behind the peak of ``source``
    (in percent of the peak when ``percent``)."""

    symbol: str
    side: Side  # the stop's side: sell behind a long, buy above a short
    distance: Decimal
    percent: bool = False
    source: Source = "mark"

    @property
    def distance_words(self) -> str:
        return f"{fmt_decimal(self.distance)}%" if self.percent else fmt_decimal(self.distance)

    @property
    def held(self) -> str:
        return "long" if self.side == "sell" else "short"

    @property
    def extreme(self) -> str:
        """What the stop follows, in words: the peak behind a long (a sell stop), the trough above a short."""
        return "peak" if self.side == "sell" else "trough"

    def gap(self, peak: Decimal) -> Decimal:
        """The distance in price from ``peak``."""
        return peak * self.distance / 100 if self.percent else self.distance

    def describe(self) -> str:
        way = "below the highest" if self.side == "sell" else "above the lowest"
        return f"trailing stop {self.side.upper()} {self.symbol}, {self.distance_words} {way} {self.source} price"


def advance(side: Side, peak: Decimal | None, price: Decimal) -> Decimal:
    """The peak after ``price``: the highest seen behind a long (a sell stop), the lowest above a short."""
    if peak is None:
        return price
    return max(peak, price) if side == "sell" else min(peak, price)


def trail_trigger(spec: TrailSpec, peak: Decimal, tick: Decimal) -> Decimal | None:
    """Where the stop goes for ``peak``, on the tick and rounded away from the price (never closer than asked);
    None when that is no price (a distance at or past the whole price of a sell stop)."""
    if spec.side == "sell":
        trigger = ((peak - spec.gap(peak)) / tick).to_integral_value(ROUND_FLOOR) * tick
        return trigger if trigger > 0 else None
    return ((peak + spec.gap(peak)) / tick).to_integral_value(ROUND_CEILING) * tick


def kept_from_mark(side: Side, trigger: Decimal, mark: Decimal | None, tick: Decimal) -> Decimal | None:
    """``trigger`` kept at least a tick short of the mark (the exchange arms a trigger by its side of the mark:
    one at or through it would fire at once); None when no such price exists."""
    if mark is None:
        return trigger
    if side == "sell":
        kept = min(trigger, (mark / tick).to_integral_value(ROUND_CEILING) * tick - tick)
        return kept if kept > 0 else None
    return max(trigger, (mark / tick).to_integral_value(ROUND_FLOOR) * tick + tick)


def move_step(spec: TrailSpec, peak: Decimal, tick: Decimal) -> Decimal:
    """The least gain that makes a move worth its two actions: a tenth of the distance, at least a tick."""
    return max(tick, (spec.gap(peak) * STEP_SHARE / tick).to_integral_value(ROUND_FLOOR) * tick)


def improves(side: Side, new: Decimal, old: Decimal, step: Decimal) -> bool:
    """Whether a stop at ``new`` is at least ``step`` better for the trader than one at ``old``."""
    return new >= old + step if side == "sell" else new <= old - step


def stop_plan(ctx: OrderContext, spec: TrailSpec, trigger: Decimal, size: Decimal, cloid: str) -> OrderPlan:
    """The reduce-only stop-loss at ``trigger`` for ``size``: a trigger market order bounded by the slippage
    limit from its trigger, with no grouping (it stays on the exchange whatever xtui does)."""
    bound = protection_price(spec.side, trigger, ctx.slippage_pct, ctx.tick)
    return OrderPlan(
        ctx.instrument_id, spec.symbol, spec.side, "stop_loss", bound, size, trigger, tif="IOC", reduce_only=True,
        trigger=trigger, cloid=cloid, market=True,
    )  # fmt: skip


def trail_spec(
    ctx: OrderContext, distance: str, source: str, price: Decimal | None
) -> tuple[TrailSpec | None, Decimal | None, dict[str, str]]:
    """The trail the form asks for on ``ctx``'s position, and where its first stop goes from ``price`` (the
    source's price now); or errors keyed ``distance`` and ``source``."""
    errors: dict[str, str] = {}
    if ctx.kind != "perp" or not ctx.position:
        return None, None, {"distance": f"no {ctx.symbol} position to trail a stop behind"}
    side: Side = "sell" if ctx.position > 0 else "buy"
    text = distance.strip()
    percent = text.endswith("%")
    value: Decimal | None = None
    try:
        value = parse_positive("distance", text.removesuffix("%").strip(), "distance")
    except FieldError as exc:
        errors["distance"] = exc.message
    if value is not None and percent and value >= 100:
        errors["distance"] = "a distance in percent is less than 100%"
    elif value is not None and not percent and (msg := _off_grid(value, ctx.tick, "tick size", "distance")):
        errors["distance"] = msg
    try:
        chosen = parse_choice("source", source.strip().lower(), SOURCES)
    except FieldError as exc:
        errors["source"] = exc.message
    if errors or value is None:
        return None, None, errors
    spec = TrailSpec(ctx.symbol, side, value, percent, chosen)
    if price is None:
        return None, None, {"source": f"no {chosen} price for {ctx.symbol} yet"}
    trigger = trail_trigger(spec, price, ctx.tick)
    first = None if trigger is None else kept_from_mark(side, trigger, ctx.mark, ctx.tick)
    if first is None:
        return None, None, {"distance": f"{spec.distance_words} from {fmt_decimal(price)} leaves no stop price"}
    return spec, first, {}
