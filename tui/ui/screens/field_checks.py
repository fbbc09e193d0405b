"""Checks of what a user types into the account forms: amounts, addresses, whole numbers, choices, passwords.

The checks themselves are ``tui.order_entry.grammar`` (no Textual: the one grammar every form uses); this module
is where the screens take them from. Each returns the clean value or raises ``FieldError`` naming the field.
``parse_int`` is the grammar's ``parse_whole``: ASCII digits only, bounded.
"""

from __future__ import annotations

from tui.order_entry.grammar import (
    FieldError,
    parse_address,
    parse_amount,
    parse_choice,
    parse_cloid,
    parse_fraction,
    parse_password,
    parse_positive,
    parse_text,
)
from tui.order_entry.grammar import parse_whole as parse_int

__all__ = [
    "FieldError",
    "parse_address",
    "parse_amount",
    "parse_choice",
    "parse_cloid",
    "parse_fraction",
    "parse_int",
    "parse_password",
    "parse_positive",
    "parse_text",
]
