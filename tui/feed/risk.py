"""Risk figures a trader acts on, from the account summary: liquidation prices and the margin in use.

The exchange's liquidation price is taken whenever it gives one (a positive ``liquidation_price``). When it
gives none, the price is derived here, the way the exchange defines it, and marked as an estimate:

- **cross**: the mark ``p`` at which, other marks fixed, the account's margin balance equals its
  maintenance margin. With ``B`` the margin balance less this position's uPnL, ``M`` the maintenance
  margin of everything else, ``s`` the signed size, ``e`` the entry and ``r`` this position's maintenance
  rate (its maintenance margin over its notional at the mark)::

      B + s * (p - e) = M + r * |s| * p   =>   p = (M - B + s * e) / (s - r * |s|)

- **isolated**: the same with ``B`` the position's own margin and ``M`` = 0.

A long whose ``p`` is not positive cannot be liquidated by the price alone: the answer is "none", with the
reason. ``margin_in_use`` counts isolated margin too: the summary's ``initial_margin`` holds only the
cross part.
"""

from __future__ import annotations

from decimal import Decimal

import msgspec

from tui.api.models import AccountSummary, Position

__all__ = ["Liquidation", "liquidation", "margin_in_use"]

ZERO = Decimal(0)
NO_PRICE_REACHES = "equity covers a fall to 0"


class Liquidation(msgspec.Struct, frozen=True):
    """A position's liquidation price: ``price`` None when no price reaches it (``reason`` says why) or when
    it cannot be told yet (``reason`` empty); ``estimate`` when derived here rather than given."""

    price: Decimal | None
    estimate: bool = False
    reason: str = ""


def _isolated(p: Position) -> bool:
    return p.margin_mode.lower().startswith("iso")


def liquidation(p: Position, mark: Decimal | None, summary: AccountSummary | None) -> Liquidation:
    """The liquidation price of ``p`` (see the module's notes)."""
    leg = summary.perp_positions.get(p.instrument) if summary is not None else None
    if leg is not None and leg.liquidation_price > 0:
        return Liquidation(leg.liquidation_price)
    if summary is None or leg is None or mark is None or not mark or not p.size:
        return Liquidation(None)
    size = p.size
    rate = leg.mm / (abs(size) * mark) if leg.mm else ZERO
    if _isolated(p):
        base, others = leg.im, ZERO
    else:
        base = summary.margin_balance - leg.upnl
        others = summary.maintenance_margin - leg.mm
    denominator = size - rate * abs(size)
    if not denominator:
        return Liquidation(None)
    price = (others - base + size * p.entry_price) / denominator
    if price <= 0:
        return Liquidation(None, estimate=True, reason=NO_PRICE_REACHES)
    return Liquidation(price, estimate=True)


def margin_in_use(summary: AccountSummary, positions: list[Position]) -> Decimal:
    """Initial margin held: the cross part the summary gives plus every isolated position's own margin."""
    isolated = {p.instrument for p in positions if _isolated(p)}
    return summary.initial_margin + sum(
        (leg.im for name, leg in summary.perp_positions.items() if name in isolated), ZERO
    )
