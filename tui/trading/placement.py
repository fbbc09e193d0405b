"""The one way an order is placed: a typed request in, a typed outcome out.

``place(client, PlaceRequest(plans, "chase", run=3))`` sends the plans in one placeOrder, each with a cloid of the
tool's (``tui.trading.cloids``; a plan's own cloid is kept), signed to expire ``expiry_s`` from now on the exchange's
clock, and answers with one of:

- ``Accepted``: the exchange took the action; each order's oid, or its own refusal in a batch.
- ``Refused``: nothing was applied; ``kind`` is ``tui.api.refusals.classify`` of the exchange's words (a rate limit,
  HTTP 429 or 418, is ``RATE_LIMITED``; any other 4xx is classified as well).
- ``Settled``: the answer was lost (a timeout, a dropped connection, a 5xx); each order as the exchange's record has
  it (open, filled, or absent: never placed, and past its expiry so it cannot be now).
- ``Unknown``: the answer was lost and the record could not tell within ``settle_s``: nothing may be sent again
  until it can (``settle.settle_order`` asks again; the outcome keeps the cloids and the expiry to ask with).
- ``WrongAccount``: the exchange applied the action to another account than the one the client acts for.

Nothing here sends anything twice, and nothing imports Textual.

Every order xtui places comes through here: the desk (``tui/ui/screens/order_desk/base.py``) and the amend
(``order_desk/amend.py``), the chase (``tui/trading/chase.py``), the TWAP (``twap.py``), the trailing stop
(``trailing.py``, ``tr<run>x..`` cloids) and the OCO (``oco.py``, ``oc<run>x..-t<n>``/``-s<n>``); only ``tui.api``
sends a placeOrder itself. The scale's cloid group in ``tui/ui/screens/order_desk/multi.py`` (``MultiOrders.scale``)
is still its own.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from tui.api.client import Client
from tui.api.errors import AccountMismatch, ActionExpired, ActionRejected, ApiError, Banned, ClientError, RateLimited
from tui.api.models import ExchangeResponse
from tui.api.refusals import RefusalKind, classify

from . import settle as settling
from .cloids import Tool, with_tool_cloids
from .orders import OrderPlan

__all__ = [
    "Accepted", "Outcome", "PlaceRequest", "Refused", "Settled", "Unknown", "WrongAccount", "place", "refused",
    "statuses",
]  # fmt: skip

SETTLE_RETRY_S = 1.0  # how often the record is asked again while it cannot tell


class PlaceRequest(msgspec.Struct, frozen=True):
    """What to place: ``plans`` in one placeOrder, by ``tool`` (its ``run``, when it has runs, names the cloids).

    ``expiry_s`` (None: ``settle.PLACE_EXPIRY_S``) is the short expiresAfter that lets a lost answer be settled soon;
    ``settle_s`` (None: ``settle.SETTLE_LIMIT_S``) how long a lost answer is read back from the record before the
    outcome is ``Unknown`` (0: one look); ``after_oid``: only an order newer than that one is this one (an amend
    reuses the cloid of the order it replaces)."""

    plans: tuple[OrderPlan, ...]
    tool: Tool
    run: int | None = None
    expiry_s: float | None = None
    settle_s: float | None = None
    after_oid: int | None = None


class Accepted(msgspec.Struct, frozen=True):
    """The exchange took the placeOrder. ``oids[i]`` is order i's id, None when the batch refused it alone (its
    words in ``errors[i]``)."""

    cloids: tuple[str, ...]
    oids: tuple[int | None, ...]
    errors: tuple[str, ...]
    response: ExchangeResponse[Any]
    expires_ms: int

    @property
    def tx_hash(self) -> str:
        return self.response.tx_hash

    @property
    def placed(self) -> int:
        return sum(1 for o in self.oids if o is not None)


class Refused(msgspec.Struct, frozen=True):
    """Nothing was applied. ``clock_set``: refused as expired, and the refusal told the exchange's time, so the
    client's clock now follows it (sending again is on the right clock)."""

    kind: RefusalKind
    message: str
    cloids: tuple[str, ...]
    error: ClientError
    clock_set: bool = False


class Settled(msgspec.Struct, frozen=True):
    """The answer was lost (``lost`` says how); every order as the exchange's record has it."""

    cloids: tuple[str, ...]
    orders: tuple[settling.Settled, ...]
    lost: str
    expires_ms: int


class Unknown(msgspec.Struct, frozen=True):
    """The answer was lost and the record cannot tell yet (``why``); ``orders[i]`` None where it cannot."""

    cloids: tuple[str, ...]
    orders: tuple[settling.Settled | None, ...]
    lost: str
    why: str
    expires_ms: int


class WrongAccount(msgspec.Struct, frozen=True):
    """The exchange applied the action to another account (``error`` says which, and the likely cause)."""

    cloids: tuple[str, ...]
    error: AccountMismatch


