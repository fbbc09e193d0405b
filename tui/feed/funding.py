"""Funding: how often it is paid, when the next payment is, and what a position has paid or received so far.

The exchange's ticker gives a rate but not its period. The account's funding records do: payments fall on
the period's boundaries, so the smallest gap between two settlement times is the period (``period_from``).
Until the account has two, the period is ``DEFAULT_PERIOD_S``, the local exchange's hour. Payments fall on
whole multiples of the period on the exchange's clock (``next_payment_s``).

What a position has paid: the sum of the account's funding records for its instrument after the fill that
opened it (from flat, or flipping the side; a settlement stamped at the fill's very time was of what was held
before). When that fill is older than the fills held, the records are summed back while they are of a position
on the same side: an estimate (``FundingPaid.estimate``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal

import msgspec

from tui.api.models import Fill, FundingRecord, Position, to_datetime

__all__ = [
    "DEFAULT_PERIOD_S",
    "YEAR_S",
    "FundingPaid",
    "annualised",
    "funding_paid",
    "next_payment_s",
    "opened_at",
    "period_from",
]

DEFAULT_PERIOD_S = 3_600  # the local exchange settles funding every hour
YEAR_S = 365 * 86_400
MIN_PERIOD_S = 60  # gaps shorter than this are not periods (two records of one settlement)
MAX_PERIOD_S = 86_400
_ZERO = Decimal(0)


def period_from(records: Iterable[FundingRecord]) -> int | None:
    """The funding period in seconds, from the account's records: the smallest gap between two distinct
    settlement times (a settlement with a zero rate pays nothing, so a gap may span several periods);
    None with fewer than two settlement times."""
    times = sorted({int(to_datetime(r.timestamp).timestamp()) for r in records})
    gaps = [b - a for a, b in itertools.pairwise(times) if b - a >= MIN_PERIOD_S]
    if not gaps:
        return None
    return min(min(gaps), MAX_PERIOD_S)


def next_payment_s(now_s: float, period_s: int) -> float:
    """Seconds from ``now_s`` (the exchange's epoch seconds) to the next funding payment."""
    return period_s - now_s % period_s


def annualised(rate: Decimal, period_s: int) -> Decimal:
    """A rate per ``period_s`` as a rate per year (simple, not compounded)."""
    return rate * YEAR_S / period_s


def _sign(x: Decimal) -> int:
    return (x > 0) - (x < 0)


def opened_at(position: Position, fills: Iterable[Fill]) -> datetime | None:
    """When ``position`` was opened: the newest fill of its instrument that started it from flat or flipped
    the side to its own; None when no held fill did."""
    side = _sign(position.size)
    newest: datetime | None = None
    for f in fills:
        if f.instrument_id != position.instrument_id:
            continue
        signed = f.size if f.side == "b" else -f.size
        before, after = _sign(f.start_size), _sign(f.start_size + signed)
        if after == side and before != side:
            at = to_datetime(f.block_timestamp)
            newest = at if newest is None or at > newest else newest
    return newest


class FundingPaid(msgspec.Struct, frozen=True):
    """Funding received (+) or paid (-) on a position since it opened; ``estimate``: its opening fill is
    not among those held, so the records were summed back while on the position's side."""

    amount: Decimal
    payments: int
    estimate: bool


def funding_paid(position: Position, fills: Iterable[Fill], records: Iterable[FundingRecord]) -> FundingPaid:
    """What ``position`` has received (+) or paid (-) in funding since it opened. ``records`` newest first, as
    ``AccountState.funding`` keeps them: only those of the position's life are read."""
    mine = (r for r in records if r.instrument_id == position.instrument_id)
    since = opened_at(position, fills)
    side = _sign(position.size)
    total, count = _ZERO, 0
    for r in mine:
        if since is not None and to_datetime(r.timestamp) <= since:
            break  # at the opening fill's very time too: settled before it, on what was held then
        if since is None and _sign(r.size) != side:
            break
        total += r.funding_payment
        count += 1
    return FundingPaid(total, count, since is None)
