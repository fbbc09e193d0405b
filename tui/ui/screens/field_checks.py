"""Checks of what a user types into the account forms: amounts, addresses, whole numbers, choices.

Pure functions, no Textual: each returns the clean value or raises ``FieldError`` naming the field, with
a message the form shows next to it. Amounts stay ``Decimal`` from the text to the wire.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal, InvalidOperation

from tui.api.decimals import DecimalError, parse_decimal
from tui.api.signing import checksum_address, is_checksum_address

__all__ = [
    "FieldError",
    "parse_address",
    "parse_amount",
    "parse_choice",
    "parse_fraction",
    "parse_int",
    "parse_text",
]


class FieldError(ValueError):
    """What is wrong with the value of form field ``field``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def parse_amount(
    field: str,
    text: str,
    *,
    decimals: int,
    maximum: Decimal | None = None,
    unit: str = "",
    limit_name: str = "available",
) -> Decimal:
    """A positive amount with at most ``decimals`` places, not above ``maximum`` (when given)."""
    if not text:
        raise FieldError(field, "enter an amount")
    try:
        value = parse_decimal(text, "amount")  # the one grammar of every edge: ASCII digits, one point
    except DecimalError as exc:
        raise FieldError(field, str(exc)) from None
    if not value.is_finite() or value <= 0:
        raise FieldError(field, "the amount must be more than 0")
    places = -value.normalize().as_tuple().exponent  # type: ignore[operator]
    if places > decimals:
        raise FieldError(field, f"{unit or 'this asset'} has {decimals} decimal places: {value} has {places}")
    if maximum is not None and value > maximum:
        raise FieldError(field, f"more than the {maximum.normalize():f} {unit} {limit_name}".replace("  ", " "))
    return value


def parse_fraction(field: str, text: str, *, maximum: Decimal = Decimal(1), what: str = "rate") -> Decimal:
    """A rate as a fraction from 0 to ``maximum`` (0.001 is 0.1%), or a percentage written with ``%``."""
    raw = text.strip().replace(" ", "")
    percent = raw.endswith("%")
    try:
        value = Decimal(raw.rstrip("%"))
    except InvalidOperation:
        raise FieldError(field, f"the {what} is a fraction like 0.001, or a percentage like 0.1%") from None
    if percent:
        value /= 100
    if not value.is_finite() or not 0 <= value <= maximum:
        raise FieldError(field, f"the {what} must be from 0 to {maximum.normalize():f} ({maximum * 100:f}%)")
    return value.normalize()


def parse_address(field: str, text: str) -> str:
    """An address in EIP-55 form (all lower or all upper case is accepted); returned checksummed."""
    raw = text.strip()
    if not raw:
        raise FieldError(field, "enter an address (0x and 40 hex digits)")
    if not raw.startswith("0x") or len(raw) != 42:
        raise FieldError(field, "an address is 0x and 40 hex digits")
    if not is_checksum_address(raw):
        try:
            checksum_address(raw)
        except ValueError:
            raise FieldError(field, "an address is 0x and 40 hex digits") from None
        raise FieldError(field, "the letter case does not match the EIP-55 checksum: check for a typo")
    return checksum_address(raw)


def parse_int(field: str, text: str, *, lo: int, hi: int, what: str = "value") -> int:
    """A whole number between ``lo`` and ``hi``."""
    raw = text.strip()
    if not raw.isdigit():
        raise FieldError(field, f"the {what} is a whole number from {lo} to {hi}")
    value = int(raw)
    if not lo <= value <= hi:
        raise FieldError(field, f"the {what} must be from {lo} to {hi}, not {value}")
    return value


def parse_choice(field: str, text: str, choices: Iterable[str]) -> str:
    """One of ``choices``, matched without regard to case; returned as the choice is spelt."""
    options = list(choices)
    raw = text.strip().lower()
    for option in options:
        if option.lower() == raw:
            return option
    raise FieldError(field, f"one of {', '.join(options)}")


def parse_text(field: str, text: str, *, max_len: int, what: str = "text", allowed: str = "") -> str:
    """Non-empty text of at most ``max_len`` characters: letters, digits and the ``allowed`` punctuation."""
    raw = text.strip()
    if not raw:
        raise FieldError(field, f"enter the {what}")
    if len(raw) > max_len:
        raise FieldError(field, f"the {what} is at most {max_len} characters")
    if any(not (c.isascii() and (c.isalnum() or c in allowed)) for c in raw):
        extra = f" or {' '.join(allowed)}" if allowed else ""
        raise FieldError(field, f"the {what} takes letters and digits{extra}")
    return raw
