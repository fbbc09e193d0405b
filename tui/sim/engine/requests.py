"""Typed requests the engine accepts, parsed from wire objects with clear ``Rejected`` messages.

The server hands the engine ``action.data`` pieces (``orders`` items, ``brokerConfig``); parsing them here
keeps every validation message of the exchange in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .chain import Tx
from .errors import Rejected
from .values import ZERO, parse_decimal, parse_int

TIFS = ("GTC", "IOC", "FOK")
TPSL = ("", "tp", "sl")
GROUPINGS = ("", "normal", "position")


@dataclass(frozen=True, slots=True)
class OrderRequest:
    """One order to place. ``price`` 0 on a market order means "bounded by mark +- market_slippage"."""

    instrument_id: int
    is_buy: bool
    price: Decimal
    size: Decimal
    tif: str = "GTC"
    reduce_only: bool = False
    post_only: bool = False
    cloid: str = ""
    trigger_px: Decimal = ZERO
    is_market: bool = False
    tpsl: str = ""
    grouping: str = ""
    position_side: str = "BOTH"

    @classmethod
    def from_wire(cls, item: Mapping[str, Any]) -> OrderRequest:
        """Parse a placeOrder ``orders`` item (protocol-notes 3); missing optional fields take defaults."""
        if not isinstance(item, Mapping):
            raise Rejected("each order must be an object")
        if "instrumentId" not in item:
            raise Rejected("order needs instrumentId")
        inst = parse_int(item["instrumentId"], "instrumentId")
        side = item.get("side")
        if side not in ("b", "s"):
            raise Rejected(f"side must be 'b' or 's', got {side!r}")
        is_market = _bool(item.get("isMarket", False), "isMarket")
        raw_price = item.get("price", "")
        if is_market and raw_price in ("", None):
            price = ZERO
        else:
            price = parse_decimal(raw_price, "price", positive=not is_market)
        size = parse_decimal(item.get("size"), "size", positive=True)
        tif = item.get("tif", "GTC")
        if tif not in TIFS:
            raise Rejected(f"tif must be one of GTC, IOC, FOK, got {tif!r}")
        raw_trigger = item.get("triggerPx", "")
        trigger = ZERO if raw_trigger in ("", None) else parse_decimal(raw_trigger, "triggerPx")
        tpsl = item.get("tpsl", "") or ""
        if tpsl not in TPSL:
            raise Rejected(f"tpsl must be 'tp', 'sl' or empty, got {tpsl!r}")
        grouping = item.get("grouping", "") or ""
        if grouping not in GROUPINGS:
            raise Rejected(f"grouping must be 'normal', 'position' or empty, got {grouping!r}")
        cloid = item.get("cloid", "") or ""
        if not isinstance(cloid, str) or len(cloid) > 128:
            raise Rejected("cloid must be a string of at most 128 characters")
        position_side = item.get("positionSide", "BOTH") or "BOTH"
        if position_side not in ("BOTH", "LONG", "SHORT"):
            raise Rejected(f"positionSide must be BOTH, LONG or SHORT, got {position_side!r}")
        return cls(
            inst,
            side == "b",
            price,
            size,
            tif,
            _bool(item.get("ro", False), "ro"),
            _bool(item.get("po", False), "po"),
            cloid,
            trigger,
            is_market,
            tpsl,
            grouping,
            position_side,
        )


@dataclass(frozen=True, slots=True)
class BrokerConfig:
    """placeOrder's optional ``brokerConfig``: the broker gets ``fee`` * notional of every fill."""

    broker: str
    fee: Decimal

    @classmethod
    def from_wire(cls, value: Mapping[str, Any] | None) -> BrokerConfig | None:
        """None when absent or when ``broker`` is empty."""
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise Rejected("brokerConfig must be an object")
        broker = value.get("broker", "") or ""
        if not isinstance(broker, str):
            raise Rejected("brokerConfig.broker must be an address string")
        if not broker:
            return None
        return cls(broker, parse_decimal(value.get("fee", "0"), "brokerConfig.fee"))


class ActionResult:
    """What an accepted action returns: the envelope's ``tx_hash``, ``tx_type`` and ``data``.

    ``success`` is the top-level boolean of the cancel-by-oid / cancel-by-cloid envelopes. The hash is
    computed when first read, and a placed order's ``data`` (``{"status": {"oid": n}}``) when first read:
    both are off the order hot path.
    """

    __slots__ = ("_data", "oid", "success", "tx", "tx_type")

    def __init__(
        self, tx: Tx, tx_type: int, data: dict[str, Any] | None = None, success: bool = True, oid: int = 0
    ) -> None:
        self.tx = tx
        self.tx_type = tx_type
        self._data = data
        self.success = success
        self.oid = oid

    @property
    def tx_hash(self) -> str:
        return self.tx.hash

    @property
    def data(self) -> dict[str, Any]:
        if self._data is None:
            self._data = {"status": {"oid": self.oid}} if self.oid else {}
        return self._data

    def __repr__(self) -> str:
        return f"ActionResult(tx_type={self.tx_type}, data={self.data!r}, success={self.success})"


def _bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    raise Rejected(f"{name} must be true or false")
