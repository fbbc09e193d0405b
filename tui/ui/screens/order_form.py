"""The order form: side, type, price, trigger, size (base, quote or % of available), TIF, post-only, reduce-only.

Sizing tools (``order_sizing``): preset buttons 25/50/75/100% (ctrl+o steps through them) of the position when the
order goes against it, else of the buying power; a risk percent of equity and a stop price give the size, with the
loss at the stop (fees included) shown, and the stop sent with the order as a bracket when "place stop" is ticked.

Enter in any field submits. Everything is validated here before anything is sent (``tui.trading``);
each problem shows under its field. As it is typed, the order's risk shows under the form
(``tui.trading.risk_preview``): the margin it takes and its fee, the liquidation price and available balance
after it, the leverage in force (ctrl+l changes it) and the margin mode. A large order, or a limit price far
through the book, is confirmed first, the confirmation repeating the liquidation price after it. The form sends
(``send``) and stays open until the exchange answers: accepted, it closes with the ``OrderPlan`` sent; refused, it
shows why and stays, so the order can be fixed and sent again (the refusal goes once the order changes). Escape
closes it (None) at any time; an order already sent still gets its notice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from decimal import Decimal
from typing import ClassVar, Protocol, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from tui.trading import (
    ConfirmPolicy,
    OrderContext,
    OrderInput,
    OrderPlan,
    Side,
    confirmation_reasons,
    market_estimate,
    validate,
)
from tui.trading.orders import Kind, SizeUnit, Tif
from tui.trading.risk_preview import RiskInputs, leverage_line, liquidation_line, money, preview_plan, risk_lines
from tui.ui.widgets.display import fmt_money

from .confirm import ConfirmScreen
from .form_controls import FormCheckbox, FormSelect, Quote, book_price, next_kind
from .order_form_keys import ORDER_FORM_KEYS
from .order_form_layout import ORDER_FORM_CSS
from .order_sizing import RISK_FIELDS, SizePresets, SizeTools, risk_row

__all__ = ["OrderFormScreen", "Send", "Settled"]

log = logging.getLogger("tui.ui")

# Told the exchange's refusal of a plan sent (the form stays open to fix it), or None once there is nothing to
# fix here (accepted; or an outcome unknown, when sending again could place the order twice).
Settled = Callable[[str | None], None]
Send = Callable[[OrderPlan, Settled], None]  # how the form sends a plan
SendGroup = Callable[[list[OrderPlan], Settled], None]  # how it sends an order with its stop, in one placeOrder


class Gate(Protocol):
    """The desk's say before an order goes: the profile's guards (final), then what to ask (armed asks less)."""

    def refusal(self, plans: list[OrderPlan]) -> str | None: ...

    def questions(self, plans: list[OrderPlan], ctx: OrderContext | None) -> list[str]: ...


KIND_OPTIONS = [
    ("limit", "limit"),
    ("market", "market"),
    ("stop", "stop"),
    ("take-profit", "take_profit"),
    ("stop-loss", "stop_loss"),
]
TIF_OPTIONS = [("GTC", "GTC"), ("IOC", "IOC"), ("FOK", "FOK")]
SIDES: tuple[Side, ...] = ("buy", "sell")
KINDS: tuple[Kind, ...] = ("limit", "market", "stop", "take_profit", "stop_loss")
UNITS: tuple[SizeUnit, ...] = ("base", "quote", "percent")
TIFS: tuple[Tif, ...] = ("GTC", "IOC", "FOK")
_Choice = TypeVar("_Choice", bound=str)
FOLLOW_S = 1.0  # how often the estimates follow the book and the account while nothing is typed
ERROR_FIELDS = ("kind", "price", "trigger", "size", *RISK_FIELDS, "tif", "post_only", "reduce_only", "cloid")
COMPACT_BELOW = 32  # terminal rows under which the form's rows lose the blank line between them


class OrderFormScreen(ModalScreen[OrderPlan | None]):
    BINDINGS: ClassVar[list[BindingType]] = ORDER_FORM_KEYS

    DEFAULT_CSS = ORDER_FORM_CSS

    def __init__(
        self,
        *,
        side: str,
        price: Decimal | None,
        context: Callable[[], OrderContext | None],
        policy: ConfirmPolicy,
        send: Send,
        gate: Gate | None = None,
        risk: Callable[[], RiskInputs | None] = lambda: None,
        change_leverage: Callable[[], object] | None = None,
        send_group: SendGroup | None = None,
    ) -> None:
        super().__init__()
        self._send_group = send_group
        self.sizing = SizeTools(self, context, risk)
        self._gate = gate
        self._risk = risk
        self._change_leverage = change_leverage
        self._side = side
        self._price = price
        self._order_context = context
        self._policy = policy
        self._send = send
        self.sending: OrderPlan | None = None  # sent, the exchange's answer not in yet
        self._accepted_meanwhile: OrderPlan | None = None  # accepted while another screen was over it
        self._tried = False  # errors show after the first submit, then follow the typing
        self.shown_errors: dict[str, str] = {}  # by field, as shown under the fields (all empty at first)

    # ---- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        ctx = self._order_context()
        base = ctx.base_asset if ctx else "base"
        with Vertical(classes=f"-{self._side}"):
            with Horizontal(classes="row"):
                yield Label("", id="form-title", markup=False)
            with Horizontal(classes="row"):
                yield Label("Side", classes="field")
                sides = [("buy", "buy"), ("sell", "sell")]
                yield FormSelect(sides, value=self._side, allow_blank=False, id="side", compact=True)
                yield Label("", classes="gap")
                yield Label("Type", classes="field")
                yield FormSelect(KIND_OPTIONS, value="limit", allow_blank=False, id="kind", compact=True)
            yield Static("", id="err-kind", classes="error -empty", markup=False)
            with Horizontal(classes="row"):
                yield Label("Price", classes="field")
                yield Input(fmt_plain(self._price), id="price", compact=True, placeholder="limit price")
                yield Label("", classes="gap")
                yield Label("Trigger", classes="field")
                yield Input("", id="trigger", compact=True, placeholder="stop / TP / SL only", disabled=True)
            yield Static("", id="err-price", classes="error -empty", markup=False)
            yield Static("", id="err-trigger", classes="error -empty", markup=False)
            with Horizontal(classes="row"):
                yield Label("Size", classes="field")
                yield Input("", id="size", compact=True, placeholder=f"in {base}")
                yield Label(" in ")
                units = [(base, "base"), ("USDC", "quote"), ("% avail", "percent")]
                yield FormSelect(units, value="base", allow_blank=False, id="unit", compact=True)
                yield SizePresets()
            yield Static("", id="err-size", classes="error -empty", markup=False)
            yield from risk_row()
            with Horizontal(classes="row"):
                yield Label("TIF", classes="field")
                yield FormSelect(TIF_OPTIONS, value="GTC", allow_blank=False, id="tif", compact=True)
                yield FormCheckbox("post-only", id="post_only", compact=True)
                yield FormCheckbox("reduce-only", id="reduce_only", compact=True)
            yield Static("", id="err-tif", classes="error -empty", markup=False)
            yield Static("", id="err-post_only", classes="error -empty", markup=False)
            yield Static("", id="err-reduce_only", classes="error -empty", markup=False)
            with Horizontal(classes="row"):
                yield Label("Cloid", classes="field")
                yield Input("", id="cloid", compact=True, placeholder="client order id (optional)")
            yield Static("", id="err-cloid", classes="error -empty", markup=False)
            yield Static("", id="summary", markup=False)
            yield Static("", id="risk", markup=False)
            yield Static("", id="err-send", classes="error -empty", markup=False)
            with Horizontal(id="buttons", classes="row"):
                yield Button("Cancel (esc)", id="cancel", compact=True)
                yield Button("Submit (enter)", id="submit", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.set_class(self.app.size.height < COMPACT_BELOW, "-compact")
        self._update_title()
        self.query_one("#size", Input).focus()
        self._refresh()
        self.set_interval(FOLLOW_S, self._refresh)  # the book and the account move while the form is open

    # ---- reading the form -----------------------------------------------------------------------

    def form_input(self) -> OrderInput:
        """What the form holds now."""
        return OrderInput(
            side=self._choice("side", SIDES),
            kind=self._choice("kind", KINDS),
            price=self.query_one("#price", Input).value,
            trigger=self.query_one("#trigger", Input).value,
            size=self.query_one("#size", Input).value,
            size_unit=self._choice("unit", UNITS),
            tif=self._choice("tif", TIFS),
            post_only=self.query_one("#post_only", Checkbox).value,
            reduce_only=self.query_one("#reduce_only", Checkbox).value,
            cloid=self.query_one("#cloid", Input).value,
        )

    def _choice(self, id_: str, choices: tuple[_Choice, ...]) -> _Choice:
        """A select's value among ``choices``, the only ones it offers (the first should it hold another)."""
        value = self._select(id_)
        return next((choice for choice in choices if choice == value), choices[0])

    def _select(self, id_: str) -> str:
        """A select's value; its first choice while it has none (Textual's ``Select.NULL`` as the form closes)."""
        select = self.query_one(f"#{id_}", Select)
        if select.value is Select.NULL:
            return {"side": self._side, "kind": "limit", "unit": "base", "tif": "GTC"}.get(id_, "")
        return str(select.value)

    # ---- reacting -------------------------------------------------------------------------------

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "side":
            self._side = str(event.value)
            box = self.query_one(Vertical)
            box.set_class(self._side == "sell", "-sell")
            box.set_class(self._side == "buy", "-buy")
            self._update_title()
        if event.select.id == "kind":
            kind = str(event.value)
            self.query_one("#trigger", Input).disabled = kind in ("limit", "market")
            price = self.query_one("#price", Input)
            price.disabled = kind == "market"
            price.placeholder = "limit price" if kind == "limit" else "empty: market when triggered"
        self._order_changed()
        self._refresh()

    @on(Input.Changed)
    @on(Checkbox.Changed)
    def _changed(self) -> None:
        self._order_changed()
        self._refresh()

    def _order_changed(self) -> None:
        """A refusal was of the order as it was: once it changes, the refusal no longer applies."""
        if self.sending is None:
            self._error_line("send", "")

    def risk_read(self) -> None:
        """The leverage in force or the fee rates were read again: the figures follow."""
        if self.is_attached:
            self._refresh()

    def action_change_leverage(self) -> None:
        if self._change_leverage is not None:
            self._change_leverage()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()

    def on_resize(self) -> None:
        self.set_class(self.app.size.height < COMPACT_BELOW, "-compact")

    def action_size_preset(self) -> None:
        self._error_line("size", self.sizing.next_preset() or "")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id and event.button.id.startswith("preset-"):
            self._error_line("size", self.sizing.apply_preset(int(event.button.id.removeprefix("preset-"))) or "")
            return
        if event.button.id == "submit":
            self.submit()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_toggle_side(self) -> None:
        select = self.query_one("#side", Select)
        select.value = "sell" if select.value == "buy" else "buy"

    def action_submit(self) -> None:
        """Enter where no field takes it (a choice, a box, no focus): the order goes, as from a text field."""
        self.submit()

    def action_market_limit(self) -> None:
        select = self.query_one("#kind", Select)
        select.value = "limit" if select.value == "market" else "market"

    def action_next_kind(self) -> None:
        select = self.query_one("#kind", Select)
        select.value = next_kind(self._select("kind"))

    def action_book_price(self, quote: Quote) -> None:
        """The book's best bid, best ask or mid into the price; a market order becomes a limit one to take it."""
        price = book_price(self._order_context(), quote, self._select("side"))
        if price is None:
            self._error_line("send", f"No {quote} in the book to put in the price.")
            return
        kind = self.query_one("#kind", Select)
        if kind.value == "market":
            kind.value = "limit"
        self.query_one("#price", Input).value = fmt_plain(price)

    def _update_title(self) -> None:
        ctx = self._order_context()
        symbol = ctx.symbol if ctx else "?"
        sending = " · sending…" if self.sending is not None else ""
        self.query_one("#form-title", Label).update(f"{self._side.upper()} {symbol}{sending}")

    def on_screen_resume(self) -> None:
        if self._accepted_meanwhile is not None:
            self.dismiss(self._accepted_meanwhile)

    def _refresh(self) -> None:
        """The value the order would have, and (after a first submit) the problems, as the user types."""
        try:
            self._refresh_now()
        except Exception as exc:  # shown under the form and logged: what is typed never ends the app
            self._unexpected(exc)

    def _unexpected(self, exc: Exception) -> None:
        log.error("the order form's check failed", exc_info=exc)
        self._error_line("send", f"Could not check this order: {type(exc).__name__}: {exc}. Nothing was sent.")

    def _refresh_now(self) -> None:
        ctx = self._order_context()
        if ctx is None:
            self._show({"kind": "no instrument data yet"})
            return
        sized, risk_errors = self.sizing.follow()
        result = validate(self.form_input(), ctx)
        if self._tried:
            self._show(result.errors | risk_errors)
        else:
            for name in RISK_FIELDS:  # said at once: a risk that cannot be sized leaves the size as it was
                self._error_line(name, risk_errors.get(name, ""))
        summary = self.query_one("#summary", Static)
        avail = f"avail {fmt_money(ctx.available)} USDC"
        inputs = self._risk() if ctx.kind == "perp" else None
        lines = [] if inputs is not None else [avail]  # with the risk shown, it says what is available
        if result.plan is not None:
            estimate = market_estimate(result.plan, ctx)
            lines = [f"≈ {fmt_money(result.plan.notional)} USDC", *([estimate] if estimate else []), *lines]
        lines += self.sizing.lines(sized, ctx)
        _set_text(summary, "\n".join(lines))
        summary.display = bool(lines)
        risk = self.query_one("#risk", Static)
        _set_text(risk, "\n".join(self._risk_lines(result.plan, ctx, inputs)))
        risk.set_class(not lines, "-first")

    def _risk_lines(self, plan: OrderPlan | None, ctx: OrderContext, inputs: RiskInputs | None) -> list[str]:
        """The risk of the order as typed (the leverage and mode alone until it is a valid order); none on spot."""
        if inputs is None:
            return []
        key = "ctrl+l" if self._change_leverage is not None else ""
        if plan is not None:
            return risk_lines(preview_plan(plan, ctx, inputs), ctx.tick, leverage_key=key)
        return [f"avail {money(inputs.available)} USDC", leverage_line(inputs.leverage, inputs.isolated, key)]

    def _show(self, errors: dict[str, str]) -> None:
        self.shown_errors = dict(errors)
        for name in ERROR_FIELDS:
            self._error_line(name, errors.get(name, ""))

    def _error_line(self, name: str, text: str) -> None:
        """The message under ``name`` (``#err-<name>``), hidden while empty."""
        box = self.query_one(f"#err-{name}", Static)
        if str(box.content) != text:  # unchanged (they start empty): an update would cost a layout pass
            box.update(text)
            box.set_class(not text, "-empty")

    # ---- submitting -----------------------------------------------------------------------------

    def submit(self) -> None:
        try:
            self._submit()
        except Exception as exc:  # shown under the form and logged: what is typed never ends the app
            self._unexpected(exc)

    def _submit(self) -> None:
        if self.sending is not None:
            return  # one at a time: Enter again while the first is on its way sends nothing
        self._tried = True
        ctx = self._order_context()
        if ctx is None:
            self._show({"kind": "no instrument data yet"})
            return
        _, risk_errors = self.sizing.follow()
        result = validate(self.form_input(), ctx)
        self._show(result.errors | risk_errors)
        plan = result.plan
        if plan is None or risk_errors:
            return
        stop, why = self.sizing.stop_plan(plan, ctx)
        if why:
            self._show({"stop": why})
            return
        if stop is not None and self._send_group is None:
            self._show({"stop": "this form cannot send a stop with the order: untick 'place stop'"})
            return
        plans = [plan, stop] if stop is not None else [plan]
        refused = self._gate.refusal(plans) if self._gate is not None else None
        if refused is not None:  # the profile's guard: said, never asked
            self._error_line("send", f"Refused by this profile's guard: {refused}. Nothing was sent.")
            return
        if self._gate is not None:
            reasons = self._gate.questions(plans, ctx)
        else:
            reasons = confirmation_reasons(plan, ctx, self._policy)
        if not reasons:
            self._send_plan(plans)
            return

        def answered(yes: bool | str | None) -> None:
            if yes is True:
                self._send_plan(plans)

        estimate = market_estimate(plan, ctx)
        inputs = self._risk() if ctx.kind == "perp" else None
        liq = liquidation_line(plan, ctx, inputs) if inputs is not None else ""
        with_stop = [f"with its stop: {stop.describe()}"] if stop is not None else []
        lines = [*with_stop, *reasons, *filter(None, [estimate, liq])]
        self.app.push_screen(ConfirmScreen(f"Send {plan.describe()}?", lines), answered)

    def _send_plan(self, plans: list[OrderPlan]) -> None:
        """Send ``plans`` (an order, or an order and its stop) and stay open until the exchange answers: the frame
        that closes the form comes after the acknowledgement, not before the order leaves."""
        self.sending = plans[0]
        self._update_title()
        self._error_line("send", "")
        if len(plans) > 1 and self._send_group is not None:
            self._send_group(plans, self._settled)
            return
        self._send(plans[0], self._settled)

    def _settled(self, refusal: str | None) -> None:
        plan, self.sending = self.sending, None
        if self not in self.app.screen_stack:
            return  # closed meanwhile (Escape): the notice says how it ended
        if refusal is None:
            if self.is_active:
                self.dismiss(plan)
            else:  # a question came over it meanwhile: it closes when it is on top again
                self._accepted_meanwhile = plan
            return
        self._update_title()
        self._error_line("send", f"Refused by the exchange: {refusal}. Nothing was placed; change it and send again.")


def _set_text(box: Static, text: str) -> None:
    """Update ``box`` only when its text changes: the figures are followed every second, mostly unchanged."""
    if str(box.content) != text:
        box.update(text)


def fmt_plain(value: Decimal | None) -> str:
    return "" if value is None else format(value.normalize(), "f")
