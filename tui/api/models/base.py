"""The base every record shares: immutable, keyword-only, finite decimals only; and ``to_datetime``."""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from decimal import Decimal
from types import UnionType
from typing import Union, get_args, get_origin

import msgspec

__all__ = ["MAX_EXPONENT", "Record", "check_decimal", "to_datetime"]

# |adjusted exponent| beyond this is garbage, and near Decimal's Emax it makes arithmetic raise.
MAX_EXPONENT = 1000


def check_decimal(value: object, name: str) -> None:
    """Reject a decoded decimal that is not finite or absurdly scaled (other types: built in code)."""
    if not isinstance(value, Decimal):
        return
    if not value.is_finite() or not -MAX_EXPONENT <= value.adjusted() <= MAX_EXPONENT:
        raise ValueError(f"`{name}` is not a usable decimal: {str(value)[:32]!r}")


@functools.cache
def _decimal_fields(cls: type) -> tuple[str, ...]:
    """The names of ``cls``'s fields typed ``Decimal`` or ``Decimal | None``."""
    names = []
    for f in msgspec.structs.fields(cls):
        t = f.type
        if t is Decimal or (get_origin(t) in (Union, UnionType) and Decimal in get_args(t)):
            names.append(f.name)
    return tuple(names)


class Record(msgspec.Struct, kw_only=True, frozen=True):
    """Base of every record: immutable, keyword-only, finite decimals only."""

    def __post_init__(self) -> None:
        for name in _decimal_fields(type(self)):
            check_decimal(getattr(self, name), name)


def to_datetime(value: str | int) -> datetime:
    """An interface timestamp as an aware UTC datetime: ISO 8601 string or integer milliseconds."""
    if isinstance(value, int):
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
