"""One decimal grammar for every edge: ASCII digits with at most one decimal point, and nothing else.

No sign, no exponent, no spaces, no thousands separators, no digits of other scripts (a full-width "１"
is refused, not read as 1), no NaN or infinity. The local exchange's bodies, the order form, the wallet
forms, the config file and the command line all read numbers with ``parse_decimal``, so "1e5", "+1",
"1 " and "１" are refused everywhere with the same words, and nothing ever shows a price as ``1E+5``.
"""

from __future__ import annotations

import re
from decimal import Decimal

__all__ = ["PLAIN_DECIMAL", "DecimalError", "decimal_places", "is_plain_decimal", "parse_decimal"]

PLAIN_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_RULE = "ASCII digits and at most one point: no sign, exponent, spaces or separators"


class DecimalError(ValueError):
    """A text that is not a plain decimal; the message names the field and says what is wrong."""


def is_plain_decimal(text: str) -> bool:
    return PLAIN_DECIMAL.fullmatch(text) is not None


def parse_decimal(text: str, field: str) -> Decimal:
    """``text`` as a Decimal when it is a plain decimal, else ``DecimalError``:
    'price: "1e5" is not a plain decimal (ASCII digits and at most one point: ...)'."""
    if not isinstance(text, str) or not text:
        raise DecimalError(f"{field}: a number is required")
    if PLAIN_DECIMAL.fullmatch(text) is None:
        shown = text if len(text) <= 24 else text[:21] + "..."
        raise DecimalError(f'{field}: "{shown}" is not a plain decimal ({_RULE})')
    return Decimal(text)


def decimal_places(step: Decimal | None, default: int = 0) -> int:
    """The decimal places ``step`` is written with, trailing zeros dropped (0.010: 2, 100: 0, 1E+2: 0); ``default``
    without a step (None or 0) and for NaN or infinity, which have none."""
    if not step:
        return default
    exponent = step.normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else default