Outcome = Accepted | Refused | Settled | Unknown | WrongAccount


def refused(exc: ApiError, cloids: tuple[str, ...] = ()) -> Refused:
    """The ``Refused`` an exchange's refusal (or a rate limit) is."""
    if isinstance(exc, RateLimited | Banned):
        return Refused(RefusalKind.RATE_LIMITED, exc.message, cloids, exc)
    if isinstance(exc, ActionExpired):  # its message is this client's words; the exchange's are ``said``
        return Refused(RefusalKind.EXPIRED, exc.said, cloids, exc, clock_set=exc.offset_ms is not None)
    said: str = getattr(exc, "said", exc.message)  # an AgentRefused keeps the exchange's own words there
    return Refused(classify(said), said, cloids, exc)


def statuses(response: ExchangeResponse[Any], count: int) -> tuple[tuple[int | None, str], ...]:
    """(oid, refusal) of each of ``count`` orders of a placeOrder answer, however the exchange nests them."""
    data = response.data
    raw = data.get("statuses", data.get("status")) if isinstance(data, dict) else data
    items = raw if isinstance(raw, list) else [raw]
    out: list[tuple[int | None, str]] = []
    for item in items[:count]:
        out.append(_status(item))
    out += [(None, "the answer does not name this order")] * (count - len(out))
    return tuple(out)


def _status(item: object) -> tuple[int | None, str]:
    if not isinstance(item, dict):
        return None, f"the answer's status is not an object: {str(item)[:80]}"
    for key in ("oid", "order_id"):
        if isinstance(item.get(key), int):
            return item[key], ""
    for inner in item.values():  # {"resting": {"oid": n}}, {"filled": {...}}
        if isinstance(inner, dict) and isinstance(inner.get("oid"), int):
            return inner["oid"], ""
    if "error" in item:
        return None, str(item["error"])
    return None, "the answer's status names no order id"


async def place(
    client: Client,
    request: PlaceRequest,
    *,
    on_unconfirmed: Callable[[str], None] | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Outcome:
    """Send ``request`` once and say what became of it (see the module docstring). ``on_unconfirmed`` hears why the
    answer was lost before the record is read; ``sleep`` and ``clock`` pace the reads of the record."""
    expiry_s = settling.PLACE_EXPIRY_S if request.expiry_s is None else request.expiry_s  # read now: tests shorten
    settle_s = settling.SETTLE_LIMIT_S if request.settle_s is None else request.settle_s
    plans = with_tool_cloids(list(request.plans), request.tool, run=request.run)
    cloids = tuple(p.cloid for p in plans)
    expires = client.server_clock.now_ms() + int(expiry_s * 1000)
    try:
        response = await client.place_order([p.to_wire() for p in plans], expires_after=expires)
    except AccountMismatch as exc:
        return WrongAccount(cloids, exc)
    except ApiError as exc:
        if isinstance(exc, ActionRejected | RateLimited | Banned) or 400 <= exc.status < 500:
            return refused(exc, cloids)
        lost = str(exc)  # a 5xx: it may have been applied
    except ClientError as exc:  # no answer: applied or not, the record will say
        lost = str(exc)
    else:
        said = statuses(response, len(plans))
        if all(oid is None for oid, _ in said):  # an answer that placed none of them is a refusal
            message = "; ".join(dict.fromkeys(why for _, why in said))
            return refused(ActionRejected(message, {"tx_hash": response.tx_hash}), cloids)
        oids = tuple(oid for oid, _ in said)
        return Accepted(cloids, oids, tuple(why for _, why in said), response, expires)
    if on_unconfirmed is not None:
        on_unconfirmed(lost)
    return await _settle(client, request, cloids, expires, lost, settle_s, sleep, clock)


async def _settle(
    client: Client,
    request: PlaceRequest,
    cloids: tuple[str, ...],
    expires: int,
    lost: str,
    settle_s: float,
    sleep: Callable[[float], Awaitable[None]],
    clock: Callable[[], float],
) -> Settled | Unknown:
    """Each order read back from the record by its cloid until it tells, for at most ``settle_s`` in all."""
    account = client.acting_for or ""
    deadline = clock() + settle_s
    orders: list[settling.Settled | None] = []
    why = ""
    for cloid in cloids:
        found: settling.Settled | None = None
        while True:
            try:
                found = await settling.settle_order(
                    client, account, cloid, expires_ms=expires, after_oid=request.after_oid
                )
                break
            except settling.Unsettled as exc:
                why = exc.reason
                if clock() >= deadline:
                    break
                await sleep(SETTLE_RETRY_S)
        orders.append(found)
    known = [o for o in orders if o is not None]
    if len(known) == len(orders):
        return Settled(cloids, tuple(known), lost, expires)
    return Unknown(cloids, tuple(orders), lost, why, expires)
