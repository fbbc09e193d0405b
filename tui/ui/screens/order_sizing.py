"""The order form's sizing tools: preset buttons (25/50/75/100%, ctrl+o steps through them) and the size from risk
(a percent of equity and a stop price; the stop placed with the order, as a bracket, when asked).

A preset writes a size in the base asset, from the position when the order goes against it (100% closes it
exactly), else from the buying power (``tui.trading.sizing``); the line under the form says which. With a risk
percent and a stop, the size is the one that loses that share of equity at the stop, fees included; the size field
shows it and is locked while they are filled, and the form shows the loss at the stop and at the stop's slippage
bound. The pure arithmetic is ``tui.trading.sizing``; this module only reads and writes the form's fields.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from tui.trading import OrderContext, OrderPlan, fmt_decimal
from tui.trading.exits import stop_loss_plan
from tui.trading.grammar import FieldError, parse_positive
from tui.trading.risk_preview import RiskInputs
from tui.trading.sizing import PRESETS, RiskSize, preset_size, risk_size

from .form_controls import FormCheckbox

if TYPE_CHECKING:
    from textual.screen import Screen

__all__ = ["RISK_FIELDS", "RiskRow", "SizePresets", "SizeTools", "risk_row"]

RISK_FIELDS = ("risk", "stop")


class SizePresets(Horizontal):
    """The preset buttons, on the size row."""

    DEFAULT_CSS = """
    SizePresets {
        width: auto;
        height: 1;
    }
    SizePresets Button.preset {
        margin-left: 1;
        min-width: 4;
    }
    """

    def compose(self) -> ComposeResult:
        for percent in PRESETS:  # clicked, or ctrl+o: Tab goes from the size straight on to the risk
            button = Button(f"{percent}%", id=f"preset-{percent}", classes="preset", compact=True)
            button.can_focus = False
            yield button


class RiskRow(Horizontal):
    """Risk %, stop price, and whether to place the stop with the order."""

    DEFAULT_CSS = """
    RiskRow .stop-label {
        width: 5;
        color: $foreground-muted;
    }
    """


def risk_row() -> ComposeResult:
    with RiskRow(classes="row", id="risk-row"):
        yield Label("Risk %", classes="field")
        yield Input("", id="risk_pct", compact=True, placeholder="of equity")
        yield Label("", classes="gap")
        yield Label("Stop", classes="stop-label")
        yield Input("", id="stop", compact=True, placeholder="stop price")
        yield FormCheckbox("place stop", id="with_stop", compact=True)
    yield Static("", id="err-risk", classes="error -empty", markup=False)
    yield Static("", id="err-stop", classes="error -empty", markup=False)


class SizeTools:
    """The sizing part of ``form``: what a preset writes, the size from risk, the stop that goes with the order."""

    def __init__(self, form: Screen[Any], context: Callable[[], OrderContext | None],
                 risk: Callable[[], RiskInputs | None]) -> None:  # fmt: skip
        self.form = form
        self.context = context
        self.risk = risk
        self.preset = 0  # the last preset chosen (0: none)
        self.preset_words = ("", "")  # (the size text it wrote, what it is a share of)

    # ---- presets --------------------------------------------------------------------------------

    def next_preset(self) -> str | None:
        """ctrl+o: the next preset after the last one chosen (25% first); the message when it cannot."""
        at = PRESETS.index(self.preset) + 1 if self.preset in PRESETS else 0
        return self.apply_preset(PRESETS[at % len(PRESETS)])

    def apply_preset(self, percent: int) -> str | None:
        """Write ``percent``'s size into the size field (in the base asset); the message when it cannot."""
        ctx = self.context()
        if ctx is None:
            return "no instrument data yet"
        if self.risk_active():
            return "clear the risk % or the stop first: the size comes from the risk"
        side = str(self.form.query_one("#side", Select).value)
        price = self._limit_price()
        inputs = self.risk()
        try:
            preset = preset_size(percent, side, ctx, price, inputs.taker_rate if inputs else None)  # type: ignore[arg-type]
        except FieldError as exc:
            return exc.message
        text = format(preset.size.normalize(), "f")
        self.preset = percent
        self.preset_words = (text, f"size {fmt_decimal(preset.size)} = {preset.words}")
        self.form.query_one("#unit", Select).value = "base"
        self.form.query_one("#size", Input).value = text
        return None

    def preset_line(self) -> str:
        """What the size is a share of, while the size field holds what the preset wrote."""
        text, words = self.preset_words
        size = self.form.query_one("#size", Input).value
        return words if text and size == text and str(self.form.query_one("#unit", Select).value) == "base" else ""

    def _limit_price(self) -> Decimal | None:
        if str(self.form.query_one("#kind", Select).value) != "limit":
            return None
        try:
            return parse_positive("price", self.form.query_one("#price", Input).value)
        except FieldError:
            return None

    # ---- size from risk -------------------------------------------------------------------------

    def risk_active(self) -> bool:
        return bool(self.form.query_one("#risk_pct", Input).value or self.form.query_one("#stop", Input).value)

    def with_stop(self) -> bool:
        return self.risk_active() and self.form.query_one("#with_stop", Checkbox).value

    def follow(self) -> tuple[RiskSize | None, dict[str, str]]:
        """The size from risk (written into the size field) or what is wrong, keyed risk or stop; (None, {})
        when the risk fields are empty."""
        size_box = self.form.query_one("#size", Input)
        active = self.risk_active()
        size_box.disabled = active
        if not active:
            return None, {}
        try:
            sized = self._risk_size()
        except FieldError as exc:
            return None, {exc.field: exc.message}
        text = format(sized.size.normalize(), "f")
        if size_box.value != text:
            self.form.query_one("#unit", Select).value = "base"
            size_box.value = text
        return sized, {}

    def _risk_size(self) -> RiskSize:
        ctx, inputs = self.context(), self.risk()
        if ctx is None or inputs is None or ctx.kind != "perp":
            raise FieldError("risk", "sizing from risk is for perps")
        kind = str(self.form.query_one("#kind", Select).value)
        side = str(self.form.query_one("#side", Select).value)
        if kind == "limit":
            entry = self._limit_price()
            if entry is None:
                raise FieldError("risk", "give the limit price first: the risk is measured from it")
        elif kind == "market":
            entry = (ctx.best_ask if side == "buy" else ctx.best_bid) or ctx.mark
            if entry is None:
                raise FieldError("risk", "no price to enter at: the book is empty")
        else:
            raise FieldError("risk", "sizing from risk is for limit and market orders")
        if inputs.margin_balance is None:
            raise FieldError("risk", "the account's equity is not known yet")
        risk_text = self.form.query_one("#risk_pct", Input).value
        stop_text = self.form.query_one("#stop", Input).value
        return risk_size(side, inputs.margin_balance, risk_text, entry, stop_text, ctx, inputs.taker_rate)  # type: ignore[arg-type]

    def lines(self, sized: RiskSize | None, ctx: OrderContext) -> list[str]:
        """The risk's lines under the form: the budget, the loss at the stop and at its bound, fees included."""
        if sized is None:
            return [line] if (line := self.preset_line()) else []
        places = max(0, -int(ctx.tick.normalize().as_tuple().exponent))
        stop = "stop placed with it" if self.with_stop() else "stop not placed"
        return [
            f"risk {sized.budget:,.2f} USDC → size {fmt_decimal(sized.size)} · {stop}",
            f"loss at stop {sized.loss:,.2f} with fees · {sized.worst_loss:,.2f} at its bound"
            f" {sized.worst_price:,.{places}f}",
        ]

    def stop_plan(self, entry: OrderPlan, ctx: OrderContext) -> tuple[OrderPlan | None, str]:
        """The stop-loss to send with ``entry`` (None, "" when none is asked)."""
        if not self.with_stop():
            return None, ""
        return stop_loss_plan(ctx, entry, self.form.query_one("#stop", Input).value)
