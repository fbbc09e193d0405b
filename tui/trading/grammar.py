"""The one grammar of what a user types into a form: numbers, addresses, names, passwords and choices.

Pure functions, no Textual. Each returns the clean value or raises ``FieldError`` naming the field, with a
message the form shows next to it; none raises anything else, whatever the text (property-tested in
``tests/test_form_grammar.py``). Numbers are ASCII digits only: decimals follow ``tui.api.decimals`` (at most one
point; no sign, exponent, spaces, separators, NaN or infinity), whole numbers are digits alone and bounded, so a
superscript "²" or an Arabic-Indic "٣" is refused, never read as a number.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from typing import TypeVar

from tui.api.decimals import DecimalError, decimal_places, parse_decimal
from tui.api.signing import checksum_address, is_checksum_address

__all__ = [
    "CLOID_MAX",
    "MAX_NUMBER_CHARS",
    "FieldError",
    "is_multiple",
    "parse_address",
    "parse_amount",
    "parse_choice",
    "parse_cloid",
    "parse_fraction",
    "parse_password",
    "parse_positive",
    "parse_text",
    "parse_whole",
]

C = TypeVar("C", bound=str)  # a choice: a Literal's values come back as that Literal

MAX_NUMBER_CHARS = 64  # no price, size or count needs more; a longer text is refused before it is read
CLOID_MAX = 128  # a client order id's characters
MAX_PASSWORD = 1024  # a keystore password longer than this is a paste gone wrong
_WHOLE = re.compile(r"[0-9]+")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
_NOT_TYPABLE = frozenset({"Cc", "Cs", "Cn"})  # control characters, lone surrogates, unassigned code points


class FieldError(ValueError):
    """What is wrong with the value of form field ``field``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def _shown(text: str) -> str:
    """The text as a message quotes it: short, and with control characters made visible."""
    cut = text if len(text) <= 24 else text[:21] + "..."
    return repr(cut)


def parse_whole(field: str, text: str, *, lo: int, hi: int, what: str = "value") -> int:
    """A whole number of ASCII digits from ``lo`` to ``hi`` (surrounding spaces are forgiven)."""
    raw = text.strip(" ")
    rule = f"the {what} is a whole number from {lo} to {hi}"
    if not raw:
        raise FieldError(field, f"enter the {what}: a whole number from {lo} to {hi}")
    if _WHOLE.fullmatch(raw) is None:
        raise FieldError(field, f"{rule} (digits 0-9 only), not {_shown(raw)}")
    digits = raw.lstrip("0") or "0"
    if len(digits) > len(str(hi)):  # refused before int(): a 10,000-digit text is not read
        raise FieldError(field, f"the {what} must be from {lo} to {hi}")
    value = int(digits)
    if not lo <= value <= hi:
        raise FieldError(field, f"the {what} must be from {lo} to {hi}, not {value}")
    return value


def parse_positive(field: str, text: str, what: str | None = None) -> Decimal:
    """A positive decimal as the order form reads it: the plain-decimal grammar, more than 0, and within
    1e-30 to 1e30 (messages name ``what``, the field by default)."""
    name = what or field
    if not text:
        raise FieldError(field, f"{name} is required")
    if len(text) > MAX_NUMBER_CHARS:
        raise FieldError(field, f"{name}: at most {MAX_NUMBER_CHARS} characters")
    try:
        value = parse_decimal(text, name)
    except DecimalError as exc:
        raise FieldError(field, str(exc)) from None
    if value <= 0:
        raise FieldError(field, f"{name} must be greater than 0")
    if abs(value.adjusted()) > 30:
        raise FieldError(field, f"{name}: {text!r} is out of range")
    return value


def is_multiple(value: Decimal, step: Decimal) -> bool:
    """Whether ``value`` is a whole number of ``step``s, exactly at any size (``value % step`` raises
    InvalidOperation once the quotient passes the context's 28 digits: 1e30 on a 0.1 tick)."""
    return Fraction(value) % Fraction(step) == 0


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
    if len(text) > MAX_NUMBER_CHARS:
        raise FieldError(field, f"an amount has at most {MAX_NUMBER_CHARS} characters")
    try:
        value = parse_decimal(text, "amount")
    except DecimalError as exc:
        raise FieldError(field, str(exc)) from None
    if value <= 0:
        raise FieldError(field, "the amount must be more than 0")
    places = decimal_places(value)
    if places > decimals:
        raise FieldError(field, f"{unit or 'this asset'} has {decimals} decimal places: {value} has {places}")
    if maximum is not None and value > maximum:
        raise FieldError(field, f"more than the {maximum.normalize():f} {unit} {limit_name}".replace("  ", " "))
    return value


