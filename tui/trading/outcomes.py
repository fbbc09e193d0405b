"""What the desk makes of a check or an answer: a plan's faults as the form's field error (``checked``), the
order id a placeOrder answered (``placed_oid``), why a call failed, how an open order reads, and the failures
that are neither done nor refused (``OutcomeUnknown``, ``NotPlaced``, ``AmendUnsure``)."""

from __future__ import annotations

from typing import Any

from tui.api.errors import ActionRejected, ClientError
from tui.api.models import ExchangeResponse, Order

from .grammar import FieldError
from .orders import OrderPlan, Validation, fmt_decimal


def first_error(errors: dict[str, str], fields: tuple[str, ...]) -> FieldError:
    """The first of ``errors`` as a ``FieldError`` on its field, or on the form's first field when the fault
    is in a field the form does not have."""
    name, message = next(iter(errors.items()), (fields[0], "cannot be sent"))
    return FieldError(name if name in fields else fields[0], message)


def checked(result: Validation, fields: tuple[str, ...]) -> OrderPlan:
    """The plan of ``result``, or a ``FieldError`` on the first field it faults."""
    if result.ok and result.plan is not None:
        return result.plan
    raise first_error(result.errors, fields)


def describe_order(order: Order) -> str:
    """An open order as a person reads it: 'SELL 0.5 BTC-PERP @ 101,000 (GTC reduce-only)'."""
    side = "BUY" if order.side == "b" else "SELL"
    at = "market" if order.is_market else fmt_decimal(order.limit_price)
    trig = f", trigger {fmt_decimal(order.trigger_px)}" if order.trigger_px else ""
    kind = {"tp": "take-profit ", "sl": "stop-loss "}.get(order.tpsl, "stop " if order.trigger_px else "")
    flags = " reduce-only" if order.reduce_only else ""
    return f"{side} {fmt_decimal(order.unfilled)} {order.instrument} @ {at} ({kind}{order.tif}{trig}{flags})"


def placed_oid(resp: ExchangeResponse[Any]) -> str:
    """The order id of a placeOrder answer, however the exchange nests it."""
    data = resp.data
    statuses = data.get("statuses", [data.get("status")]) if isinstance(data, dict) else data
    for status in statuses if isinstance(statuses, list) else [statuses]:
        if isinstance(status, dict):
            for key in ("oid", "order_id"):
                if key in status:
                    return str(status[key])
            for inner in status.values():
                if isinstance(inner, dict) and "oid" in inner:
                    return str(inner["oid"])
            if "error" in status:
                raise ActionRejected(str(status["error"]), {"tx_hash": resp.tx_hash})
    return "?"


def why_failed(exc: ClientError) -> str:
    """A failed call in a few words: the exchange's refusal, or what went wrong on the way."""
    return f"rejected: {exc.message}" if isinstance(exc, ActionRejected) else str(exc)


class OutcomeUnknown(ClientError):
    """Orders whose answer was lost and whose outcome the exchange's record could not tell in time."""


class NotPlaced(ClientError):
    """Orders whose answer was lost and that the exchange's record shows were never placed."""


class AmendUnsure(ClientError):
    """An amend that stopped half way: the cancel's outcome is unknown, or the old order is cancelled and
    the new one was not placed."""

    def __init__(self, oid: int, exc: ClientError, *, cancelled: bool = False, unknown: bool = False) -> None:
        if unknown:
            super().__init__(
                f"oid {oid} was cancelled; whether the new order was placed is unknown ({exc}): see Open orders "
                "before placing it again"
            )
        elif cancelled:
            super().__init__(f"oid {oid} was cancelled but the new order was not placed ({why_failed(exc)})")
        else:
            super().__init__(f"the cancel of oid {oid} did not answer ({exc}): nothing was placed; check Open orders")
