"""The trader's prices on one instrument, without Textual: a position's entry, liquidation price and TP/SL, every
resting order, and the fills, as the chart draws them (``chart_layout.Level`` / ``Marker``) and as the
positions pane says a position's TP/SL.

A position's TP and SL are its instrument's open trigger orders that are reduce-only (or marked TP/SL by the
exchange); one the exchange does not mark is a TP when it triggers on the profitable side of the entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal

import msgspec

from tui.api.models import AccountSummary, Fill, Order, Position, to_datetime
from tui.feed.risk import liquidation

from .chart_layout import Level, Marker
from .display import fmt_size

__all__ = ["Exits", "chart_levels", "fill_markers", "position_exits"]

MARKERS_KEPT = 200  # the newest fills marked on the chart (more would cover the candles)


class Exits(msgspec.Struct, frozen=True):
    """A position's take-profit and stop-loss trigger prices (None: none set); the nearest when several."""

    tp: Decimal | None
    sl: Decimal | None


def _is_exit(o: Order, p: Position) -> bool:
    return o.instrument == p.instrument and bool(o.trigger_px) and (o.reduce_only or o.tpsl in ("tp", "sl"))


def _kind(o: Order, p: Position) -> str:
    """``tp`` or ``sl``: as the exchange marks it, else by the side of the entry its trigger is on."""
    if o.tpsl in ("tp", "sl"):
        return o.tpsl
    above = o.trigger_px > p.entry_price
    return "tp" if above == (p.size > 0) else "sl"


def position_exits(p: Position, orders: Iterable[Order]) -> Exits:
    """``p``'s TP and SL from the open ``orders``: the trigger nearest the entry of each kind."""
    tps: list[Decimal] = []
    sls: list[Decimal] = []
    for o in orders:
        if _is_exit(o, p):
            (tps if _kind(o, p) == "tp" else sls).append(o.trigger_px)
    return Exits(_nearest(tps, p.entry_price), _nearest(sls, p.entry_price))


def _nearest(prices: list[Decimal], to: Decimal) -> Decimal | None:
    return min(prices, key=lambda x: abs(x - to)) if prices else None


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
    for o in orders:
        if o.instrument != instrument:
            continue
        buy = o.side == "b"
        exit_of = next((p for p in held if _is_exit(o, p)), None)
        if exit_of is not None:
            label = _kind(o, exit_of).upper()
        else:
            side = f"{'buy' if buy else 'sell'} {fmt_size(o.unfilled or o.size, lot)}"
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
