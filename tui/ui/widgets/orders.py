"""Open orders: instrument, side, price, size, unfilled, TIF, flags, client id and age."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text

from tui.api.models import Order, to_datetime

from .display import DOWN, UP, fmt_age, fmt_price, fmt_size
from .pane import TablePane

__all__ = ["OpenOrdersPane", "order_flags", "order_type"]

COLUMNS = (
    ("market", "Market", 10),
    ("side", "Side", 7),  # "▼ sell" and a space
    ("type", "Type", 7),
    ("price", "Price", 11),
    ("size", "Size", 10),
    ("unfilled", "Unfilled", 10),
    ("tif", " TIF", 5),
    ("flags", "Flags", 10),
    ("cloid", "Cloid", 13),
    ("age", "Age", 5),
    ("oid", "Oid", 9),
)


def order_type(o: Order) -> str:
    if o.tpsl == "tp":
        return "TP"
    if o.tpsl == "sl":
        return "SL"
    if o.trigger_px:
        return "stop"
    return "market" if o.is_market else "limit"


def order_flags(o: Order) -> str:
    """PO post-only, RO reduce-only, T@price trigger."""
    flags = []
    if o.post_only:
        flags.append("PO")
    if o.reduce_only:
        flags.append("RO")
    if o.trigger_px:
        flags.append(f"T@{o.trigger_px.normalize():f}")
    return " ".join(flags)


class OpenOrdersPane(TablePane):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"orders", "markets"})
    COLUMNS = COLUMNS
    TABLE_ID = "orders-table"
    PRIORITY = ("market", "side", "price", "size", "type", "unfilled", "age", "flags", "tif", "cloid", "oid")
    LEFT = frozenset({"market", "side", "type", "tif", "flags", "cloid"})

    DEFAULT_CSS = """
    OpenOrdersPane {
        height: 8;
    }
    """

    def __init__(self, state: Any, *, now_s: Callable[[], float], id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.border_title = "Open orders"
        self._now_s = now_s

    def selected(self) -> Order | None:
        """The order under the cursor."""
        key = self.cursor_key()
        return next((o for o in self.state.account.open_orders if str(o.order_id) == key), None)

    def refresh_state(self) -> None:
        account = self.state.account
        rows = [(str(o.order_id), self._cells(o)) for o in account.open_orders]
        self.sync(rows)
        self.show_account_titles("Open orders", len(rows), "x cancel · X cancel all · k by cloid")

    def _cells(self, o: Order) -> list[str | Text]:
        c = self.colours
        info = self.state.market.instruments.get(o.instrument)
        tick = info.tick_size if info else None
        lot = info.lot_size if info else None
        buy = o.side == "b"
        try:
            age = fmt_age(self._now_s() - to_datetime(o.timestamp).timestamp())
        except (ValueError, OverflowError, OSError):
            age = "-"
        price = "market" if o.is_market and not o.limit_price else fmt_price(o.limit_price, tick)
        return [
            Text(o.instrument),
            Text(f"{UP if buy else DOWN} {'buy' if buy else 'sell'}", style=c.side(buy)),
            Text(order_type(o)),
            _r(price),
            _r(fmt_size(o.size, lot)),
            _r(fmt_size(o.unfilled, lot)),
            Text(f" {o.tif}"),
            Text(order_flags(o)),
            Text(o.cloid or "-", style=c.muted if not o.cloid else ""),
            _r(age, c.muted),
            _r(str(o.order_id), c.muted),
        ]


def _r(text: str, style: str = "") -> Text:
    return Text(text, style=style, justify="right")
