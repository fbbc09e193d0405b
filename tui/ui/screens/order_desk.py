"""What the trading keys do: open the form, send orders and cancels in workers, report the outcome.

A key handler never awaits the network: it starts a worker and returns. Each outcome is a notification
(the order id and transaction hash, or the exchange's error), and the account is polled right after.
In read-only mode (or watch-only, with no key) every trading key says why it does nothing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from decimal import Decimal
from typing import Any

from textual.screen import Screen

from tui.api.client import Client
from tui.api.errors import AccountMismatch, ActionRejected, ClientError
from tui.api.models import ExchangeResponse, Order, Position
from tui.feed.state import FeedState
from tui.order_entry import (
    DEFAULT_SLIPPAGE_PCT,
    SCALE_MAX,
    ConfirmPolicy,
    OrderContext,
    OrderPlan,
    ScalePlan,
    Validation,
    amend_input,
    bracket_plans,
    close_part_plan,
    close_position_plan,
    confirmation_reasons,
    fmt_decimal,
    market_estimate,
    position_exit_plans,
    scale_group_of,
    scale_plan,
    validate,
)
from tui.ui.widgets.display import short_address

from .confirm import ConfirmScreen
from .field_checks import FieldError
from .form import FormField, FormScreen
from .order_form import OrderFormScreen, Settled, fmt_plain
from .prompt import PromptScreen

__all__ = ["OrderDesk", "order_context"]

log = logging.getLogger(__name__)
READ_ONLY = "Read-only mode (--read-only or read_only = true in the profile): trading is disabled"


BOOK_DEPTH = 100  # levels a market order's fill is estimated against


def order_context(state: FeedState, symbol: str, slippage_pct: Decimal = DEFAULT_SLIPPAGE_PCT) -> OrderContext | None:
    """What order entry needs to know about ``symbol`` now; None until its instrument is known."""
    market = state.market
    info = market.instruments.get(symbol)
    if info is None:
        return None
    ticker = market.tickers.get(symbol)
    book = market.book if market.book.symbol == symbol and market.book.loaded else None
    best_bid = book.best_bid if book else ticker.best_bid_price if ticker else None
    best_ask = book.best_ask if book else ticker.best_ask_price if ticker else None
    summary = state.account.summary
    available = Decimal(0)
    base_available: Decimal | None = None
    if summary is not None:
        if info.kind == "perp":
            available = summary.available_balance
        else:
            base, _, quote = symbol.partition("/")
            q = summary.spot_collateral.get(quote or "USDC")
            b = summary.spot_collateral.get(base)
            available = q.withdrawable_balance if q else Decimal(0)
            base_available = b.withdrawable_balance if b else Decimal(0)
    position = sum((p.size for p in state.account.positions if p.instrument == symbol), Decimal(0))
    return OrderContext(
        instrument_id=info.id,
        symbol=symbol,
        kind=info.kind,
        tick=info.tick_size,
        lot=info.lot_size,
        min_notional=info.min_notional,
        max_leverage=Decimal(info.max_leverage),
        best_bid=best_bid or None,
        best_ask=best_ask or None,
        mark=ticker.mark_price if ticker else None,
        available=available,
        base_available=base_available,
        position=position,
        bids=tuple(book.levels("bids", BOOK_DEPTH)) if book else (),
        asks=tuple(book.levels("asks", BOOK_DEPTH)) if book else (),
        slippage_pct=slippage_pct,
    )


def _first_error(errors: dict[str, str], fields: tuple[str, ...]) -> FieldError:
    """The first of ``errors`` as a ``FieldError`` on its field, or on the form's first field when the fault
    is in a field the form does not have."""
    name, message = next(iter(errors.items()), (fields[0], "cannot be sent"))
    return FieldError(name if name in fields else fields[0], message)


def _checked(result: Validation, fields: tuple[str, ...]) -> OrderPlan:
    """The plan of ``result``, or a ``FieldError`` on the first field it faults."""
    if result.ok and result.plan is not None:
        return result.plan
    raise _first_error(result.errors, fields)


def describe_order(order: Order) -> str:
    """An open order as a person reads it: 'SELL 0.5 BTC-PERP @ 101,000 (GTC reduce-only)'."""
    side = "BUY" if order.side == "b" else "SELL"
    at = "market" if order.is_market else fmt_decimal(order.limit_price)
    trig = f", trigger {fmt_decimal(order.trigger_px)}" if order.trigger_px else ""
    kind = {"tp": "take-profit ", "sl": "stop-loss "}.get(order.tpsl, "stop " if order.trigger_px else "")
    flags = " reduce-only" if order.reduce_only else ""
    return f"{side} {fmt_decimal(order.unfilled)} {order.instrument} @ {at} ({kind}{order.tif}{trig}{flags})"


def _oid(resp: ExchangeResponse[Any]) -> str:
    """The order id of a placeOrder answer, however the exchange nests it."""
    data = resp.data
    statuses = data.get("statuses", [data.get("status")]) if isinstance(data, dict) else data
    for status in statuses if isinstance(statuses, list) else [statuses]:
        if isinstance(status, dict):
            for key in ("oid", "order_id"):
                if key in status:
                    return str(status[key])
            for inner in status.values():
                if isinstance(inner, dict) and "oid" in inner:
                    return str(inner["oid"])
            if "error" in status:
                raise ActionRejected(str(status["error"]), {"tx_hash": resp.tx_hash})
    return "?"


class OrderDesk:
    """The trading actions of ``screen`` against ``client``; ``refresh`` polls the account afterwards."""

    def __init__(
        self,
        screen: Screen[Any],
        client: Client,
        state: FeedState,
        *,
        refresh: Callable[[], Awaitable[None]],
        policy: ConfirmPolicy,
        watch_only: bool,
        read_only: bool = False,
    ) -> None:
        self.screen = screen
        self.client = client
        self.state = state
        self.refresh = refresh
        self.policy = policy
        self.watch_only = watch_only
        self.read_only = read_only
        self.in_flight = 0
        self.picked: Decimal | None = None

    def _refuse(self, what: str) -> bool:
        """Say why ``what`` cannot be done (read-only, watch-only); False when it can."""
        if self.read_only:
            self.screen.notify(f"{READ_ONLY}: {what} not sent.", title="Read-only", severity="warning")
        elif self.watch_only:
            self.screen.notify(
                f"Watch-only: no key to sign with (start with --key-env VAR or a profile's keystore): {what} not sent.",
                severity="warning",
            )
        return self.read_only or self.watch_only

    # ---- the form -------------------------------------------------------------------------------

    def open_form(self, side: str) -> None:
        if self._refuse(f"{side} order"):
            return
        symbol = self.state.market.selected
        ctx = order_context(self.state, symbol, self.policy.slippage_pct)
        if ctx is None:
            self.screen.notify("No instrument data yet.", severity="warning")
            return
        price = self.picked or (ctx.best_ask if side == "buy" else ctx.best_bid)
        form = OrderFormScreen(
            side=side,
            price=price,
            context=lambda: order_context(self.state, symbol, self.policy.slippage_pct),
            policy=self.policy,
            send=self.place,
        )

        def closed(plan: OrderPlan | None) -> None:
            if plan is not None:  # placed: the picked price has served
                self.picked = None

        self.screen.app.push_screen(form, closed)

    # ---- sending --------------------------------------------------------------------------------

    def _run(self, what: str, call: Callable[[], Awaitable[str]], settled: Settled | None = None) -> None:
        """Run ``call`` in a worker; notify its message, or the error. ``settled`` is told the exchange's refusal,
        or None when there is nothing to fix and send again (done; or not known, so sending again could do it
        twice)."""

        async def job() -> None:
            self.in_flight += 1
            refusal: str | None = None
            try:
                message = await call()
            except ActionRejected as exc:
                refusal = exc.message
                self.screen.notify(
                    f"{what}: rejected: {exc.message}", title="Exchange", severity="error", timeout=8, markup=False
                )
            except _AmendUnsure as exc:
                self.screen.notify(f"{what}: {exc}", title=what, severity="error", timeout=15, markup=False)
            except AccountMismatch as exc:  # it was done, but to someone else: never shown as done
                log.error("%s: %s", what, exc)
                self.screen.notify(f"{what}: {exc}", title="WRONG ACCOUNT", severity="error", timeout=60, markup=False)
            except ClientError as exc:
                self.screen.notify(f"{what}: {exc}", title="Network", severity="error", timeout=8, markup=False)
            else:
                self.screen.notify(message, title=what, markup=False)
            finally:
                self.in_flight -= 1
                if settled is not None:
                    settled(refusal)
            await self.refresh()

        self.screen.run_worker(job(), name=what, group="submit", exit_on_error=False)

    def place(self, plan: OrderPlan, settled: Settled | None = None) -> None:
        async def call() -> str:
            resp = await self.client.place_order([plan.to_wire()])
            return f"{plan.describe()}\noid {_oid(resp)} · tx {short_address(resp.tx_hash)}"

        self._run("Order", call, settled)

    def cancel_order(self, order: Order | None) -> None:
        if self._refuse("cancel"):
            return
        if order is None:
            self.screen.notify("No open order selected.", severity="warning")
            return

        async def call() -> str:
            resp = await self.client.cancel_by_oid([(order.order_id, order.instrument_id)])
            return f"cancelled {order.order_id} ({order.instrument}) · tx {short_address(resp.tx_hash)}"

        self._run("Cancel", call)

    def cancel_instrument(self) -> None:
        if self._refuse("cancel"):
            return
        symbol = self.state.market.selected
        info = self.state.market.instruments.get(symbol)
        if info is None:
            return
        mine = [o for o in self.state.account.open_orders if o.instrument == symbol]

        def answered(yes: bool | None) -> None:
            if not yes:
                return

            async def call() -> str:
                resp = await self.client.cancel_by_instrument(info.id)
                return f"cancelled every {symbol} order · tx {short_address(resp.tx_hash)}"

            self._run("Cancel all", call)

        lines = [f"{len(mine)} open order(s) on {symbol} will be cancelled."]
        self.screen.app.push_screen(ConfirmScreen(f"Cancel all {symbol} orders?", lines), answered)

    def cancel_by_cloid(self) -> None:
        if self._refuse("cancel"):
            return

        def entered(cloid: str | None) -> None:
            if not cloid:
                return
            order = next((o for o in self.state.account.open_orders if o.cloid == cloid), None)
            symbol = order.instrument if order else self.state.market.selected
            info = self.state.market.instruments.get(symbol)
            if info is None:
                return

            async def call() -> str:
                resp = await self.client.cancel_by_cloid([(cloid, info.id)])
                return f"cancelled cloid {cloid} ({symbol}) · tx {short_address(resp.tx_hash)}"

            self._run("Cancel", call)

        prompt = PromptScreen("Cancel the order with client order id:", placeholder="cloid")
        self.screen.app.push_screen(prompt, entered)

    def close_position(self, position: Position | None) -> None:
        """A form to close all or part of ``position``: size in the base asset or as a percentage, at market
        (within the slippage bound) or at a limit price; asks again only when the order needs it."""
        if self._refuse("close"):
            return
        if position is None:
            self.screen.notify("No position selected.", severity="warning")
            return
        symbol = position.instrument
        if order_context(self.state, symbol, self.policy.slippage_pct) is None:
            return
        held = abs(position.size)
        side = "long" if position.size > 0 else "short"

        def check(values: dict[str, str]) -> tuple[OrderPlan, OrderContext]:
            ctx = order_context(self.state, symbol, self.policy.slippage_pct)
            if ctx is None:
                raise FieldError("size", f"no {symbol} data")
            return _checked(close_part_plan(ctx, values["size"], values["price"]), ("size", "price")), ctx

        def entered(answer: tuple[OrderPlan, OrderContext] | None) -> None:
            if answer is not None:
                self._confirm_then_place(*answer, title=f"Close the {symbol} position?")

        fields = [
            FormField("size", "Size", fmt_plain(held), placeholder=f"{fmt_plain(held)} or 50%"),
            FormField("price", "Limit price", "", placeholder="empty: market"),
        ]
        notes = [
            f"{symbol} {side} {fmt_decimal(held)} (entry {fmt_decimal(position.entry_price)})",
            f"Size in {symbol.split('-')[0]} or as a percentage (50%).",
            f"Price empty: at market, at most {fmt_decimal(self.policy.slippage_pct)}% beyond the best price;",
            "a price: a reduce-only limit order (GTC).",
        ]
        form = FormScreen(f"Close {symbol}", fields, check, notes=notes, focus="size")
        self.screen.app.push_screen(form, entered)

    def _confirm_then_place(self, plan: OrderPlan, ctx: OrderContext, *, title: str) -> None:
        """Send ``plan``, asking first (default No) only when ``confirmation_reasons`` has any."""
        reasons = confirmation_reasons(plan, ctx, self.policy)
        if not reasons:
            self.place(plan)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.place(plan)

        lines = [plan.describe(), *reasons, *filter(None, [market_estimate(plan, ctx)])]
        self.screen.app.push_screen(ConfirmScreen(title, lines), answered)

    # ---- brackets -------------------------------------------------------------------------------

    def bracket(self) -> None:
        """An entry with a take-profit and/or a stop-loss, one placeOrder: the TP/SL wait for the entry."""
        if self._refuse("bracket order"):
            return
        symbol = self.state.market.selected
        ctx0 = order_context(self.state, symbol, self.policy.slippage_pct)
        if ctx0 is None or ctx0.kind != "perp":
            self.screen.notify("Brackets are for perps: select one.", severity="warning")
            return

        def check(values: dict[str, str]) -> tuple[list[OrderPlan], OrderContext]:
            ctx = order_context(self.state, symbol, self.policy.slippage_pct)
            side = values["side"].strip().lower()
            if ctx is None or side not in ("buy", "sell"):
                raise FieldError("side", "buy or sell")
            plans, errors = bracket_plans(ctx, side, values["price"], values["size"], values["tp"], values["sl"])  # type: ignore[arg-type]
            if plans is None:
                raise _first_error(errors, ("price", "size", "tp", "sl"))
            return plans, ctx

        fields = [
            FormField("side", "Side", "buy", placeholder="buy or sell"),
            FormField(
                "price", "Entry price", fmt_plain(ctx0.best_bid) if ctx0.best_bid else "", placeholder="empty: market"
            ),
            FormField("size", "Size", "", placeholder=f"in {symbol.split('-')[0]}"),
            FormField("tp", "Take-profit", "", placeholder="trigger price (optional)"),
            FormField("sl", "Stop-loss", "", placeholder="trigger price (optional)"),
        ]
        notes = [
            f"{symbol}: the TP and SL are reduce-only trigger market orders for the entry's size; they wait",
            "for the entry to fill, and go if it is cancelled unfilled or the position closes.",
        ]
        self._exits_form(f"Bracket · {symbol}", fields, check, notes, "Place the bracket?")

    def attach_exits(self, position: Position | None) -> None:
        """A take-profit and/or stop-loss for the selected position, for its whole size."""
        if self._refuse("TP/SL"):
            return
        if position is None:
            self.screen.notify("No position selected.", severity="warning")
            return
        symbol = position.instrument

        def check(values: dict[str, str]) -> tuple[list[OrderPlan], OrderContext]:
            ctx = order_context(self.state, symbol, self.policy.slippage_pct)
            if ctx is None:
                raise FieldError("tp", f"no {symbol} data")
            plans, errors = position_exit_plans(ctx, values["tp"], values["sl"])
            if plans is None:
                raise _first_error(errors, ("tp", "sl"))
            return plans, ctx

        fields = [
            FormField("tp", "Take-profit", "", placeholder="trigger price (optional)"),
            FormField("sl", "Stop-loss", "", placeholder="trigger price (optional)"),
        ]
        side = "long" if position.size > 0 else "short"
        notes = [f"{symbol} {side} {fmt_decimal(abs(position.size))} (entry {fmt_decimal(position.entry_price)}):",
                 "reduce-only trigger market orders for the whole position; they go when it is closed."]  # fmt: skip
        self._exits_form(f"TP/SL · {symbol}", fields, check, notes, f"Protect the {symbol} position?")

    def _exits_form(self, title: str, fields: list[FormField], check: Any, notes: list[str], question: str) -> None:
        def entered(answer: tuple[list[OrderPlan], OrderContext] | None) -> None:
            if answer is None:
                return
            plans, ctx = answer
            lines = [p.describe() for p in plans]
            lines += [r for p in plans[:1] for r in confirmation_reasons(p, ctx, self.policy)]

            def answered(yes: bool | None) -> None:
                if yes:
                    self._place_many(plans)

            self.screen.app.push_screen(ConfirmScreen(question, lines, yes="Send (y)"), answered)

        self.screen.app.push_screen(FormScreen(title, fields, check, notes=notes, focus=fields[0].name), entered)

    def _place_many(self, plans: list[OrderPlan]) -> None:
        async def call() -> str:
            resp = await self.client.place_order([p.to_wire() for p in plans])
            statuses = resp.data.get("status", []) if isinstance(resp.data, dict) else []
            refused = [s["error"] for s in statuses if isinstance(s, dict) and "error" in s]
            said = "; ".join(str(r) for r in refused)
            done = f"{len(plans) - len(refused)} of {len(plans)} order(s) placed"
            return f"{done}{' (refused: ' + said + ')' if said else ''} · tx {short_address(resp.tx_hash)}"

        self._run("Order", call)

    # ---- scale ----------------------------------------------------------------------------------

    def scale(self) -> None:
        """A form for N limit orders between two prices; a preview of every order; one placeOrder."""
        if self._refuse("scale order"):
            return
        symbol = self.state.market.selected
        ctx0 = order_context(self.state, symbol, self.policy.slippage_pct)
        if ctx0 is None:
            self.screen.notify("No instrument data yet.", severity="warning")
            return
        group = f"sc{int(time.time() * 1000) % 10**10}"  # the orders' cloids: <group>-1 .. <group>-N
        near = ctx0.best_bid or ctx0.mark or Decimal(0)

        def check(values: dict[str, str]) -> ScalePlan:
            ctx = order_context(self.state, symbol, self.policy.slippage_pct)
            side = values["side"].strip().lower()
            if ctx is None or side not in ("buy", "sell"):
                raise FieldError("side", "buy or sell")
            plan, errors = scale_plan(
                ctx, side, values["low"], values["high"], values["count"], values["size"],  # type: ignore[arg-type]
                values["weight"].strip().lower(), group,
            )  # fmt: skip
            if plan is None:
                raise _first_error(errors, ("low", "high", "count", "size", "weight"))
            return plan

        def entered(plan: ScalePlan | None) -> None:
            if plan is None:
                return
            lines = [f"{o.side.upper()} {fmt_decimal(o.size)} @ {fmt_decimal(o.price)}" for o in plan.orders]
            lines = lines[:12] + ([f"… and {len(lines) - 12} more"] if len(lines) > 12 else [])
            lines.append(
                f"total {fmt_decimal(plan.size)} {symbol} · {plan.notional:,.2f} USDC · average {plan.average:,.2f}"
            )
            lines.append(f"One placeOrder; cancelled together with K (group {plan.group}).")

            def answered(yes: bool | None) -> None:
                if yes:
                    self._place_scale(plan)

            self.screen.app.push_screen(
                ConfirmScreen(f"Place {len(plan.orders)} {symbol} limit orders?", lines), answered
            )

        fields = [
            FormField("side", "Side", "buy", placeholder="buy or sell"),
            FormField("low", "Low price", fmt_plain(near * Decimal("0.99")) if near else ""),
            FormField("high", "High price", fmt_plain(near) if near else ""),
            FormField("count", "Orders", "5", placeholder=f"2 to {SCALE_MAX}"),
            FormField("size", "Total size", "", placeholder=f"in {symbol.split('-')[0].split('/')[0]}"),
            FormField("weight", "Weight", "flat", placeholder="flat, low (more at the low price) or high"),
        ]
        notes = [f"{symbol}: limit orders (GTC) from the low price to the high one, both included, on the tick."]
        form = FormScreen(f"Scale order · {symbol}", fields, check, notes=notes, focus="size")
        self.screen.app.push_screen(form, entered)

    def _place_scale(self, plan: ScalePlan) -> None:
        async def call() -> str:
            resp = await self.client.place_order([o.to_wire() for o in plan.orders])
            return f"{len(plan.orders)} orders placed (group {plan.group}) · tx {short_address(resp.tx_hash)}"

        self._run("Order", call)

    def cancel_group(self, order: Order | None) -> None:
        """Cancel every open order of the selected order's scale group (one cancelByCloid)."""
        if self._refuse("cancel"):
            return
        group = scale_group_of(order.cloid) if order is not None else None
        if order is None or group is None:
            self.screen.notify("Select an order of a scale group (its cloid is sc…-n).", severity="warning")
            return
        members = [o for o in self.state.account.open_orders if scale_group_of(o.cloid) == group]

        async def call() -> str:
            resp = await self.client.cancel_by_cloid([(o.cloid, o.instrument_id) for o in members])
            return f"cancelled {len(members)} order(s) of group {group} · tx {short_address(resp.tx_hash)}"

        self._run("Cancel group", call)

    # ---- amend ----------------------------------------------------------------------------------

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
            plan = _checked(validate(new, ctx), names)
            return plan, ctx

        def entered(answer: tuple[OrderPlan, OrderContext] | None) -> None:
            if answer is None:
                return
            plan, ctx = answer
            reasons = confirmation_reasons(plan, ctx, self.policy)
            if not reasons:
                self._amend(order, plan)
                return

            def answered(yes: bool | None) -> None:
                if yes:
                    self._amend(order, plan)

            lines = [f"oid {order.order_id} → {plan.describe()}", *reasons]
            self.screen.app.push_screen(ConfirmScreen(f"Amend order {order.order_id}?", lines), answered)

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
                raise _AmendUnsure(order.order_id, exc) from exc
            try:
                resp = await self.client.place_order([plan.to_wire()])
                new = _oid(resp)
            except ClientError as exc:
                raise _AmendUnsure(order.order_id, exc, cancelled=True) from exc
            return f"amended oid {order.order_id} → oid {new}\n{plan.describe()} · tx {short_address(resp.tx_hash)}"

        self._run("Amend", call)

    def cancel_everything(self) -> None:
        """Cancel every open order on every instrument (asks first, default No); positions are left alone."""
        if self._refuse("cancel"):
            return
        orders = self.state.account.open_orders
        symbols = sorted({o.instrument for o in orders})

        def answered(yes: bool | None) -> None:
            if not yes:
                return

            async def call() -> str:
                resp = await self.client.cancel_all()
                return f"cancelled every open order, on every instrument · tx {short_address(resp.tx_hash)}"

            self._run("Cancel all", call)

        lines = [f"{len(orders)} open order(s) on {len(symbols)} instrument(s) will be cancelled:"]
        lines += [f"  {s}: {sum(1 for o in orders if o.instrument == s)}" for s in symbols[:8]]
        lines += [f"  and {len(symbols) - 8} more instrument(s)"] if len(symbols) > 8 else []
        lines.append("Positions are left as they are.")
        self.screen.app.push_screen(ConfirmScreen("Cancel every order on every instrument?", lines), answered)

    # ---- panic ----------------------------------------------------------------------------------

    def panic(self) -> None:
        """Ask (default No), then cancel every order and close every position, reporting each result."""
        if self._refuse("panic"):
            return
        orders = len(self.state.account.open_orders)
        positions = [p for p in self.state.account.positions if p.size]
        lines = [f"{orders} open order(s) will be cancelled, on every instrument."]
        lines.append(f"{len(positions)} position(s) will be closed with reduce-only market orders:")
        lines += [f"  {p.instrument} {'long' if p.size > 0 else 'short'} {abs(p.size)}" for p in positions]
        lines.append("Market orders fill against the book, with slippage. Enter or n: do nothing.")

        def answered(yes: bool | None) -> None:
            if yes:
                self.screen.run_worker(self._panic(orders), name="PANIC", group="submit", exit_on_error=False)

        title = "PANIC: cancel every order and close every position?"
        self.screen.app.push_screen(ConfirmScreen(title, lines, yes="PANIC (y)"), answered)

    def _report(self, message: str, *, error: bool = False) -> None:
        log.log(logging.ERROR if error else logging.WARNING, "panic: %s", message.replace("\n", " "))
        self.screen.notify(
            message, title="PANIC", severity="error" if error else "warning", timeout=15 if error else 8, markup=False
        )

    async def _panic(self, shown_orders: int) -> None:
        self.in_flight += 1
        try:
            failures = 0
            try:
                resp = await self.client.cancel_all()
                self._report(f"cancelled every open order ({shown_orders} shown) · tx {short_address(resp.tx_hash)}")
            except ClientError as exc:
                failures += 1
                self._report(f"cancel all failed: {_why(exc)}", error=True)
            positions = await self._open_positions()
            closed = 0
            for position in positions:
                closed += await self._close_now(position)
            failures += len(positions) - closed
            summary = f"{closed} of {len(positions)} position(s) closed"
            summary = f"done with {failures} failure(s) (see above): {summary}" if failures else f"done: {summary}"
            self._report(summary, error=bool(failures))
        finally:
            self.in_flight -= 1
        await self.refresh()

    async def _open_positions(self) -> list[Position]:
        """The account's positions now (asked of the exchange), or as last seen when it cannot answer."""
        account = self.state.account.address
        if account is not None:
            try:
                return [p for p in await self.client.positions(account) if p.size]
            except ClientError as exc:
                self._report(f"could not read the positions ({_why(exc)}): closing those last seen", error=True)
        return [p for p in self.state.account.positions if p.size]

    async def _close_now(self, position: Position) -> bool:
        ctx = order_context(self.state, position.instrument, self.policy.slippage_pct)
        plan = close_position_plan(replace(ctx, position=position.size)) if ctx is not None else None
        if plan is None:
            self._report(f"{position.instrument}: no instrument data to close it with", error=True)
            return False
        try:
            resp = await self.client.place_order([plan.to_wire()])
            oid = _oid(resp)
        except ClientError as exc:
            self._report(f"{plan.describe()}: {_why(exc)}", error=True)
            return False
        self._report(f"{plan.describe()}\noid {oid} · tx {short_address(resp.tx_hash)}")
        return True


class _AmendUnsure(ClientError):
    """An amend that stopped half way: the cancel's outcome is unknown, or the old order is cancelled and
    the new one was not placed."""

    def __init__(self, oid: int, exc: ClientError, *, cancelled: bool = False) -> None:
        if cancelled:
            super().__init__(f"oid {oid} was cancelled but the new order was not placed ({_why(exc)})")
        else:
            super().__init__(f"the cancel of oid {oid} did not answer ({exc}): nothing was placed; check Open orders")


def _why(exc: ClientError) -> str:
    return f"rejected: {exc.message}" if isinstance(exc, ActionRejected) else str(exc)
