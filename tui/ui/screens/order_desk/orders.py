"""The single-order actions: the order form, cancels (one order, an instrument's, by cloid, every order),
closing all or part of a position."""

from __future__ import annotations

from tui.api.models import Order, Position
from tui.trading import (
    OrderContext,
    OrderPlan,
    close_part_plan,
    fmt_decimal,
)
from tui.trading.desk import TradingDesk
from tui.trading.exit_outcome import exit_outcome, realized_line
from tui.trading.grammar import FieldError, parse_cloid
from tui.trading.outcomes import checked, describe_order
from tui.trading.protection import protection_lines, protection_now, protective_orders
from tui.trading.trailing import TrailRunner
from tui.ui.widgets.display import fmt_price, fmt_size, short_address
from tui.ui.widgets.orders import is_protective, order_type

from ..form import FormField, FormScreen
from ..order_form import OrderFormScreen, fmt_plain
from ..prompt import PromptScreen
from .base import DeskActions, ScreenPort
from .leverage import change_leverage


class SingleOrders(DeskActions):
    """One order at a time: the order form, the cancels, the close of a position."""

    def __init__(self, desk: TradingDesk, port: ScreenPort, trails: TrailRunner | None = None) -> None:
        super().__init__(desk, port)
        self.trails = trails  # a trailing stop's order says so when `x` asks about it

    def open_form(self, side: str, symbol: str | None = None) -> None:
        """The order form on ``symbol`` (None: the selected instrument; a layout of several markets names the
        focused pane's), at the book's picked price when it is the selected instrument's, else the best bid or ask."""
        if self.desk.refuse(f"{side} order"):
            return
        selected = self.desk.state.market.selected
        symbol = symbol or selected
        ctx = self.desk.context(symbol)
        if ctx is None:
            self.port.notify("No instrument data yet.", severity="warning")
            return
        picked = self.desk.picked if symbol == selected else None
        price = picked or (ctx.best_ask if side == "buy" else ctx.best_bid)
        form = OrderFormScreen(
            side=side,
            price=price,
            context=lambda: self.desk.context(symbol),
            policy=self.desk.policy,
            send=self.desk.place,
            send_group=self.desk.place_group,
            gate=self.desk,
            risk=lambda: self.desk.risk(symbol),
            change_leverage=lambda: change_leverage(self.desk, self.port, symbol, form.risk_read),
        )
        self.desk.read_risk(symbol, form.risk_read)  # the leverage in force, asked afresh

        def closed(plan: OrderPlan | None) -> None:
            if plan is not None:  # placed: the picked price has served (its size is not the ladder's)
                self.desk.picked = None

        self.port.push(form, closed)

    def cancel_order(self, order: Order | None) -> None:
        if not self.acting_on(order, "cancel", "No open order selected."):
            return

        async def call() -> str:
            resp = await self.desk.client.cancel_by_oid([(order.order_id, order.instrument_id)])
            self.desk.cancel_answered(resp, [order.order_id])
            return f"cancelled {order.order_id} ({order.instrument}) · tx {short_address(resp.tx_hash)}"

        if not is_protective(order):
            self.desk.run("Cancel", call)
            return
        kind = order_type(order)  # a TP/SL guards a position: asked first, No by default
        lines = [f"oid {order.order_id}: {describe_order(order)}", "The position is left without this protection."]
        if self.trails is not None and order.cloid and order.cloid in self.trails.labels():
            kind = "trailing stop"
            lines.append("Its trail ends with it (l on the position stops trailing and keeps the stop).")
        self.desk.ask(f"Cancel the {kind} on {order.instrument}?", lines, lambda: self.desk.run("Cancel", call))

    def cancel_instrument(self) -> None:
        if self.desk.refuse("cancel"):
            return
        symbol = self.desk.state.market.selected
        info = self.desk.state.market.instruments.get(symbol)
        if info is None:
            return
        mine = [o for o in self.desk.state.account.open_orders if o.instrument == symbol]

        async def call() -> str:
            held = [o.order_id for o in self.desk.state.account.open_orders if o.instrument == symbol]
            resp = await self.desk.client.cancel_by_instrument(info.id)
            self.desk.cancelled(held)  # every resting order of it: those held now at least
            return f"cancelled every {symbol} order · tx {short_address(resp.tx_hash)}"

        lines = [f"{len(mine)} open order(s) on {symbol} will be cancelled."]
        self.desk.ask(f"Cancel all {symbol} orders?", lines, lambda: self.desk.run("Cancel all", call))

    def cancel_by_cloid(self) -> None:
        if self.desk.refuse("cancel"):
            return

        def entered(text: str | None) -> None:
            try:
                cloid = parse_cloid("cloid", text or "")
            except FieldError as exc:
                self.port.notify(exc.message, severity="warning", markup=False)
                return
            if not cloid:
                return
            order = next((o for o in self.desk.state.account.open_orders if o.cloid == cloid), None)
            symbol = order.instrument if order else self.desk.state.market.selected
            info = self.desk.state.market.instruments.get(symbol)
            if info is None:
                return

            async def call() -> str:
                resp = await self.desk.client.cancel_by_cloid([(cloid, info.id)])
                if order is not None:
                    self.desk.cancel_answered(resp, [order.order_id])
                return f"cancelled cloid {cloid} ({symbol}) · tx {short_address(resp.tx_hash)}"

            self.desk.run("Cancel", call)

        prompt = PromptScreen("Cancel the order with client order id:", placeholder="cloid")
        self.port.push(prompt, entered)

    def close_position(self, position: Position | None) -> None:
        """A form to close all or part of ``position``: size in the base asset or as a percentage, at market
        (within the slippage bound) or at a limit price; asks again only when the order needs it."""
        if not self.acting_on(position, "close", "No position selected."):
            return
        symbol = position.instrument
        ctx0 = self.desk.context(symbol)
        if ctx0 is None:
            return
        held = abs(position.size)
        side = "long" if position.size > 0 else "short"

        def check(values: dict[str, str]) -> tuple[OrderPlan, OrderContext]:
            ctx = self.desk.context(symbol)
            if ctx is None:
                raise FieldError("size", f"no {symbol} data")
            return checked(close_part_plan(ctx, values["size"], values["price"]), ("size", "price")), ctx

        def entered(answer: tuple[OrderPlan, OrderContext] | None) -> None:
            if answer is not None:
                self.desk.confirm_then_place(*answer, title=f"Close the {symbol} position?")

        fields = [
            FormField("size", "Size", fmt_plain(held), placeholder=f"{fmt_plain(held)} or 50%"),
            FormField("price", "Limit price", "", placeholder="empty: market"),
        ]
        notes = [
            f"{symbol} {side} {fmt_size(held, ctx0.lot)} (entry {fmt_price(position.entry_price, ctx0.tick)})",
            f"Size in {symbol.split('-')[0]} or as a percentage (50%).",
            f"Price empty: at market, at most {fmt_decimal(self.desk.policy.slippage_pct)}% beyond the best price;",
            "a price: a reduce-only limit order (GTC).",
        ]
        guarded = protection_now(self.desk.state).of(symbol)
        if guarded is not None:  # what becomes of its protection, said before the close
            notes.append(f"Protection now: {guarded.words()}.")
            if guarded.tp or guarded.sl:
                notes.append("Closed in part, it stays (reduce-only: at most what is left is closed); closed whole,")
                notes.append("the position's TP/SL go with it, and other reduce-only orders stay, protecting nothing.")

        def preview(values: dict[str, str]) -> list[str]:
            ctx = self.desk.context(symbol)
            if ctx is None:
                return []
            result = close_part_plan(ctx, values["size"], values["price"])
            lines = self.desk.risk_preview(result.plan, ctx, next(iter(result.errors.values()), ""))
            inputs = self.desk.risk(symbol)
            entry = inputs.entry if inputs is not None else None
            outcome = exit_outcome(result.plan, entry, ctx, inputs) if result.plan is not None else None
            return [realized_line(outcome, ctx.tick), *lines]

        enter = "Enter: send (asks first only when the order needs it)"
        form = FormScreen(f"Close {symbol}", fields, check, notes=notes, focus="size", enter=enter, preview=preview)
        self.port.push(form, entered)
        self.desk.read_risk(symbol, form.show_preview)

    def cancel_everything(self) -> None:
        """Cancel every open order on every instrument (asks first, default No); positions are left alone. The
        question names the orders that protect a position (TP/SL, trailing stops, OCO and bracket legs) and offers,
        on ``k``, to cancel all but those."""
        if self.desk.refuse("cancel"):
            return
        orders = list(self.desk.state.account.open_orders)
        symbols = sorted({o.instrument for o in orders})
        model = protection_now(self.desk.state)
        guards = {o.order_id for o, _ in protective_orders(model, orders)}
        others = [o for o in orders if o.order_id not in guards]

        async def call() -> str:
            held = [o.order_id for o in self.desk.state.account.open_orders]
            resp = await self.desk.client.cancel_all()
            self.desk.cancelled(held)
            gone = f" · {len(guards)} of them protected a position: it has no TP/SL now" if guards else ""
            return f"cancelled every open order, on every instrument{gone} · tx {short_address(resp.tx_hash)}"

        async def keep() -> str:
            if not others:
                return "nothing cancelled: every open order protects a position"
            resp = await self.desk.client.cancel_by_oid([(o.order_id, o.instrument_id) for o in others])
            self.desk.cancel_answered(resp, [o.order_id for o in others])
            return (
                f"cancelled {len(others)} order(s); the {len(guards)} that protect a position stay"
                f" · tx {short_address(resp.tx_hash)}"
            )

        lines = [f"{len(orders)} open order(s) on {len(symbols)} instrument(s) will be cancelled:"]
        lines += [f"  {s}: {sum(1 for o in orders if o.instrument == s)}" for s in symbols[:8]]
        lines += [f"  and {len(symbols) - 8} more instrument(s)"] if len(symbols) > 8 else []
        if guards:
            lines.append(f"{len(guards)} of them protect a position (TP/SL, trailing stops, OCO and bracket legs):")
            lines += protection_lines(model, orders)
            lines.append("y cancels them too: those positions are left without protection. k keeps them.")
        else:
            lines.append("None of them protects a position. Positions are left as they are.")
        also = (
            ("k", "Keep protection (k)", lambda: self.desk.run("Cancel all but protection", keep)) if guards else None
        )
        self.desk.ask(
            "Cancel every order on every instrument?", lines, lambda: self.desk.run("Cancel all", call), also=also
        )
