"""The envelopes around results: the /exchange response, the failure body, the paginated list."""

from __future__ import annotations

from typing import Generic, TypeVar

from .base import Record

__all__ = ["ErrorBody", "ExchangeResponse", "Page"]

T = TypeVar("T")
D = TypeVar("D")


class ExchangeResponse(Record, Generic[D], frozen=True):
    """The /exchange envelope. Any field may be absent; ``success`` replaces ``error`` for cancels.

    Decode it untyped (``data`` is Any) and check ``ok`` before reading ``data``: a rejected action's
    ``data`` need not have the success shape, so a typed ``ExchangeResponse[X]`` would hide the error.
    """

    tx_hash: str = ""
    tx_type: int | None = None
    error: str = ""
    success: bool | None = None
    data: D | None = None
    address: str = ""

    @property
    def ok(self) -> bool:
        """True when the action was applied: no error text and ``success`` not false."""
        return not self.error and self.success is not False


class ErrorBody(Record, frozen=True):
    """A failure body: ``{type: "error", message}`` (SDK) or ``{code, message}`` (429/418)."""

    type: str = ""
    message: str = ""
    code: int | None = None


class Page(Record, Generic[T], frozen=True):
    """The paginated list envelope (fills, open_orders, order_history, funding_history, brokers_check)."""

    data: list[T]
    page: int
    limit: int
    total_count: int
    total_pages: int
    has_next: bool
    has_prev: bool
