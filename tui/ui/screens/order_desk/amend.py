"""Amending an open order: its price, trigger and size; sent as a cancel, then the new order once the cancel
is done. The funds check counts what the cancel frees. A new order whose answer is lost is read back from the
exchange's record by its cloid; one that was not placed is said loudly, with a one-key offer to place it again."""

from __future__ import annotations

from tui.api.errors import ActionRejected, ClientError
from tui.api.models import Order
from tui.trading import (
    OrderContext,
    OrderPlan,
    amend_input,
    freed_by,
    validate,
)
from tui.trading import placement as placing
from tui.trading.cloids import with_tool_cloids
from tui.trading.grammar import FieldError
from tui.trading.outcomes import AmendUnsure, checked, describe_order, why_failed
from tui.ui.widgets.display import short_address

from ..form import FormField, FormScreen
from ..order_form import fmt_plain
from .base import DeskActions

AMEND_EXPIRY_S = 15.0  # a new order the exchange has not seen by then never goes: its lost answer is settled soon


class Amends(DeskActions):
    """An open order changed: cancelled, then placed anew once the cancel is done."""

    def amend_order(self, order: Order | None) -> None:
        """A form with the order's price, trigger and size; on Enter, cancel it and place the new one. The
        new order is sent only once the exchange has cancelled the old one."""
        if not self.acting_on(order, "amend", "No open order selected."):
            return
        symbol = order.instrument
        if self.desk.context(symbol) is None:
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
            ctx = self.desk.context(symbol)
            if ctx is None:
                raise FieldError("price", f"no {symbol} data")
            ctx = freed_by(order, ctx)  # the old order's hold is free again once it is cancelled
            new = amend_input(order, values["price"], values.get("trigger", ""), values["size"])
            plan = checked(validate(new, ctx), names)
            return plan, ctx

        def entered(answer: tuple[OrderPlan, OrderContext] | None) -> None:
            if answer is None:
                return
            plan, ctx = answer
            if self.desk.guarded([plan]):
                return
            reasons = self.desk.questions([plan], ctx)
            if not reasons:
                self._amend(order, plan)
                return

            lines = [f"oid {order.order_id} → {plan.describe()}", *reasons]
            self.desk.ask(f"Amend order {order.order_id}?", lines, lambda: self._amend(order, plan))

        notes = [
            f"oid {order.order_id}: {describe_order(order)}",
            "Cancels it, then places the new order; if the cancel fails, nothing is placed.",
        ]
        form = FormScreen(
            f"Amend order {order.order_id}",
            fields,
            check,
            notes=notes,
            focus="trigger" if triggered else "price",
            enter="Enter: cancel and replace (asks first only when the order needs it)",
        )
        self.port.push(form, entered)

    def _amend(self, order: Order, plan: OrderPlan) -> None:
        [plan] = with_tool_cloids([plan], "amend")  # an id of its own: a lost answer is read back from the record

        async def call() -> str:
            try:
                resp = await self.desk.client.cancel_by_oid([(order.order_id, order.instrument_id)])
            except ActionRejected as exc:
                raise ActionRejected(
                    f"could not cancel oid {order.order_id} ({exc.message}): nothing was placed", exc.envelope
                ) from exc
            except ClientError as exc:
                raise AmendUnsure(order.order_id, exc) from exc
            self.desk.cancel_answered(resp, [order.order_id])
            return await self._replace(order, plan)

        self.desk.run("Amend", call)

    async def _replace(self, order: Order, plan: OrderPlan) -> str:
        """Place ``plan`` now that ``order`` is cancelled. A lost answer is settled from the record (by cloid, newer
        than ``order``) before anything else; not placed, the trader is told loudly and offered it again (y)."""
        client = self.desk.client

        def unconfirmed(lost: str) -> None:
            self.port.notify(
                f"oid {order.order_id} is cancelled; the new order's answer was lost ({lost}): reading the exchange's "
                "record before anything else is sent",
                title="Amend unconfirmed",
                severity="warning",
                markup=False,
            )

        request = placing.PlaceRequest((plan,), "amend", expiry_s=AMEND_EXPIRY_S, after_oid=order.order_id)
        outcome = await placing.place(client, request, on_unconfirmed=unconfirmed)
        match outcome:
            case placing.Accepted():
                self.desk.took([plan], outcome.oids)
                new = outcome.oids[0]
                tx = short_address(outcome.tx_hash)
                return f"amended oid {order.order_id} → oid {new}\n{plan.describe()} · tx {tx}"
            case placing.Refused():
                self._offer_again(order, plan, why_failed(outcome.error))
                raise AmendUnsure(order.order_id, outcome.error, cancelled=True) from outcome.error
            case placing.WrongAccount():
                raise outcome.error
            case placing.Settled(orders=(record,)) if record.found:
                return (
                    f"amended oid {order.order_id} → oid {record.oid} (its answer was lost; the exchange's record "
                    f"has it)\n{plan.describe()}"
                )
            case placing.Settled():
                lost = ClientError(outcome.lost)
                self._offer_again(order, plan, f"{outcome.lost}; the exchange has no record of it")
                raise AmendUnsure(order.order_id, lost, cancelled=True)
            case placing.Unknown():
                raise AmendUnsure(order.order_id, ClientError(outcome.lost), cancelled=True, unknown=True)

    def _offer_again(self, order: Order, plan: OrderPlan, why: str) -> None:
        """The old order is gone and the new one is not there: a question that places it again with one key."""

        def again() -> None:
            self.desk.run("Amend", lambda: self._replace(order, plan))

        lines = [f"Not placed: {why}", f"New order: {plan.describe()}", "y places it again now; n leaves no order."]
        title = f"Order {order.order_id} was CANCELLED, its replacement was NOT placed. Place it again?"
        self.desk.ask(title, lines, again, yes="Place again (y)")
