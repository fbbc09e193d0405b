"""The edge of /exchange: parse and type-check a request body, then find who signed it.

Parsing never trusts the body: every field of ``action.data`` is checked against its type before the
engine sees it, and the error names the field (``action.data.orders[0].price: ...``). The data is kept
exactly as received, key order included, because that is what was signed (protocol-notes 2.5).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from tui.api import wire
from tui.api.decimals import is_plain_decimal
from tui.api.signing import SigningError, action_digest, checksum_address, recover_digest

from ..grammar import int_text


class BadRequest(Exception):
    """Malformed input: answered with HTTP 400 and ``{"type": "error", "message": ...}``."""


class Rejected(Exception):
    """A well-formed action the exchange refuses: answered with the envelope, ``error`` set.

    ``tx_type`` and ``address`` say what the action was understood as and whose it was, once known.
    """

    def __init__(self, message: str, *, tx_type: int = 0, address: str = "") -> None:
        super().__init__(message)
        self.tx_type = tx_type
        self.address = address


@dataclass(slots=True)
class ParsedAction:
    spec: wire.ActionSpec
    type_text: str
    data: dict[str, Any]
    nonce: int
    signature: str


INT_LIMIT = 2**63  # ids, nonces and chain ids fit a signed 64-bit integer; anything else is a malformed body


def _decimal(path: str, value: Any, *, allow_empty: bool = False, number_ok: bool = False) -> None:
    if allow_empty and value == "":
        return
    if (
        isinstance(value, bool)
        or not isinstance(value, str | int | float)
        or (not number_ok and not isinstance(value, str))
    ):
        raise BadRequest(f"{path}: expected a decimal string, got {_show(value)}")
    if isinstance(value, str) and not is_plain_decimal(value):  # the one grammar: no sign, exponent, spaces
        raise BadRequest(f"{path}: {_show(value)} is not a plain decimal (ASCII digits and at most one point)")
    if isinstance(value, int) and not -INT_LIMIT < value < INT_LIMIT:  # a number is signed as is: 64 bits at most
        raise BadRequest(f"{path}: {_show(value)} is out of range")
    try:
        d = Decimal(str(value))
    except InvalidOperation:
        raise BadRequest(f"{path}: {_show(value)} is not a decimal number") from None
    if not d.is_finite():
        raise BadRequest(f"{path}: {_show(value)} is not a finite number")


def _show(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _int(path: str, value: Any, *, positive: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"{path}: expected an integer, got {_show(value)}")
    if not -INT_LIMIT < value < INT_LIMIT:
        raise BadRequest(f"{path}: {_show(value)} is out of range (at most {INT_LIMIT - 1})")
    if positive and value <= 0:
        raise BadRequest(f"{path}: must be > 0, got {value}")


def _str(path: str, value: Any) -> None:
    if not isinstance(value, str):
        raise BadRequest(f"{path}: expected a string, got {_show(value)}")


def _bool(path: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise BadRequest(f"{path}: expected true or false, got {_show(value)}")


def _address(path: str, value: Any) -> None:
    _str(path, value)
    try:
        checksum_address(value)
    except SigningError:
        raise BadRequest(f"{path}: {_show(value)} is not an address") from None


def _empty_or_address(path: str, value: Any) -> None:
    """``forAccount`` (empty: the signer's own account) and ``brokerConfig.broker`` (empty: no broker)."""
    if value != "":
        _address(path, value)


def _enum(choices: Iterable[str]) -> Callable[[str, Any], None]:
    allowed = tuple(choices)

    def check(path: str, value: Any) -> None:
        if value not in allowed:
            raise BadRequest(f"{path}: must be one of {', '.join(repr(c) for c in allowed)}, got {_show(value)}")

    return check


def _object(
    fields: dict[str, Callable[[str, Any], None]], optional: tuple[str, ...] = ()
) -> Callable[[str, Any], None]:
    def check(path: str, value: Any) -> None:
        if not isinstance(value, dict):
            raise BadRequest(f"{path}: expected an object, got {_show(value)}")
        for name, checker in fields.items():
            if name not in value:
                if name in optional:
                    continue
                raise BadRequest(f"{path}.{name}: missing")
            checker(f"{path}.{name}", value[name])

    return check


def _array(item: Callable[[str, Any], None], *, max_items: int = 1_000) -> Callable[[str, Any], None]:
    def check(path: str, value: Any) -> None:
        if not isinstance(value, list):
            raise BadRequest(f"{path}: expected an array, got {_show(value)}")
        if not value:
            raise BadRequest(f"{path}: must not be empty")
        if len(value) > max_items:
            raise BadRequest(f"{path}: at most {max_items} items")
        for i, v in enumerate(value):
            item(f"{path}[{i}]", v)

    return check


ORDER = _object(
    {
        "instrumentId": lambda p, v: _int(p, v, positive=True),
        "side": _enum(("b", "s")),
        "positionSide": _enum(("BOTH", "LONG", "SHORT")),
        "price": lambda p, v: _decimal(p, v, allow_empty=True),
        "size": _decimal,
        "tif": _enum(("GTC", "IOC", "FOK")),
        "ro": _bool,
        "po": _bool,
        "cloid": _str,
        "triggerPx": lambda p, v: _decimal(p, v, allow_empty=True),
        "isMarket": _bool,
        "tpsl": _enum(("tp", "sl", "")),
        "grouping": _enum(("position", "normal", "")),
    },
    optional=("positionSide", "ro", "po", "cloid", "triggerPx", "isMarket", "tpsl", "grouping"),
)
_OID_CANCEL = _object({"oid": _int, "instrumentId": _int})
_CLOID_CANCEL = _object({"cloid": _str, "instrumentId": _int})

FIELDS: dict[str, Callable[[str, Any], None]] = {
    "orders": _array(ORDER, max_items=50),
    "brokerConfig": _object({"broker": _empty_or_address, "fee": lambda p, v: _decimal(p, v, allow_empty=True)}),
    "expiresAfter": _int,
    "instrumentId": lambda p, v: _int(p, v, positive=True),
    "collateralId": _int,
    "amount": _decimal,
    "shares": _decimal,
    "chainId": _int,
    "destination": _address,
    "vaultAddress": _address,
    "toDerivativesAccount": _bool,
    "agentName": _str,
    "agent": _address,
    "forAccount": _empty_or_address,
    "signature": _str,
    "validUntil": _int,
    "leverage": lambda p, v: _decimal(p, v, number_ok=True),
    "broker": _address,
    "maxFeeRate": _decimal,
    "code": _str,
    "spot": _bool,
}
CANCELS = {"cancelByOid": _array(_OID_CANCEL), "cancelByCloid": _array(_CLOID_CANCEL)}
OPTIONAL = {"revokeAgent": ("forAccount",), "placeOrder": ("brokerConfig",)}


def parse_body(raw: bytes) -> ParsedAction:
    """Parse and type-check a POST /exchange body; ``BadRequest`` (HTTP 400) names what is malformed, an
    unknown action type included."""
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise BadRequest(f"body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise BadRequest("body: expected an object with action, signature and nonce")
    action = body.get("action")
    if not isinstance(action, dict):
        raise BadRequest("action: missing or not an object")
    type_text = action.get("type")
    if not isinstance(type_text, str | int) or isinstance(type_text, bool):
        raise BadRequest("action.type: missing or not a string")
    data = action.get("data")
    if not isinstance(data, dict):
        raise BadRequest("action.data: missing or not an object")
    signature = body.get("signature")
    if not isinstance(signature, str):
        raise BadRequest(f"signature: expected a hex string, got {_show(signature)}")
    nonce = body.get("nonce")
    _int("nonce", nonce, positive=True)
    assert isinstance(nonce, int)
    spec = wire.resolve_action(str(type_text))
    if spec is None:  # not an action at all: a malformed body, not a refused action
        raise BadRequest(f"action.type: unknown action type {_show(type_text)}")
    optional = OPTIONAL.get(spec.name, ())
    for name in spec.fields:
        if name not in data or (data[name] is None and name in optional):
            if name in optional or name in spec.optional:
                continue
            raise BadRequest(f"action.data.{name}: missing")
        checker = CANCELS.get(spec.name) if name == "cancels" else FIELDS[name]
        assert checker is not None
        checker(f"action.data.{name}", data[name])
    if "nonce" not in data:
        raise BadRequest("action.data.nonce: missing")
    if data["nonce"] != nonce:
        raise BadRequest("action.data.nonce: must equal the top-level nonce")
    return ParsedAction(spec, str(type_text), data, nonce, signature)


def _sorted_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(v) for v in value]
    return value


def codes_for(parsed: ParsedAction) -> tuple[int, ...]:
    """The codes to verify with, the one the request implies first (protocol-notes 9.2)."""
    spec = parsed.spec
    first = int_text(parsed.type_text)
    if first is not None:
        return (first, *[c for c in spec.codes() if c != first])
    return spec.codes()


def recover_candidates(parsed: ParsedAction, testnet: bool, *, sorted_keys: bool = False) -> Iterator[tuple[str, int]]:
    """(signer, code) for each way the request may have been signed for the network ``testnet`` names: the action
    as sent under each code it may carry, then (``sorted_keys``) with its keys sorted, when that differs.

    Any 65-byte signature recovers *some* address, so the caller picks the first candidate that is a
    known account or agent, and falls back to the first one (a new account) when none is.
    """
    variants = _variants(parsed.data) if sorted_keys else (parsed.data,)
    for data in variants:
        for code in codes_for(parsed):
            try:
                digest = action_digest(data, code, testnet=testnet)
            except (OverflowError, TypeError, ValueError) as exc:  # the parse let through what cannot be signed
                raise BadRequest(f"action.data: cannot be signed as sent ({type(exc).__name__})") from None
            try:
                yield recover_digest(digest, parsed.signature), code
            except SigningError as exc:
                raise BadRequest(f"signature: {exc}") from None


def sorted_key_candidates(parsed: ParsedAction, testnet: bool) -> Iterator[tuple[str, int]]:
    """(signer, code) for the action with its keys sorted, when that differs from what was sent (nothing else)."""
    variants = list(_variants(parsed.data))
    if len(variants) > 1:
        yield from recover_candidates(
            ParsedAction(parsed.spec, parsed.type_text, variants[1], parsed.nonce, parsed.signature), testnet
        )


def _variants(data: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The action as sent, then with its keys sorted, when that differs."""
    yield data
    sorted_data = _sorted_keys(data)
    if json.dumps(sorted_data) != json.dumps(data):  # key order differs somewhere, nested objects included
        yield sorted_data


def verify_agent_signature(agent: str, account: str, nonce: int, signature: str) -> bool:
    """The addAgent inner signature: the agent key signed {signer: account, nonce} as txType 1201."""
    for signer_text in dict.fromkeys((checksum_address(account), account, account.lower())):
        inner = {"signer": signer_text, "nonce": nonce}
        for net in (False, True):
            try:
                if recover_digest(action_digest(inner, 1201, testnet=net), signature).lower() == agent.lower():
                    return True
            except SigningError:
                return False
    return False
