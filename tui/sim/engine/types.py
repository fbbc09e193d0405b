"""What one part of the engine reads of another, as protocols, so that the parts need not import each other:

- a position (``accounts.Position``) reads its market's mark and perp spec (``Marked``: ``markets.Market``);
- a fill (``records.Fill``) reads its order's id, client id, size and price (``OrderRef``: ``accounts.Order``).

The markets import the accounts (a market's holders and resting orders) and the accounts the records (an account's
fills), so neither arrow may run back.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Protocol

from .instruments import PerpSpec

__all__ = ["Marked", "OrderRef"]


class Marked(Protocol):
    """A perp market as a position reads it: its mark now, and its spec (tiers, leverage)."""

    @property
    def mark(self) -> Decimal: ...

    @property
    def perp(self) -> PerpSpec: ...


class OrderRef(Protocol):
    """An order as its fills read it: which order, and its size and price as placed."""

    @property
    def oid(self) -> int: ...

    @property
    def cloid(self) -> str: ...

    @property
    def size(self) -> Decimal: ...

    @property
    def price(self) -> Decimal: ...
