"""What each /exchange action field holds, and typing the fields of an action from text (``key=value``).

``xtui exchange depositToVault vaultAddress=0x… amount=10``: ``amount`` is a decimal string on the wire, so
``10`` becomes ``"10"``; ``collateralId=1`` becomes an integer, ``spot=true`` a boolean, ``orders=[…]`` JSON
whose prices and sizes are typed the same way. A value that does not fit its field raises ``FieldError``
naming the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from .decimals import is_plain_decimal
from .wire import decimal_str

__all__ = ["FIELD_KINDS", "FieldError", "FieldKind", "typed_fields"]

FieldKind = Literal["decimal", "int", "bool", "text", "json"]

# The kind of every action field (protocol-notes 3); nested objects are JSON, their fields below.
FIELD_KINDS: Mapping[str, FieldKind] = {
    "orders": "json", "cancels": "json", "brokerConfig": "json",
    "expiresAfter": "int", "instrumentId": "int", "collateralId": "int", "chainId": "int", "validUntil": "int",
    "amount": "decimal", "shares": "decimal", "leverage": "decimal", "maxFeeRate": "decimal",
    "toDerivativesAccount": "bool", "spot": "bool",
    "destination": "text", "vaultAddress": "text", "agentName": "text", "agent": "text", "forAccount": "text",
    "signature": "text", "broker": "text", "code": "text",
}  # fmt: skip
# Fields of the objects inside JSON fields (order items, cancels, brokerConfig).
_NESTED_KINDS: Mapping[str, FieldKind] = {
    "price": "decimal", "size": "decimal", "triggerPx": "decimal", "fee": "decimal",
    "instrumentId": "int", "oid": "int", "ro": "bool", "po": "bool", "isMarket": "bool",
}  # fmt: skip
_EMPTY_OK = frozenset({"price", "triggerPx", "fee"})  # a market order's price, no trigger, no broker fee


class FieldError(ValueError):
    """What is wrong with the text of one field, the field named."""


class _Number(str):
    """A JSON number exactly as written, to be typed by the field that holds it."""


def typed_fields(text: Mapping[str, str]) -> dict[str, Any]:
    """Each field's text as the value its action needs (``FieldError`` when it does not fit); unknown fields
    are left as text, for the action to refuse by name."""
    return {name: _typed(name, value, FIELD_KINDS.get(name, "text")) for name, value in text.items()}


def _typed(path: str, value: str, kind: FieldKind) -> Any:
    if kind == "decimal":
        return _decimal(path, value)
    if kind == "int":
        return _int(path, value)
    if kind == "bool":
        if value not in ("true", "false"):
            raise FieldError(f"{path}: true or false, not {value[:20]!r}")
        return value == "true"
    if kind == "json":
        try:
            parsed = json.loads(value, parse_float=_Number, parse_int=_Number)
        except ValueError as exc:
            raise FieldError(f"{path}: not valid JSON ({exc})") from None
        return _nested(path, parsed)
    return value


def _decimal(path: str, value: str) -> str:
    if value == "" and path.rsplit(".", 1)[-1] in _EMPTY_OK:
        return ""
    if not is_plain_decimal(value):  # the one grammar of every edge: ASCII digits and at most one point
        raise FieldError(
            f"{path}: a decimal number such as 10 or 0.25 (plain: no sign, exponent or spaces), not {value[:20]!r}"
        )
    return decimal_str(value)


def _int(path: str, value: str) -> int:
    if not (value.isascii() and value.isdigit()):
        raise FieldError(f"{path}: a whole number (digits 0-9 only), not {value[:20]!r}")
    return int(value)


def _nested(path: str, value: Any) -> Any:
    """JSON inside a field: numbers and strings typed by the key that holds them."""
    if isinstance(value, list):
        return [_nested(f"{path}[{i}]", v) for i, v in enumerate(value)]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, v in value.items():
            kind = _NESTED_KINDS.get(key)
            sub = f"{path}.{key}"
            if kind is None or isinstance(v, (bool, list, dict)) or v is None:
                out[key] = _nested(sub, v)
            else:
                out[key] = _typed(sub, str(v), kind)
        return out
    if isinstance(value, _Number):
        return _int(path, value)  # a number no field declares: whole numbers only
    return value
