"""Open orders: instrument, side, type, price, trigger, size, unfilled, TIF, flags, client id and age. A trailing
stop's order says "trailing" and its distance as its type, and the peak it follows in place of its client id."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar

from rich.text import Text

from tui.api.models import Order, to_datetime
from tui.feed.state import FeedState
from tui.trading.tool_forms import tool_of

from .display import DOWN, UP, fit, fmt_age, fmt_price, fmt_size
from .pane import TablePane

__all__ = ["OpenOrdersPane", "is_protective", "order_flags", "order_type"]

SHORT = {"trailing stop": "trail"}  # as the type column says a tool's order that no tool runs

# (key, label, widest allowed): columns are as wide as their cells (see TablePane)
COLUMNS = (
    ("market", "Market", 12),
    ("side", "Side", 6),  # "▼ sell"
    ("type", "Type", 20),  # "stop market", "trailing 1.5%", "OCO TP (not running)"
    ("price", "Price", 14),
    ("trigger", "Trigger", 14),
    ("size", "Size", 12),
    ("unfilled", "Unfilled", 12),
    ("tif", "TIF", 3),
    ("flags", "Flags", 5),
    ("cloid", "Cloid", 16),
    ("age", "Age", 4),
    ("oid", "Oid", 12),
)


def order_type(o: Order) -> str:
    """What the order is: limit, market, stop market, stop limit, TP or SL (a market TP/SL says so); the TP/SL
    of a bracket or of a position say so instead ("bracket TP", "position SL"); an order a runner of xtui keeps
    says which ("chase", "OCO TP", "OCO stop")."""
    if (tool := tool_of(o.cloid)) is not None:
        return tool
    market = o.is_market or not o.limit_price
    if o.tpsl in ("tp", "sl") and o.grouping in ("normal", "position"):  # one of a group: which one says it
        return ("bracket " if o.grouping == "normal" else "position ") + o.tpsl.upper()
    if o.tpsl in ("tp", "sl"):
        return o.tpsl.upper() + (" market" if market else " limit")
    if o.trigger_px:
        return "stop market" if market else "stop limit"
    return "market" if o.is_market else "limit"


def is_protective(o: Order) -> bool:
    """A take-profit or stop-loss (of a bracket, of a position, or on its own), or a reduce-only stop: what
    guards a position, so one key does not remove it without asking."""
    return o.tpsl in ("tp", "sl") or bool(o.trigger_px and o.reduce_only)


def order_flags(o: Order) -> str:
    """PO post-only, RO reduce-only."""
    return " ".join(flag for flag, on in (("PO", o.post_only), ("RO", o.reduce_only)) if on)


class OpenOrdersPane(TablePane):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"orders", "markets"})
    AGE_TOPIC: ClassVar[str | None] = "orders"
    COLUMNS = COLUMNS
    TABLE_ID = "orders-table"
    PRIORITY = (
        "market", "side", "type", "price", "trigger", "size", "unfilled", "age", "flags", "tif", "cloid", "oid"
    )  # fmt: skip
    LEFT = frozenset({"market", "side", "type", "tif", "flags", "cloid"})

    DEFAULT_CSS = """
    OpenOrdersPane {
        height: 8;
    }
    """

    def __init__(
        self,
        state: FeedState,
        *,
        now_s: Callable[[], float],
        labels: Callable[[], Mapping[str, tuple[str, str]]] | None = None,
        owned: Callable[[], set[str]] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(state, id=id)
        self.border_title = "Open orders"
        self._now_s = now_s
        # cloid -> a trailing stop's type and the peak it follows, shown for it in the type and the cloid columns
        self._labels = labels
        # the cloids the order tools running now keep: another order of a tool's scheme says "(not running)"
        self._owned = owned

    def selected(self) -> Order | None:
        """The order under the cursor."""
        key = self.cursor_key()
        return next((o for o in self.state.account.open_orders if str(o.order_id) == key), None)

    def vanished(self) -> str | None:
        """The order id under the cursor when its order has left the open orders (the row not redrawn yet)."""
        key = self.cursor_key()
        return key if key is not None and self.selected() is None else None

    def refresh_state(self) -> None:
        account = self.state.account
        labels = dict(self._labels()) if self._labels is not None else {}
        if self._owned is not None:
            owned = self._owned()
            for o in account.open_orders:
                tool = tool_of(o.cloid) if o.cloid and o.cloid not in owned and o.cloid not in labels else None
                if tool is not None:  # an earlier run's (a crash), or a tool stopped: nothing of xtui manages it
                    labels[o.cloid] = (f"{SHORT.get(tool, tool)} (not running)", o.cloid)
        rows = [
            (str(o.order_id), self._cells(o, labels.get(o.cloid) if o.cloid else None)) for o in account.open_orders
        ]
        under, at = self.cursor_key(), self.table.cursor_row
        self.sync(rows)
        if under is not None and under not in {key for key, _ in rows}:
            self._land_after_removal(at)
        keys = "x cancel · e amend · X cancel all · k by cloid" if self.offers("cancel_order") else ""
        self.show_account_titles("Open orders", len(rows), keys)

    def _land_after_removal(self, at: int) -> None:
        """The order under the cursor is gone (cancelled, filled, a group cancelled): the cursor goes to the
        nearest row that is not a TP/SL, the one now in its place first, so the next ``x`` cannot take a
        position's protection by accident. With only protective orders left it stays where it is."""
        table = self.table
        by_key = {str(o.order_id): o for o in self.state.account.open_orders}
        keys = [str(row.key.value) for row in table.ordered_rows]
        if not keys:
            return
        at = min(at, len(keys) - 1)
        around = [at, *(i for step in range(1, len(keys)) for i in (at + step, at - step) if 0 <= i < len(keys))]
        for i in around:
            order = by_key.get(keys[i])
            if order is not None and not is_protective(order):
                if i != table.cursor_row:
                    table.move_cursor(row=i, animate=False)
                return

    def _cells(self, o: Order, label: tuple[str, str] | None = None) -> list[str | Text]:
        c = self.colours
        info = self.state.market.instruments.get(o.instrument)
        tick = info.tick_size if info else None
        lot = info.lot_size if info else None
        buy = o.side == "b"
        try:
            age = fmt_age(self._now_s() - to_datetime(o.timestamp).timestamp())
        except (ValueError, OverflowError, OSError):
            age = "-"
        price = "market" if not o.limit_price else fit(fmt_price(o.limit_price, tick), o.limit_price, 14)
        trigger = fit(fmt_price(o.trigger_px, tick), o.trigger_px, 14) if o.trigger_px else "-"
        return [
            Text(o.instrument),
            Text(f"{UP if buy else DOWN} {'buy' if buy else 'sell'}", style=c.side(buy)),
            Text(label[0] if label else order_type(o)),
            _r(price),
            _r(trigger, "" if o.trigger_px else c.muted),
            _r(fit(fmt_size(o.size, lot), o.size, 12)),
            _r(fit(fmt_size(o.unfilled, lot), o.unfilled, 12)),
            Text(o.tif),
            Text(order_flags(o)),
            Text(label[1] if label else o.cloid or "-", style=c.muted if not o.cloid else ""),
            _r(age, c.muted),
            _r(str(o.order_id), c.muted),
        ]


def _r(text: str, style: str = "") -> Text:
    return Text(text, style=style, justify="right")
