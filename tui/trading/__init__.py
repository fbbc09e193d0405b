"""What a trader's tools decide, without Textual or Rich: order entry, closing and amending, brackets and scales,
settling a lost answer from the exchange's record, the TWAP runner, and the grammar every form's fields are
parsed with. The dashboard (``tui.ui``) shows and asks; this package checks, plans and sends.

Order entry parses and validates what the form holds and builds the placeOrder item. Everything is checked
before anything is sent: tick and lot multiples, the minimum notional, the margin (what the order adds to the
position, over the leverage in force, against the available balance), reduce-only without a position to reduce,
post-only that would cross, trigger prices on the wrong side of the mark. A failure is a message keyed by the
form field it belongs to, so the form can show it under that field. Values stay ``Decimal``.

Market orders are bounded: every market order (a close, a stop or TP/SL at market too) carries a
protection price ``slippage_pct`` beyond the best price on its side (the trigger price for a trigger
order), rounded to the tick toward the best price, so it never fills worse than that. Before a market
order is sent its fill is estimated from the visible book (``estimate_fill``); when the book cannot fill
it within the bound, the trader is asked (``confirmation_reasons``).

Modules: ``orders`` (the form's model, ``validate``, estimates, confirmation rules), ``grammar`` (the field
parsers), ``closing``, ``exits``, ``scale`` (the plans of a close, an amend, TP/SL, a scale), ``context`` (an
order's view of the market, from the feed), ``risk_preview`` (an order's margin, fee, liquidation price and
available balance after it), ``outcomes`` (answers and failures read), ``settle`` (a lost answer settled from
the record), ``twap``.
"""

from __future__ import annotations

from .closing import amend_input, close_part_plan, close_position_plan, freed_by
from .exits import bracket_plans, position_exit_plans
from .orders import (
    DEFAULT_SLIPPAGE_PCT,
    KINDS,
    SIZE_UNITS,
    TIFS,
    ConfirmPolicy,
    FillEstimate,
    OrderContext,
    OrderInput,
    OrderPlan,
    Side,
    Validation,
    confirmation_reasons,
    estimate_fill,
    fmt_decimal,
    market_estimate,
    protection_price,
    validate,
)  # fmt: skip
from .scale import SCALE_MAX, SCALE_WEIGHTS, ScalePlan, scale_group_of, scale_plan

__all__ = [
    "DEFAULT_SLIPPAGE_PCT",
    "KINDS",
    "SCALE_MAX",
    "SCALE_WEIGHTS",
    "SIZE_UNITS",
    "TIFS",
    "ConfirmPolicy",
    "FillEstimate",
    "OrderContext",
    "OrderInput",
    "OrderPlan",
    "ScalePlan",
    "Side",
    "Validation",
    "amend_input",
    "bracket_plans",
    "close_part_plan",
    "close_position_plan",
    "confirmation_reasons",
    "estimate_fill",
    "fmt_decimal",
    "freed_by",
    "market_estimate",
    "position_exit_plans",
    "protection_price",
    "scale_group_of",
    "scale_plan",
    "validate",
]
