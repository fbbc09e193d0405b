"""Fills and public trades as compact objects, rendered to the interface's shapes on demand.

They hold a reference to their transaction instead of its hash, because the hash is computed lazily
(see ``chain``): the matching hot path never hashes.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from .values import ZERO, dstr, iso_ms, num

if TYPE_CHECKING:
    from .chain import Tx
    from .types import OrderRef

#: ``fill_type`` of an ordinary fill.
FILL_TRADE = 0
#: ``fill_type`` of both sides of a liquidation (the liquidated account and the backstop that takes over).
FILL_LIQUIDATION = 1


class Fill:
    """One side of a trade, from one account's point of view (``order`` is None for a liquidation)."""

    __slots__ = (
        "account",
        "broker_fee",
        "closed_pnl",
        "closing",
        "crossed",
        "fee",
        "fill_type",
        "inst_id",
        "inst_name",
        "is_buy",
        "order",
        "price",
        "size",
        "spot",
        "start_cost",
        "start_size",
        "trade_id",
        "ts_ms",
        "tx",
    )

    def __init__(
        self,
        inst_id: int,
        inst_name: str,
        account: str,
        order: OrderRef | None,
        trade_id: int,
        is_buy: bool,
        closing: bool,
        price: Decimal,
        size: Decimal,
        closed_pnl: Decimal,
        start_size: Decimal,
        start_cost: Decimal,
        fee: Decimal,
        broker_fee: Decimal,
        crossed: bool,
        tx: Tx,
        fill_type: int,
        ts_ms: int,
        spot: bool,
    ) -> None:
        # positional only, and derived fields (direction, start price) are computed when rendered: hot path
        self.inst_id = inst_id
        self.inst_name = inst_name
        self.account = account  # EIP-55
        self.order = order
        self.trade_id = trade_id
        self.is_buy = is_buy
        self.closing = closing
        self.price = price
        self.size = size
        self.closed_pnl = closed_pnl
        self.start_size = start_size
        self.start_cost = start_cost  # perps: cost basis before the fill; spot: unused
        self.fee = fee
        self.broker_fee = broker_fee
        self.crossed = crossed
        self.tx = tx
        self.fill_type = fill_type
        self.ts_ms = ts_ms
        self.spot = spot

    @property
    def direction(self) -> str:
        if self.spot:
            return "buy" if self.is_buy else "sell"
        if self.closing:
            return "closeShort" if self.is_buy else "closeLong"
        return "openLong" if self.is_buy else "openShort"

    @property
    def start_price(self) -> Decimal:
        """Entry price of the position before the fill (0 when flat, and for spot)."""
        if self.spot or not self.start_size:
            return ZERO
        return num(self.start_cost / self.start_size)

    def _about(self) -> dict[str, Any]:
        """What the ``fills`` record and WebSocket payload share: whose fill of what, and how."""
        o = self.order
        return {
            "instrument_id": self.inst_id,
            "instrument": self.inst_name,
            "account": self.account,
            "order_id": o.oid if o else 0,
            "cloid": o.cloid if o else "",
            "trade_id": self.trade_id,
            "side": "b" if self.is_buy else "s",
            "position_side": "BOTH",
            "direction": self.direction,
            "fee_token_id": 1,
            "crossed": self.crossed,
            "tx_hash": self.tx.hash,
            "fill_type": self.fill_type,
        }

    def record(self) -> dict[str, Any]:
        """The ``fills`` record (decimal strings, ISO timestamp)."""
        return {
            **self._about(),
            "price": dstr(self.price),
            "size": dstr(self.size),
            "closed_pnl": dstr(self.closed_pnl),
            "start_size": dstr(self.start_size),
            "start_price": dstr(self.start_price),
            "fee": dstr(self.fee),
            "broker_fee": dstr(self.broker_fee),
            "notional_value": dstr(self.price * self.size),
            "block_timestamp": iso_ms(self.ts_ms),
        }

    def event(self) -> dict[str, Any]:
        """The ``fills`` WebSocket payload (protocol-notes 5.4: numbers)."""
        o = self.order
        return {
            **self._about(),
            "price": self.price,
            "size": self.size,
            "closed_pnl": self.closed_pnl,
            "original_size": o.size if o else self.size,
            "original_price": o.price if o else self.price,
            "fee": self.fee,
            "broker_fee": self.broker_fee,
            "block_timestamp": self.ts_ms,
        }


class Trade:
    """A public trade: the taker's fill (side, price, size, tx, time) and the maker's address."""

    __slots__ = ("fill", "maker")

    def __init__(self, fill: Fill, maker: str) -> None:
        self.fill = fill
        self.maker = maker

    def record(self) -> dict[str, Any]:
        """The ``trades`` record (protocol-notes 4): decimal strings, ISO timestamp."""
        f = self.fill
        return self._item(dstr(f.price), dstr(f.size), iso_ms(f.ts_ms))

    def event(self) -> dict[str, Any]:
        """The ``trades`` WebSocket item: numbers, ms timestamp."""
        f = self.fill
        return self._item(f.price, f.size, f.ts_ms)

    def _item(self, price: object, size: object, timestamp: object) -> dict[str, Any]:
        """The record and the WebSocket item: the same keys in the same order, the figures as each writes them."""
        f = self.fill
        return {
            "instrument_id": f.inst_id,
            "instrument": f.inst_name,
            "trade_id": f.trade_id,
            "tx_hash": f.tx.hash,
            "side": "b" if f.is_buy else "s",
            "price": price,
            "size": size,
            "maker": self.maker,
            "taker": f.account,
            "timestamp": timestamp,
        }
