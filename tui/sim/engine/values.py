"""Exact values at the engine's edges: parsing decimals and ids, rendering decimals and timestamps.

Money is ``Decimal`` throughout. Inputs are parsed here with clear ``Rejected`` messages; outputs are
rendered here (decimal strings without exponent, ISO 8601 UTC with milliseconds).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import ROUND_DOWN, Decimal
from typing import Any

from tui.api.decimals import is_plain_decimal

from .errors import Rejected

ZERO = Decimal(0)
ONE = Decimal(1)
#: Quantum of derived figures (entry prices, margins, ratios): enough digits, bounded length.
FIGURE_Q = Decimal("1e-8")
#: Quantum of amounts the ledger computes by division (realised cost, vault shares and amounts).
LEDGER_Q = Decimal("1e-10")

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def parse_decimal(value: Any, field: str, *, positive: bool = False) -> Decimal:
    """A finite, non-negative decimal (strictly positive if ``positive``) from a JSON string or integer.

    Floats are refused: a float has already lost the digits the user typed.
    """
    if isinstance(value, Decimal):
        d = value
    elif isinstance(value, str):
        if not value:
            raise Rejected(f"{field} is empty")
        if not is_plain_decimal(value):  # the one grammar of every edge (tui.api.decimals)
            raise Rejected(f"{field} {value!r} is not a plain decimal (ASCII digits and at most one point)")
        d = Decimal(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        d = Decimal(value)
    else:
        raise Rejected(f"{field} must be a decimal string, got {type(value).__name__}")
    if not d.is_finite():
        raise Rejected(f"{field} {value!r} is not a finite number")
    if d and not -30 <= d.adjusted() <= 30:
        raise Rejected(f"{field} {value!r} is out of range")
    if d < 0 or (positive and not d):
        raise Rejected(f"{field} must be {'positive' if positive else 'non-negative'}, got {value}")
    return d


def parse_int(value: Any, field: str) -> int:
    """An integer from a JSON integer or a decimal string holding one."""
    if isinstance(value, bool):
        raise Rejected(f"{field} must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, str | Decimal):
        d = parse_decimal(value, field) if isinstance(value, str) else value
        if d.is_finite() and d == d.to_integral_value():
            return int(d)
    raise Rejected(f"{field} must be an integer, got {value!r}")


def dstr(d: Decimal) -> str:
    """A decimal as the exchange writes it: plain notation, no trailing zeros, ``0`` for zero."""
    if not d:
        return "0"
    text = format(d.normalize(), "f")
    return text


def num(d: Decimal) -> Decimal:
    """A derived figure for a JSON number field: rounded to 8 places, no trailing zeros, no exponent."""
    q = d.quantize(FIGURE_Q).normalize()
    if not q:
        return ZERO
    exp = q.as_tuple().exponent
    return q.quantize(ONE) if isinstance(exp, int) and exp > 0 else q


def q8(d: Decimal) -> Decimal:
    """Round a derived figure to 8 decimal places (toward zero)."""
    return d.quantize(FIGURE_Q, rounding=ROUND_DOWN)


def iso_ms(ms: int) -> str:
    """ISO 8601 UTC with milliseconds, e.g. ``2026-01-01T00:00:00.000Z`` (integer arithmetic, no floats)."""
    dt = _EPOCH + timedelta(milliseconds=ms)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def decimals_of(d: Decimal) -> int:
    """How many decimal places ``d`` really uses (``1.50`` uses 1)."""
    exp = d.normalize().as_tuple().exponent
    assert isinstance(exp, int)
    return max(0, -exp)
