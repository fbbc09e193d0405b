"""The actions that send several orders in one placeOrder: a bracket (entry with take-profit and stop-loss),
exits for a position, a scale of limit orders between two prices; and the cancel of a scale's group."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

import msgspec

from tui.api.models import Order, Position
from tui.trading import (
    SCALE_MAX,
    OrderContext,
    OrderInput,
    OrderPlan,
    ScalePlan,
    bracket_plans,
    fmt_decimal,
    position_exit_plans,
    scale_group_of,
    scale_plan,
    validate,
)
from tui.trading.exit_outcome import ExitOutcome, entry_fee, exit_lines, exit_outcome
from tui.trading.grammar import FieldError
from tui.trading.outcomes import first_error
from tui.trading.scale import scale_prices
from tui.ui.widgets.display import fmt_money, fmt_price, fmt_size, short_address

from ..form import FormField, FormScreen, side_field, side_of
from ..order_form import fmt_plain
from .base import DeskActions


class MultiOrders(DeskActions):
    """Several orders in one placeOrder (bracket, exits, scale), and a scale group's cancel."""

    def bracket(self) -> None:
        """An entry with a take-profit and/or a stop-loss, one placeOrder: the TP/SL wait for the entry."""
        if self.desk.refuse("bracket order"):
            return
        symbol = self.desk.state.market.selected
        ctx0 = self.desk.context(symbol)
        if ctx0 is None or ctx0.kind != "perp":
            self.port.notify("Brackets are for perps: select one.", severity="warning")
            return

        def check(values: dict[str, str]) -> tuple[list[OrderPlan], OrderContext]:
            ctx = self.desk.context(symbol)
            side = side_of(values["side"])
            if ctx is None or side is None:
                raise FieldError("side", "buy or sell")
            plans, errors = bracket_plans(ctx, side, values["price"], values["size"], values["tp"], values["sl"])
            if plans is None:
                raise first_error(errors, ("price", "size", "tp", "sl"))
            return plans, ctx

        fields = [
            side_field(),
            FormField(
                "price", "Entry price", fmt_plain(ctx0.best_bid) if ctx0.best_bid else "", placeholder="empty: market"
            ),
            FormField("size", "Size", "", placeholder=f"in {symbol.split('-')[0]}"),
            FormField("tp", "Take-profit", "", placeholder="trigger price (optional)"),
            FormField("sl", "Stop-loss", "", placeholder="trigger price (optional)"),
        ]
        notes = [  # each within the form's 70 columns: the form is full at 80x24
            "TP and SL: reduce-only trigger market orders for the entry's size;",
            "they wait for its fill, and go when it is cancelled or closed.",
        ]

        def preview(values: dict[str, str]) -> list[str]:
            ctx = self.desk.context(symbol)
            side = side_of(values["side"])
            if ctx is None or side is None:
                return self.desk.risk_preview(None, ctx, "side: buy or sell")
            price = values["price"].strip()  # the entry alone: the TP and SL only ever reduce it
            entry = OrderInput(side=side, kind="limit" if price else "market", price=price, size=values["size"])
            result = validate(entry, ctx)
            lines = self.desk.risk_preview(result.plan, ctx, next(iter(result.errors.values()), ""))
            inputs, plan = self.desk.risk(symbol), result.plan
            paid_in = entry_fee(plan, ctx, inputs) if plan is not None else None  # the entry is not placed yet

            def leg(tp: str, sl: str) -> ExitOutcome | None:
                plans = bracket_plans(ctx, side, price, values["size"], tp, sl)[0] if (tp + sl).strip() else None
                return exit_outcome(plans[-1], plans[0].reference_price, ctx, inputs, paid_in) if plans else None

            legs = [("TP", leg(values["tp"], "")), ("SL", leg("", values["sl"]))]
            return [*lines, *exit_lines(legs, ctx.tick, rr=True)]

        # the size is the first number to give: the form starts there (the entry is pre-filled with the best bid)
        form = self._exits_form(f"Bracket · {symbol}", fields, check, notes, "Place the bracket?", "size", preview)
        self.desk.read_risk(symbol, form.show_preview)

    def attach_exits(self, position: Position | None) -> None:
        """A take-profit and/or stop-loss for the selected position, for its whole size."""
        if not self.acting_on(position, "TP/SL", "No position selected."):
            return
        symbol = position.instrument

        def check(values: dict[str, str]) -> tuple[list[OrderPlan], OrderContext]:
            ctx = self.desk.context(symbol)
            if ctx is None:
                raise FieldError("tp", f"no {symbol} data")
            plans, errors = position_exit_plans(ctx, values["tp"], values["sl"])
            if plans is None:
                raise first_error(errors, ("tp", "sl"))
            return plans, ctx

        fields = [
            FormField("tp", "Take-profit", "", placeholder="trigger price (optional)"),
            FormField("sl", "Stop-loss", "", placeholder="trigger price (optional)"),
        ]
        side = "long" if position.size > 0 else "short"
        info = self.desk.state.market.instruments.get(symbol)
        tick, lot = (info.tick_size, info.lot_size) if info is not None else (None, None)
        held = f"{fmt_size(abs(position.size), lot)} (entry {fmt_price(position.entry_price, tick)})"
        notes = [f"{symbol} {side} {held}:",
                 "reduce-only trigger market orders for the whole position; they go when it is closed.",
                 "PnL after the exit's fee (the entry's is paid); worst: at the bound."]  # fmt: skip

        def preview(values: dict[str, str]) -> list[str]:
            ctx, inputs = self.desk.context(symbol), self.desk.risk(symbol)
            if ctx is None:
                return []
            entry = inputs.entry if inputs is not None else None

            def leg(tp: str, sl: str) -> ExitOutcome | None:
                plans = position_exit_plans(ctx, tp, sl)[0] if (tp + sl).strip() else None
                return exit_outcome(plans[0], entry, ctx, inputs) if plans else None

            return exit_lines([("TP", leg(values["tp"], "")), ("SL", leg("", values["sl"]))], ctx.tick, rr=True)

        form = self._exits_form(
            f"TP/SL · {symbol}", fields, check, notes, f"Protect the {symbol} position?", preview=preview
        )
        self.desk.read_risk(symbol, form.show_preview)  # the fee rates, for the PnL

    def _exits_form(
        self,
        title: str,
        fields: list[FormField],
        check: Any,
        notes: list[str],
        question: str,
        focus: str | None = None,
        preview: Any = None,
    ) -> FormScreen[tuple[list[OrderPlan], OrderContext]]:
        def entered(answer: tuple[list[OrderPlan], OrderContext] | None) -> None:
            if answer is None:
                return
            plans, ctx = answer
            if self.desk.guarded(plans):
                return
            if self.desk.armed and not self.desk.questions(plans, ctx):  # armed: no preview to confirm
                self._place_many(plans)
                return
            lines = [*(p.describe() for p in plans), *self.desk.questions(plans, ctx)]
            self.desk.ask(question, lines, lambda: self._place_many(plans), yes="Send (y)")

        form = FormScreen(title, fields, check, notes=notes, focus=focus or fields[0].name, preview=preview)
        self.port.push(form, entered)
        return form

    def _place_many(self, plans: list[OrderPlan]) -> None:
        self.desk.place_group(plans)

    def scale(self) -> None:
        """A form for N limit orders between two prices; a preview of every order; one placeOrder."""
        if self.desk.refuse("scale order"):
            return
        symbol = self.desk.state.market.selected
        ctx0 = self.desk.context(symbol)
        if ctx0 is None:
            self.port.notify("No instrument data yet.", severity="warning")
            return
        group = f"sc{int(time.time() * 1000) % 10**10}"  # the orders' cloids: <group>-1 .. <group>-N
        near = ctx0.best_bid or ctx0.mark or Decimal(0)
        low, high = scale_prices(near, ctx0.tick)

        def check(values: dict[str, str]) -> ScalePlan:
            ctx = self.desk.context(symbol)
            side = side_of(values["side"])
            if ctx is None or side is None:
                raise FieldError("side", "buy or sell")
            plan, errors = scale_plan(
                ctx, side, values["low"], values["high"], values["count"], values["size"],
                values["weight"].strip().lower(), group,
            )  # fmt: skip
            if plan is None:
                raise first_error(errors, ("low", "high", "count", "size", "weight"))
            return plan

        def entered(plan: ScalePlan | None) -> None:
            if plan is None or self.desk.guarded(plan.orders):
                return
            always = self.desk.questions(plan.orders, None)  # a reversal: asked even when armed
            if self.desk.armed and not always:
                self._place_scale(plan)
                return
            info = self.desk.state.market.instruments.get(symbol)
            tick = info.tick_size if info is not None else None  # the average at the tick, as every price
            lines = [f"{o.side.upper()} {fmt_decimal(o.size)} @ {fmt_decimal(o.price)}" for o in plan.orders]
            lines = lines[:12] + ([f"… and {len(lines) - 12} more"] if len(lines) > 12 else [])
            lines.append(
                f"total {fmt_decimal(plan.size)} {symbol} · {fmt_money(plan.notional)} USDC · "
                f"average {fmt_price(plan.average, tick)}"
            )
            lines.append(f"One placeOrder; cancelled together with K (group {plan.group}).")
            lines += always

            self.desk.ask(f"Place {len(plan.orders)} {symbol} limit orders?", lines, lambda: self._place_scale(plan))

        fields = [
            side_field(),
            FormField("low", "Low price", fmt_plain(low) if near else ""),
            FormField("high", "High price", fmt_plain(high) if near else ""),
            FormField("count", "Orders", "5", placeholder=f"2 to {SCALE_MAX}"),
            FormField("size", "Total size", "", placeholder=f"in {symbol.split('-')[0].split('/')[0]}"),
            FormField("weight", "Weight", "flat", placeholder="flat, low (more at the low price) or high"),
        ]

        def preview(values: dict[str, str]) -> list[str]:
            ctx = self.desk.context(symbol)
            side = side_of(values["side"])
            if ctx is None or side is None:
                return self.desk.risk_preview(None, ctx, "side: buy or sell")
            plan, errors = scale_plan(
                ctx, side, values["low"], values["high"], values["count"], values["size"],
                values["weight"].strip().lower(), group,
            )  # fmt: skip
            if plan is None:
                return self.desk.risk_preview(None, ctx, next(iter(errors.values()), ""))
            whole = msgspec.structs.replace(plan.orders[0], size=plan.size, price=plan.average)
            lines = self.desk.risk_preview(msgspec.structs.replace(whole, reference_price=plan.average), ctx)
            return [*lines[:1], f"{lines[1]} (every order filled)", *lines[2:]] if len(lines) > 1 else lines

        notes = [f"{symbol}: limit orders (GTC) from the low price to the high one, both included, on the tick."]
        form = FormScreen(f"Scale order · {symbol}", fields, check, notes=notes, focus="size", preview=preview)
        self.port.push(form, entered)
        self.desk.read_risk(symbol, form.show_preview)

    def _place_scale(self, plan: ScalePlan) -> None:
        async def call() -> str:
            placed = await self.desk.place_settled(list(plan.orders), "sc")
            if placed.response is None:
                return f"group {plan.group}: {placed.words()}"
            resp = placed.response
            return f"{len(plan.orders)} orders placed (group {plan.group}) · tx {short_address(resp.tx_hash)}"

        self.desk.run("Order", call)

    def cancel_group(self, order: Order | None) -> None:
        """Cancel every open order of the selected order's scale group (one cancelByCloid)."""
        if self.desk.refuse("cancel"):
            return
        group = scale_group_of(order.cloid) if order is not None else None
        if order is None or group is None:
            self.port.notify("Select an order of a scale group (its cloid is sc…-n).", severity="warning")
            return
        members = [o for o in self.desk.state.account.open_orders if scale_group_of(o.cloid) == group]

        async def call() -> str:
            resp = await self.desk.client.cancel_by_cloid([(o.cloid, o.instrument_id) for o in members])
            self.desk.cancel_answered(resp, [o.order_id for o in members])
            return f"cancelled {len(members)} order(s) of group {group} · tx {short_address(resp.tx_hash)}"

        self.desk.run("Cancel group", call)
