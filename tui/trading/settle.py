"""What became of an order whose answer was lost: read back from the exchange's own record, by its cloid.

An order is signed with an ``expiresAfter`` E (the exchange's ms): the exchange applies it only before E on its
own clock. So an order the record does not hold is known not to have happened once the exchange itself says
its time is past E (the ``Date`` of the first answer of the search); until then it may still arrive (a frozen
exchange, a request waiting in a socket) and its outcome stays unknown: ``Unsettled``. A tool that moves money
sends nothing more while a step of it is unsettled.

Found, the order's filled size is the record's (``size - unfilled``); its fills (by order id) give the price.
Nothing here imports Textual.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import msgspec

from tui.api.client import Client
from tui.api.errors import ClientError
from tui.api.models import ExchangeResponse, Order
from tui.api.server_time import date_ms

from .cloids import tool_named, with_tool_cloids
from .orders import OrderPlan, fmt_decimal

__all__ = [
    "PLACE_EXPIRY_S", "SEARCH_PAGES", "Placed", "Settled", "Unsettled", "exchange_time_ms", "settle_order",
    "settle_within", "with_cloids",
]  # fmt: skip

SEARCH_PAGES = 20  # pages of 100 searched in each list before the search says it cannot tell
PAGE = 100
DATE_SLACK_MS = 1000  # a Date header names a whole second, and may be a little stale
# read by tui.trading.placement as it places (a test shortens them)
PLACE_EXPIRY_S = 15.0  # an order the exchange has not seen by then never goes: a lost answer is settled soon
SETTLE_LIMIT_S = 45.0  # how long a one-off placement asks the record before it says the outcome is unknown


class Unsettled(Exception):
    """The exchange's record cannot tell yet what became of the order; ``reason`` says why, in words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Settled(msgspec.Struct, frozen=True):
    """An order's outcome as the exchange records it. ``found`` False: it never happened (and cannot now)."""

    cloid: str
    found: bool
    open: bool = False  # still live on the exchange (resting, or waiting for its trigger)
    oid: int | None = None
    state: str = ""
    size: Decimal = Decimal(0)
    filled: Decimal = Decimal(0)
    value: Decimal = Decimal(0)  # price x size of the fills read for it
    priced: Decimal = Decimal(0)  # the size those fills cover (== filled unless the fills ran past the search)


def exchange_time_ms(client: Client) -> int | None:
    """The exchange's time as the ``Date`` of the answer just read says it (its whole second, floor)."""
    stamp = date_ms(client.last_server_date)
    return None if stamp is None else stamp - 500


async def settle_order(
    client: Client, account: str, cloid: str, *, expires_ms: int, after_oid: int | None = None
) -> Settled:
    """The outcome of the order ``cloid`` of ``account``, signed to expire at ``expires_ms``; ``Unsettled`` when
    the record cannot say (unreadable, too long to search, or absent while the order may still arrive).
    ``after_oid``: only an order newer than that one counts (an amend reuses the cloid of the order it replaces).
    """
    try:
        order, is_open, seen_at = await _find(client, account, cloid, after_oid or 0)
    except ClientError as exc:
        raise Unsettled(f"the exchange's record is not readable: {exc}") from None
    if order is None:
        if seen_at is None:
            seen_at = client.server_clock.now_ms() - 5 * DATE_SLACK_MS  # no Date: this machine's reckoning, wary
        if seen_at < expires_ms + DATE_SLACK_MS:
            raise Unsettled("not on the exchange yet, and it may still arrive")
        return Settled(cloid, found=False)
    filled = order.size - order.unfilled
    try:
        value, priced = await _priced(client, account, order, filled)
    except ClientError as exc:
        raise Unsettled(f"its fills are not readable: {exc}") from None
    return Settled(cloid, True, is_open, order.order_id, order.state, order.size, filled, value=value, priced=priced)


async def settle_within(
    client: Client,
    account: str,
    cloid: str,
    *,
    expires_ms: int,
    after_oid: int | None = None,
    limit_s: float = 45.0,
    retry_s: float = 1.0,
    on_wait: Callable[[str], None] | None = None,
) -> Settled | None:
    """``settle_order`` asked again every ``retry_s`` until it settles, for at most ``limit_s``; None: the
    outcome is still unknown. ``on_wait`` hears each reason it is not settled yet."""
    deadline = time.monotonic() + limit_s
    while True:
        try:
            return await settle_order(client, account, cloid, expires_ms=expires_ms, after_oid=after_oid)
        except Unsettled as exc:
            if on_wait is not None:
                on_wait(exc.reason)
            if time.monotonic() >= deadline:
                return None
            await asyncio.sleep(retry_s)


class Placed(msgspec.Struct, frozen=True):
    """What became of one placeOrder: its answer; or, the answer lost, each order as the exchange's record has it
    (None: still unknown)."""

    response: ExchangeResponse[Any] | None
    lost: str = ""  # why the answer was lost
    orders: tuple[Settled | None, ...] = ()
    expires_ms: int = 0  # the expiresAfter it was signed with: absent from the record after it, it never happened

    @property
    def unknown(self) -> int:
        return sum(1 for o in self.orders if o is None)

    def words(self) -> str:
        """The record's account of a placement whose answer was lost, in one line."""
        parts = []
        for o in self.orders:
            if o is None:
                parts.append("outcome unknown")
            elif not o.found:
                parts.append(f"{o.cloid} not placed")
            else:
                filled = f", filled {fmt_decimal(o.filled)}" if o.filled else ""
                parts.append(f"{o.cloid} oid {o.oid} {o.state}{filled}")
        return f"the answer was lost ({self.lost}); the exchange's record: " + "; ".join(parts)


def with_cloids(plans: list[OrderPlan], prefix: str) -> list[OrderPlan]:
    """``plans``, each with a client order id of the tool whose prefix is ``prefix`` where it had none (the one
    scheme: ``tui.trading.cloids``), to read it back by."""
    return with_tool_cloids(plans, tool_named(prefix))


async def _find(client: Client, account: str, cloid: str, after_oid: int) -> tuple[Order | None, bool, int | None]:
    """(the order, whether it is open, the exchange's time of the first answer): open orders, then the history."""
    seen_at: int | None = None
    for is_open, read in ((True, client.open_orders), (False, client.order_history)):
        for page in range(1, SEARCH_PAGES + 1):
            env = await read(account, page=page, limit=PAGE)
            if seen_at is None:
                seen_at = exchange_time_ms(client)  # read before anything else can await: this answer's own Date
            found = next((o for o in env.data if o.cloid == cloid and o.order_id > after_oid), None)
            if found is not None:
                return found, is_open and found.unfilled > 0, seen_at
            if not env.has_next:
                break
        else:
            raise Unsettled(f"not among the newest {SEARCH_PAGES * PAGE} orders: too long a record to search")
    return None, False, seen_at


async def _priced(client: Client, account: str, order: Order, filled: Decimal) -> tuple[Decimal, Decimal]:
    """(price x size, size) of the order's fills, newest first, until they cover ``filled``."""
    value = priced = Decimal(0)
    if not filled:
        return value, priced
    for page in range(1, SEARCH_PAGES + 1):
        env = await client.fills(account, page=page, limit=PAGE)
        for f in env.data:
            if f.order_id == order.order_id or (order.cloid and f.cloid == order.cloid):
                value += f.price * f.size
                priced += f.size
        if priced >= filled or not env.has_next:
            break
    return value, priced
