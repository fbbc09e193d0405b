"""The account's own fills, newest first: time, market, side, size, price, fee, maker or taker, order id."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from tui.api.models import Fill, to_datetime
from tui.feed.events import LIQUIDATION_FILL
from tui.feed.state import FeedState

from .display import DOWN, UP, fmt_money, fmt_price, fmt_size
from .pane import TablePane

__all__ = ["FillsPane", "fill_key", "fill_role"]

COLUMNS = (
    ("time", "Time", 8),
    ("market", "Market", 10),
    ("side", "Side", 7),  # "▼ sell" and a space
    ("size", "Size", 10),
    ("price", "Price", 11),
    ("fee", "Fee", 9),
    ("role", " Role", 6),
    ("oid", "Oid", 9),
)


def fill_key(f: Fill) -> str:
    """A fill's row key: both sides of a self-trade share a trade id, and a liquidation has no order."""
    return f"{f.trade_id}:{f.order_id}:{f.side}"


def fill_role(f: Fill) -> str:
    """maker, taker, or liq. (a liquidation's fill, at the mark)."""
    if f.fill_type == LIQUIDATION_FILL:
        return "liq."
    return "taker" if f.crossed else "maker"


def _clock(ts: str | int) -> str:
    try:
        return to_datetime(ts).strftime("%H:%M:%S")
    except (ValueError, OverflowError, OSError):
        return "--:--:--"


class FillsPane(TablePane):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"fills", "markets"})
    COLUMNS = COLUMNS
    TABLE_ID = "fills-table"
    PRIORITY = ("market", "side", "size", "price", "time", "role", "fee", "oid")
    LEFT = frozenset({"time", "market", "side", "role"})

    def __init__(self, state: FeedState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.border_title = "Fills"

    def refresh_state(self) -> None:
        fills = list(self.state.account.fills)  # newest first
        self.sync([(fill_key(f), self._cells(f)) for f in fills])
        self.show_account_titles("Fills", len(fills), "newest first")

    def _cells(self, f: Fill) -> list[str | Text]:
        c = self.colours
        info = self.state.market.instruments.get(f.instrument)
        tick = info.tick_size if info else None
        lot = info.lot_size if info else None
        buy = f.side == "b"
        role = fill_role(f)
        return [
            Text(_clock(f.block_timestamp), style=c.muted),
            Text(f.instrument),
            Text(f"{UP if buy else DOWN} {'buy' if buy else 'sell'}", style=c.side(buy)),
            _r(fmt_size(f.size, lot)),
            _r(fmt_price(f.price, tick)),
            _r(fmt_money(f.fee), c.up if f.fee < 0 else ""),  # a negative fee is a rebate; cents, as balances
            Text(f" {role}", style=f"bold {c.error}" if role == "liq." else ""),
            _r(str(f.order_id) if f.order_id else "-", c.muted),
        ]


def _r(text: str, style: str = "") -> Text:
    return Text(text, style=style, justify="right")
