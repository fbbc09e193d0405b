"""What an exit makes or loses, before it is sent: the PnL of each way out of a position (a take-profit, a stop-loss,
a close), fees in; a market exit's PnL at the worst fill its slippage bound allows too; and the reward to risk of a
take-profit and a stop together. The exit dialogs (TP/SL, bracket, close, OCO) show these lines as the trader types.

Closing ``q`` of a long entered at ``e`` at the price ``P`` (a short: the sign of the gross turned over)::

    gross = q * (P - e)        fees = fee(q at P) + entry fee        PnL = gross - fees

Fees counted: the exit's own fee, always, at the rate it pays (``risk_preview.is_maker``: the taker rate for a market
or triggered exit and for a limit through the book, the maker rate, a rebate when negative, for a limit that rests),
computed as the order form computes its fee (``risk_preview.order_fee``). The entry's fee only where the entry is not
placed yet (a bracket's, at its limit price or, at market, at the touch): a position's entry fee is paid already, and
is not counted again. Funding is not counted.

Each exit is priced at the level the trader typed (a trigger, a limit price; a market close at the touch), and a
market exit (a triggered TP/SL, an OCO's stop, a market close) also at its slippage bound (``protection_price``: the
worst fill it accepts, never better than its level). The reward to risk is the take-profit's PnL over the stop's
loss, both at their levels; it is not known when the stop does not lose. Anything not known (no price typed, no
mark, an unparsable field, the fee rates not read yet, the position's entry) is None, shown ``—``, never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

import msgspec

from .orders import OrderContext, OrderPlan
from .risk_preview import UNKNOWN, RiskInputs, is_maker, on_tick, order_fee

__all__ = [
    "ExitOutcome",
    "entry_fee",
    "exit_lines",
    "exit_outcome",
    "exit_pnl",
    "realized_line",
    "reward_to_risk",
    "signed_money",
]

ZERO = Decimal(0)


class ExitOutcome(msgspec.Struct, frozen=True):
    """One exit as a dialog shows it: its level and PnL there; a market exit's worst fill and PnL there."""

    level: Decimal  # the trigger or limit price typed; a market close's touch
    pnl: Decimal | None  # at ``level``, fees in
    worst: Decimal | None = None  # a market exit's slippage bound (None: a limit fills at its price or better)
    worst_pnl: Decimal | None = None  # at ``worst``, fees in


def exit_pnl(
    long: bool, size: Decimal, entry: Decimal, price: Decimal, exit_fee: Decimal, paid_in: Decimal = ZERO
) -> Decimal:
    """The PnL of closing ``size`` (> 0) of a long (``long``) or short entered at ``entry`` at ``price``, less the
    exit's fee and the entry's fee ``paid_in`` (0 for a position held: its entry fee is paid)."""
    gross = (price - entry) * size if long else (entry - price) * size
    return gross - exit_fee - paid_in


def reward_to_risk(reward: Decimal | None, risk: Decimal | None) -> Decimal | None:
    """The take-profit's PnL ``reward`` over the stop's loss (``risk``: the stop's PnL, < 0); None when either is not
    known or the stop does not lose (nothing at risk)."""
    if reward is None or risk is None or risk >= 0:
        return None
    return reward / -risk


def entry_fee(entry: OrderPlan, ctx: OrderContext, inputs: RiskInputs | None) -> Decimal | None:
    """The fee of an entry not placed yet (a bracket's), filled whole at its reference price (its limit price, or the
    touch at market); None while the fee rates are not read."""
    if inputs is None:
        return None
    return order_fee(inputs, entry.size, entry.reference_price, maker=is_maker(entry, ctx))


def exit_outcome(
    plan: OrderPlan,
    entry: Decimal | None,
    ctx: OrderContext,
    inputs: RiskInputs | None,
    paid_in: Decimal | None = ZERO,
) -> ExitOutcome:
    """What ``plan`` (a reduce-only exit: a sell closes a long) makes closing its size of a position entered at
    ``entry``, ``paid_in`` the entry's fee still to pay (a bracket's; 0 for a position held; None: not known)."""
    level = plan.trigger if plan.trigger is not None else plan.reference_price if plan.is_market else plan.price
    worst = plan.price if plan.is_market and plan.price else None
    maker = is_maker(plan, ctx)
    long = plan.side == "sell"

    def at(price: Decimal) -> Decimal | None:
        fee = order_fee(inputs, plan.size, price, maker=maker) if inputs is not None else None
        if entry is None or fee is None or paid_in is None:
            return None
        return exit_pnl(long, plan.size, entry, price, fee, paid_in)

    return ExitOutcome(level, at(level), worst, at(worst) if worst is not None else None)


def signed_money(value: Decimal | None) -> str:
    """A PnL at the collateral's two decimals with its sign (+10.00, -10.50), or ``—``."""
    return UNKNOWN if value is None else f"{value:+,.2f}"


def _at_worst(outcome: ExitOutcome, tick: Decimal) -> str:
    if outcome.worst is None:
        return ""
    return f" · {signed_money(outcome.worst_pnl)} at worst {on_tick(outcome.worst, tick)}"  # a form has 70 columns


def exit_lines(legs: Sequence[tuple[str, ExitOutcome | None]], tick: Decimal, *, rr: bool = False) -> list[str]:
    """A dialog's lines: one per named exit (``TP 101,000.0: +9.50``, a market exit's PnL at its worst fill after it:
    ``· -0.60 at worst 99,990.0``; ``SL —`` while it is not known), and with ``rr`` the reward to risk of the first
    leg (the take-profit) over the second (the stop): ``R:R 2.0 (fees in)``, or ``R:R —``."""
    lines = [
        f"{name} {UNKNOWN}"
        if o is None
        else f"{name} {on_tick(o.level, tick)}: {signed_money(o.pnl)}{_at_worst(o, tick)}"
        for name, o in legs
    ]
    if rr:
        tp, sl = (legs[0][1], legs[1][1]) if len(legs) > 1 else (None, None)
        ratio = reward_to_risk(tp.pnl if tp else None, sl.pnl if sl else None)
        lines.append(f"R:R {UNKNOWN if ratio is None else f'{ratio:,.1f}'} (fees in)")
    return lines


def realized_line(outcome: ExitOutcome | None, tick: Decimal) -> str:
    """A close's line: ``realized +5.10 at 100,500.0`` (a market close: at the touch, then at its worst fill)."""
    if outcome is None:
        return f"realized {UNKNOWN}"
    return f"realized {signed_money(outcome.pnl)} at {on_tick(outcome.level, tick)}{_at_worst(outcome, tick)}"
