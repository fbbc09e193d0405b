"""Action names, codes, dialects and request building (protocol-notes sections 2.2, 3, 8 and 9).

An action is built as an ordered ``dict`` (its ``data``), with fields in the order the SDKs send them
and ``nonce`` last, because the signature covers the msgpack bytes of exactly that order.

Dialects decide what goes into ``action.type`` and which code is signed:

- ``seed`` (the default of the functions here; ``HttpClient`` defaults to ``sdk``): the interface's
  spelling. Action names for the interface's own actions, ``"1401"`` for the vault deposit,
  cancelByCloid signed as 1303. Actions the interface does not list are sent as their numeric code,
  the only spelling the real SDKs show for them.
- ``sdk``: every action as its numeric code in a string, cancelByCloid as 1312.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

import msgspec

__all__ = [
    "ACTIONS",
    "DIALECTS",
    "ActionSpec",
    "Dialect",
    "action_type",
    "build_body",
    "order_item",
    "resolve_action",
    "tx_type",
]

Dialect = Literal["seed", "sdk"]
DIALECTS: tuple[Dialect, ...] = ("seed", "sdk")


class ActionSpec(msgspec.Struct, frozen=True):
    """One /exchange action: canonical name, codes, field order, and the names it is known by."""

    name: str
    seed_code: int
    sdk_code: int
    fields: tuple[str, ...]  # in signing order, nonce excluded (always last)
    seed_type: str | None = None  # action.type in the seed dialect when it is not the numeric code
    aliases: tuple[str, ...] = ()
    agent_ok: bool = False  # an agent key may sign it for its account (protocol-notes 2.6)
    optional: tuple[str, ...] = ()  # fields that may be omitted (placeOrder.brokerConfig)

    def code(self, dialect: Dialect) -> int:
        return self.seed_code if dialect == "seed" else self.sdk_code

    def codes(self) -> tuple[int, ...]:
        return (self.seed_code,) if self.seed_code == self.sdk_code else (self.seed_code, self.sdk_code)


# fmt: off
_SPECS = (
    ActionSpec("placeOrder", 1301, 1301, ("orders", "brokerConfig", "expiresAfter"), "placeOrder",
               agent_ok=True, optional=("brokerConfig",)),
    ActionSpec("cancelByOid", 1302, 1302, ("cancels", "expiresAfter"), "cancelByOid", agent_ok=True),
    ActionSpec("cancelByCloid", 1303, 1312, ("cancels", "expiresAfter"), "cancelByCloid", agent_ok=True),
    ActionSpec("cancelAll", 1311, 1311, ("expiresAfter",), agent_ok=True),
    ActionSpec("cancelByInstrument", 1313, 1313, ("instrumentId", "expiresAfter"), "cancelByInstrument",
               agent_ok=True),
    ActionSpec("spotWithdrawRequest", 1002, 1002, ("collateralId", "amount", "chainId"),
               aliases=("accountSpotWithdrawRequest",)),
    ActionSpec("derivativeWithdrawRequest", 1003, 1003, ("collateralId", "amount", "chainId"),
               "derivativeWithdrawRequest", aliases=("accountDerivativeWithdrawRequest",)),
    ActionSpec("spotBalanceTransferRequest", 1051, 1051, ("collateralId", "amount", "destination"),
               aliases=("accountSpotBalanceTransferRequest",)),
    ActionSpec("derivativeBalanceTransferRequest", 1052, 1052, ("collateralId", "amount", "destination"),
               "derivativeBalanceTransferRequest", aliases=("accountDerivativeBalanceTransferRequest",)),
    ActionSpec("internalBalanceTransferRequest", 1053, 1053,
               ("collateralId", "amount", "toDerivativesAccount"), aliases=("accountInternalBalanceTransferRequest",)),
    ActionSpec("depositToVault", 1401, 1401, ("vaultAddress", "amount"), "1401", aliases=("vaultDeposit",)),
    ActionSpec("redeemFromVault", 1402, 1402, ("vaultAddress", "shares"), aliases=("vaultRedeem",)),
    ActionSpec("addAgent", 1201, 1201, ("agentName", "agent", "forAccount", "signature", "validUntil")),
    ActionSpec("revokeAgent", 1211, 1211, ("agent", "forAccount")),
    ActionSpec("updatePerpInstrumentLeverage", 1203, 1203, ("instrumentId", "leverage"), agent_ok=True),
    ActionSpec("approveBrokerFee", 1207, 1207, ("broker", "maxFeeRate")),
    ActionSpec("createReferralCode", 1208, 1208, ("code",)),
    ActionSpec("setReferrer", 1209, 1209, ("code",)),
    ActionSpec("claimReferralRewards", 1210, 1210, ("collateralId", "spot"), agent_ok=True),
)
# fmt: on

ACTIONS: dict[str, ActionSpec] = {s.name: s for s in _SPECS}
EXPIRING = frozenset(s.name for s in _SPECS if "expiresAfter" in s.fields)

_BY_TYPE: dict[str, ActionSpec] = {}
for _s in _SPECS:
    for _key in (_s.name, *_s.aliases, str(_s.seed_code), str(_s.sdk_code)):
        _BY_TYPE[_key] = _s
        _BY_TYPE[_key.lower()] = _s


def resolve_action(action_type: str) -> ActionSpec | None:
    """The action an ``action.type`` names: seed name, SDK name or numeric code; None if unknown."""
    return _BY_TYPE.get(action_type) or _BY_TYPE.get(action_type.lower())


def action_type(name: str, dialect: Dialect = "seed") -> str:
    """What goes into ``action.type`` for action ``name`` in ``dialect``."""
    spec = ACTIONS[name]
    if dialect == "seed" and spec.seed_type is not None:
        return spec.seed_type
    return str(spec.code(dialect))


def tx_type(name: str, dialect: Dialect = "seed") -> int:
    """The numeric code signed (and echoed as ``tx_type``) for action ``name`` in ``dialect``."""
    return ACTIONS[name].code(dialect)


def action_data(name: str, fields: dict[str, Any], nonce: int) -> dict[str, Any]:
    """The ``data`` object of action ``name``: its fields in signing order, then ``nonce``.

    Optional fields left out of ``fields`` (or None) are omitted; any other missing field is a ``KeyError``
    naming it, and an unknown one is a ``KeyError`` too, so a typo never reaches the signature.
    """
    spec = ACTIONS[name]
    unknown = set(fields) - set(spec.fields)
    if unknown:
        raise KeyError(f"{name} has no field {sorted(unknown)[0]!r}")
    data: dict[str, Any] = {}
    for f in spec.fields:
        value = fields.get(f)
        if value is None:
            if f in spec.optional:
                continue
            raise KeyError(f"{name} needs field {f!r}")
        data[f] = value
    data["nonce"] = nonce
    return data


def build_body(name: str, data: dict[str, Any], signature: str, dialect: Dialect = "seed") -> dict[str, Any]:
    """The JSON body of POST /exchange for a signed ``data``."""
    return {
        "action": {"data": data, "type": action_type(name, dialect)},
        "signature": signature,
        "nonce": data["nonce"],
    }


def decimal_str(value: Decimal | int | str) -> str:
    """A decimal amount as the exchange wants it: plain notation, no exponent, no trailing zeros."""
    d = value if isinstance(value, Decimal) else Decimal(str(value))
    if not d.is_finite():
        raise ValueError(f"not a finite number: {value!r}")
    text = format(d.normalize(), "f")
    return "0" if text in ("-0", "") else text


def order_item(
    instrument_id: int,
    side: Literal["b", "s"],
    price: Decimal | str | int,
    size: Decimal | str | int,
    *,
    tif: Literal["GTC", "IOC", "FOK"] = "GTC",
    reduce_only: bool = False,
    post_only: bool = False,
    cloid: str = "",
    trigger_px: Decimal | str | int | None = None,
    is_market: bool = False,
    tpsl: Literal["tp", "sl", ""] = "",
    grouping: Literal["position", "normal", ""] = "",
    position_side: Literal["BOTH", "LONG", "SHORT"] = "BOTH",
) -> dict[str, Any]:
    """One placeOrder item, every field present, in the order the exchange signs them."""
    if instrument_id <= 0:
        raise ValueError("instrumentId must be > 0")
    if side not in ("b", "s"):
        raise ValueError("side must be 'b' or 's'")
    return {
        "instrumentId": instrument_id,
        "side": side,
        "positionSide": position_side,
        "price": decimal_str(price),
        "size": decimal_str(size),
        "tif": tif,
        "ro": reduce_only,
        "po": post_only,
        "cloid": cloid,
        "triggerPx": "" if trigger_px is None else decimal_str(trigger_px),
        "isMarket": is_market,
        "tpsl": tpsl,
        "grouping": grouping,
    }


ORDER_FIELDS = (
    "instrumentId",
    "side",
    "positionSide",
    "price",
    "size",
    "tif",
    "ro",
    "po",
    "cloid",
    "triggerPx",
    "isMarket",
    "tpsl",
    "grouping",
)
