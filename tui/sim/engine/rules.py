"""Rules the exchange interface does not settle, where the engine picks one (docs/sim-rules.md lists them all).

``batch``: what one bad order in a placeOrder of several does. ``all-or-nothing`` (the default): an order that
fails a check of its own (instrument, tick, lot, minimum notional, flags) refuses the whole action, nothing placed.
``per-order``: that order gets ``{"error": ...}`` in its status slot and the others go on; the action is refused
only when every order fails. Under both, a check that depends on the state the batch meets as it runs (margin,
post-only crossing, IOC/FOK without liquidity, reduce-only) is that order's own error: earlier orders may have
traded by then, and a trade is not taken back.

``duplicate_cloid``: an order whose cloid an open order of the same account already carries. ``accept`` (the
default): both rest, and a cancel by that cloid cancels every one. ``refuse``: the new order is refused, naming the
open order, so a cloid names at most one open order.
"""

from __future__ import annotations

from typing import Literal, get_args

BatchRule = Literal["all-or-nothing", "per-order"]
BATCH_RULES: tuple[BatchRule, ...] = get_args(BatchRule)
CloidRule = Literal["accept", "refuse"]
CLOID_RULES: tuple[CloidRule, ...] = get_args(CloidRule)