def parse_fraction(field: str, text: str, *, maximum: Decimal = Decimal(1), what: str = "rate") -> Decimal:
    """A rate as a fraction from 0 to ``maximum`` (0.001 is 0.1%), or a percentage written with ``%``;
    the number itself in the plain-decimal grammar (zero allowed)."""
    raw = text.strip(" ")
    percent = raw.endswith("%")
    number = raw[:-1].rstrip(" ") if percent else raw
    rule = f"the {what} is a fraction like 0.001, or a percentage like 0.1%"
    if not number or len(number) > MAX_NUMBER_CHARS:
        raise FieldError(field, rule)
    try:
        value = parse_decimal(number, what)
    except DecimalError:
        raise FieldError(field, rule) from None
    if percent:
        value /= 100
    if not value <= maximum:
        raise FieldError(field, f"the {what} must be from 0 to {maximum.normalize():f} ({maximum * 100:f}%)")
    return value.normalize()


def parse_address(field: str, text: str) -> str:
    """An address: 0x and 40 ASCII hex digits, in EIP-55 form (all lower or all upper case is accepted);
    returned checksummed."""
    raw = text.strip(" ")
    if not raw:
        raise FieldError(field, "enter an address (0x and 40 hex digits)")
    if _ADDRESS.fullmatch(raw) is None:
        raise FieldError(field, "an address is 0x and 40 hex digits")
    if not is_checksum_address(raw):
        raise FieldError(field, "the letter case does not match the EIP-55 checksum: check for a typo")
    return checksum_address(raw)


def parse_choice(field: str, text: str, choices: Iterable[C]) -> C:
    """One of ``choices``, matched without regard to case; returned as the choice is spelt."""
    options = list(choices)
    raw = text.strip().lower()
    for option in options:
        if option.lower() == raw:
            return option
    raise FieldError(field, f"one of {', '.join(options)}")


def parse_text(field: str, text: str, *, max_len: int, what: str = "text", allowed: str = "") -> str:
    """Non-empty text of at most ``max_len`` characters: ASCII letters, digits and the ``allowed`` punctuation."""
    raw = text.strip(" ")
    if not raw:
        raise FieldError(field, f"enter the {what}")
    if len(raw) > max_len:
        raise FieldError(field, f"the {what} is at most {max_len} characters")
    if any(not (c.isascii() and (c.isalnum() or c in allowed)) for c in raw):
        extra = f" or {' '.join(allowed)}" if allowed else ""
        raise FieldError(field, f"the {what} takes letters and digits{extra}")
    return raw


def parse_cloid(field: str, text: str) -> str:
    """A client order id: at most ``CLOID_MAX`` printable ASCII characters, no spaces (surrounding ones are
    forgiven); empty is none."""
    raw = text.strip(" ")
    if len(raw) > CLOID_MAX:
        raise FieldError(field, f"client order id: at most {CLOID_MAX} characters")
    if any(not "!" <= c <= "~" for c in raw):
        raise FieldError(field, "client order id: ASCII letters, digits and punctuation, no spaces")
    return raw


def parse_password(field: str, text: str, *, min_len: int, max_len: int = MAX_PASSWORD) -> str:
    """A password of ``min_len`` to ``max_len`` characters, any script's letters but no control characters (a NUL
    or a newline cannot be typed again at the next unlock) and no code point that is not a character (a lone
    surrogate cannot be encoded to derive the key). Returned exactly as typed: spaces count."""
    if len(text) < min_len:
        raise FieldError(field, f"at least {min_len} characters")
    if len(text) > max_len:
        raise FieldError(field, f"at most {max_len} characters")
    if any(unicodedata.category(c) in _NOT_TYPABLE for c in text):
        raise FieldError(field, "letters, digits, spaces and punctuation only: no control characters")
    return text
