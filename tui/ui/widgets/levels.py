"""The trader's prices on one instrument, without Textual: a position's entry, liquidation price and TP/SL, every
resting order, and the fills, as the chart draws them (``chart_layout.Level`` / ``Marker``).

Which order is a TP or an SL is the protection model's word (``tui.trading.protection``), as in the positions pane:
a bracket leg waiting for its entry is drawn "pending TP", a reduce-only order that cannot reduce what is held
"stale"; neither as protection.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal

from tui.api.models import AccountSummary, Fill, Order, Position, to_datetime
from tui.feed.risk import liquidation
from tui.trading.protection import protection

from .chart_layout import Level, Marker
from .display import fmt_size

__all__ = ["chart_levels", "fill_markers"]

MARKERS_KEPT = 200  # the newest fills marked on the chart (more would cover the candles)


def _side_role(buy: bool) -> str:
    return "lv-buy" if buy else "lv-sell"


def _on_tick(price: Decimal, tick: Decimal) -> Decimal:
    return (price / tick).to_integral_value() * tick if tick else price


def chart_levels(
    instrument: str,
    positions: Sequence[Position],
    orders: Sequence[Order],
    mark: Decimal | None,
    summary: AccountSummary | None,
    *,
    tick: Decimal,
    lot: Decimal | None,
) -> tuple[Level, ...]:
    """The lines the chart of ``instrument`` draws: each position's entry and liquidation price, and every open
    order there (its TP/SL named so, a stop at its trigger, a limit at its price, each with its side and size)."""
    out: list[Level] = []
    held = [p for p in positions if p.instrument == instrument and p.size]
    for p in held:
        long = p.size > 0
        out.append(Level(p.entry_price, f"entry {'long' if long else 'short'} {fmt_size(abs(p.size), lot)}",
                         "lv-entry"))  # fmt: skip
        liq = liquidation(p, mark, summary).price
        if liq is not None and liq > 0:
            out.append(Level(_on_tick(liq, tick), "liq", "lv-liq"))
    model = protection(held, [o for o in orders if o.instrument == instrument], {instrument: mark})
    for o in orders:
        if o.instrument != instrument:
            continue
        buy = o.side == "b"
        side = f"{'buy' if buy else 'sell'} {fmt_size(o.unfilled or o.size, lot)}"
        role = model.role(o)
        if role in ("TP", "SL"):
            label = role
        elif role:  # a leg waiting for its entry, or an order that protects nothing: said, never as TP/SL
            label = f"{role} {side}"
        else:
            label = f"stop {side}" if o.trigger_px else side
        price = o.trigger_px or o.limit_price
        if price > 0:
            out.append(Level(price, label, _side_role(buy)))
    return tuple(out)


def fill_markers(instrument: str, fills: Iterable[Fill]) -> tuple[Marker, ...]:
    """The trader's fills on ``instrument`` (the newest ``MARKERS_KEPT``), as chart markers."""
    out: list[Marker] = []
    for f in fills:
        if f.instrument != instrument:
            continue
        ms = int(to_datetime(f.block_timestamp).timestamp() * 1000)
        out.append(Marker(ms, f.price, f.side == "b"))
        if len(out) >= MARKERS_KEPT:
            break
    return tuple(out)
