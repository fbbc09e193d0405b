"""Amending an open order: its price, trigger and size; sent as a cancel, then the new order once the cancel
is done."""

from __future__ import annotations

from tui.api.errors import ActionRejected, ClientError
from tui.api.models import Order
from tui.order_entry import (
    OrderContext,
    OrderPlan,
    amend_input,
    confirmation_reasons,
    validate,
)
from tui.ui.widgets.display import short_address

from ..field_checks import FieldError
from ..form import FormField, FormScreen
from ..order_form import fmt_plain
from .base import AmendUnsure, DeskBase, checked, describe_order, order_context, placed_oid


class Amends(DeskBase):
    """An open order changed: cancelled, then placed anew once the cancel is done."""

    def amend_order(self, order: Order | None) -> None:
        """A form with the order's price, trigger and size; on Enter, cancel it and place the new one. The
        new order is sent only once the exchange has cancelled the old one."""
        if self._refuse("amend"):
            return
        if order is None:
            self.screen.notify("No open order selected.", severity="warning")
            return
        symbol = order.instrument
        if order_context(self.state, symbol, self.policy.slippage_pct) is None:
            return
        triggered = bool(order.trigger_px) or order.tpsl in ("tp", "sl")
        fields = [
            FormField(
                "price",
                "Price",
                "" if order.is_market else fmt_plain(order.limit_price),
                placeholder="empty: market when triggered" if triggered else "",
            )
        ]
        if triggered:
            fields.append(FormField("trigger", "Trigger price", fmt_plain(order.trigger_px)))
        fields.append(FormField("size", "Size", fmt_plain(order.unfilled)))
        names = tuple(f.name for f in fields)

        def check(values: dict[str, str]) -> tuple[OrderPlan, OrderContext]:
            ctx = order_context(self.state, symbol, self.policy.slippage_pct)
            if ctx is None:
                raise FieldError("price", f"no {symbol} data")
            new = amend_input(order, values["price"], values.get("trigger", ""), values["size"])
            plan = checked(validate(new, ctx), names)
            return plan, ctx

        def entered(answer: tuple[OrderPlan, OrderContext] | None) -> None:
            if answer is None:
                return
            plan, ctx = answer
            reasons = confirmation_reasons(plan, ctx, self.policy)
            if not reasons:
                self._amend(order, plan)
                return

            lines = [f"oid {order.order_id} → {plan.describe()}", *reasons]
            self._ask(f"Amend order {order.order_id}?", lines, lambda: self._amend(order, plan))

        notes = [
            f"oid {order.order_id}: {describe_order(order)}",
            "Cancels it, then places the new order; if the cancel fails, nothing is placed.",
        ]
        form = FormScreen(
            f"Amend order {order.order_id}", fields, check, notes=notes, focus="trigger" if triggered else "price"
        )
        self.screen.app.push_screen(form, entered)

    def _amend(self, order: Order, plan: OrderPlan) -> None:
        async def call() -> str:
            try:
                await self.client.cancel_by_oid([(order.order_id, order.instrument_id)])
            except ActionRejected as exc:
                raise ActionRejected(
                    f"could not cancel oid {order.order_id} ({exc.message}): nothing was placed", exc.envelope
                ) from exc
            except ClientError as exc:
                raise AmendUnsure(order.order_id, exc) from exc
            try:
                resp = await self.client.place_order([plan.to_wire()])
                new = placed_oid(resp)
            except ClientError as exc:
                raise AmendUnsure(order.order_id, exc, cancelled=True) from exc
            return f"amended oid {order.order_id} → oid {new}\n{plan.describe()} · tx {short_address(resp.tx_hash)}"

        self._run("Amend", call)
