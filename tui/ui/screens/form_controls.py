"""The order forms' controls, where Enter always sends: a Select and a Checkbox that leave Enter to the form (the
list opens on space, up or down; the box ticks on space), the buy/sell toggle of the dialog forms (ctrl+t flips it,
as in the order form), and the prices the bid / ask / mid keys put in a price field."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import ClassVar, Literal

from textual.binding import Binding, BindingType
from textual.widgets import Checkbox, Select, Static

from tui.trading import OrderContext

__all__ = ["KINDS", "FormCheckbox", "FormSelect", "Quote", "SideToggle", "book_price", "next_kind"]

KINDS = ("limit", "market", "stop", "take_profit", "stop_loss")  # the order the type key goes through
Quote = Literal["bid", "ask", "mid"]


class FormSelect(Select[str], inherit_bindings=False):
    """A Select whose list opens on space, up or down, never on Enter: Enter on it sends the form."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space,down,up", "show_overlay", "Open the list", id="form.open_list", show=False,
                tooltip="Open a choice's list (Enter sends the form, from any field)"),
    ]  # fmt: skip


class FormCheckbox(Checkbox, inherit_bindings=False):
    """A Checkbox ticked by space (or a click), never by Enter: Enter on it sends the form."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_button", "Tick", id="form.tick", show=False, tooltip="Tick or untick a box"),
    ]


class SideToggle(Static):
    """Buy or sell, flipped by the form's side key (ctrl+t) or a click; not a field typed into or tabbed through."""

    DEFAULT_CSS = """
    SideToggle {
        width: 1fr;
        height: 1;
    }
    SideToggle.-buy {
        color: $bid;
    }
    SideToggle.-sell {
        color: $ask;
    }
    """

    def __init__(self, value: str, choices: Sequence[str], *, id: str) -> None:
        super().__init__("", id=id, markup=False)
        self.choices = tuple(choices)
        self.value = value if value in self.choices else self.choices[0]

    def on_mount(self) -> None:
        self._show()

    def flip(self) -> None:
        """The next choice (the other side)."""
        self.value = self.choices[(self.choices.index(self.value) + 1) % len(self.choices)]
        self._show()

    def on_click(self) -> None:
        self.flip()

    def _show(self) -> None:
        for choice in self.choices:
            self.set_class(choice == self.value, f"-{choice}")
        others = " / ".join(c for c in self.choices if c != self.value)
        self.update(f"{self.value.upper()}   (ctrl+t: {others})")


def next_kind(kind: str) -> str:
    """The order type after ``kind``: limit, market, stop, take-profit, stop-loss, then limit again."""
    return KINDS[(KINDS.index(kind) + 1) % len(KINDS)] if kind in KINDS else KINDS[0]


def book_price(ctx: OrderContext | None, quote: Quote, side: str) -> Decimal | None:
    """The best bid, the best ask or the mid of ``ctx``'s book (None while that side is empty). The mid is put on
    the tick on the passive side of ``side`` (down for a buy, up for a sell): it never pays more than the mid."""
    if ctx is None:
        return None
    bid, ask = ctx.best_bid, ctx.best_ask
    if quote == "bid":
        return bid
    if quote == "ask":
        return ask
    if bid is None or ask is None:
        return None
    rounding = ROUND_FLOOR if side == "buy" else ROUND_CEILING
    return ((bid + ask) / 2 / ctx.tick).to_integral_value(rounding) * ctx.tick
