"""A chart's money axis that says what it shows: limits with room around the values (a single value, or values
all alike, get a band around them, not a zero-height range plotext labels with raw floats such as ``185251.4``)
and ticks labelled as money (``185,251.40``)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from .display import fmt_money

__all__ = ["MoneyAxis", "money_axis"]

TICKS = 5
_MIN_PAD = Decimal(1)  # a flat line of 0 still gets an axis from -1 to 1


class MoneyAxis:
    """Limits and labelled ticks of an axis of money."""

    def __init__(self, lower: Decimal, upper: Decimal, places: int) -> None:
        self.lower, self.upper = lower, upper
        step = (upper - lower) / (TICKS - 1)
        self.ticks = [float(lower + step * i) for i in range(TICKS)]
        self.labels = [fmt_money(lower + step * i, places) for i in range(TICKS)]

    @property
    def limits(self) -> tuple[float, float]:
        return float(self.lower), float(self.upper)


def money_axis(values: Sequence[Decimal], places: int = 2, include_zero: bool = False) -> MoneyAxis:
    """The axis for ``values`` (not empty): their range with a twentieth of it above and below; a range of
    nothing (one value, or all equal) gets a band of a thousandth of the value (at least 1) each side."""
    lo, hi = min(values), max(values)
    if include_zero:
        lo, hi = min(lo, Decimal(0)), max(hi, Decimal(0))
    pad = (hi - lo) / 20 if hi > lo else max(abs(hi) / 1000, _MIN_PAD)
    return MoneyAxis(lo - pad, hi + pad, places)
