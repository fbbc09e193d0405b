"""What the trading keys do: open the form, send orders and cancels in workers, report the outcome.

A key handler never awaits the network: it starts a worker and returns. Each outcome is a notification
(the order id and transaction hash, or the exchange's error), and the account is polled right after.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any

from textual.screen import Screen

from tui.api.client import Client
from tui.api.errors import ActionRejected, ClientError
from tui.api.models import ExchangeResponse, Order, Position
from tui.feed.state import FeedState
from tui.order_entry import ConfirmPolicy, OrderContext, OrderPlan, close_position_plan
from tui.widgets.display import short_address

from .confirm import ConfirmScreen
from .order_form import OrderFormScreen
from .prompt import PromptScreen

__all__ = ["OrderDesk", "order_context"]


def order_context(state: FeedState, symbol: str) -> OrderContext | None:
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
    )


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
    ) -> None:
        self.screen = screen
        self.client = client
        self.state = state
        self.refresh = refresh
        self.policy = policy
        self.watch_only = watch_only
        self.in_flight = 0
        self.picked: Decimal | None = None

    def _refuse_watch_only(self) -> bool:
        if self.watch_only:
            self.screen.notify("Watch-only: no key to sign orders with (start with --key-env VAR).", severity="warning")
        return self.watch_only

    # ---- the form -------------------------------------------------------------------------------

    def open_form(self, side: str) -> None:
        if self._refuse_watch_only():
            return
        symbol = self.state.market.selected
        ctx = order_context(self.state, symbol)
        if ctx is None:
            self.screen.notify("No instrument data yet.", severity="warning")
            return
        price = self.picked or (ctx.best_ask if side == "buy" else ctx.best_bid)
        form = OrderFormScreen(
            side=side, price=price, context=lambda: order_context(self.state, symbol), policy=self.policy
        )

        def sent(plan: OrderPlan | None) -> None:
            if plan is not None:
                self.picked = None
                self.place(plan)

        self.screen.app.push_screen(form, sent)

    # ---- sending --------------------------------------------------------------------------------

    def _run(self, what: str, call: Callable[[], Awaitable[str]]) -> None:
        """Run ``call`` in a worker; notify its message, or the error."""

        async def job() -> None:
            self.in_flight += 1
            try:
                message = await call()
            except ActionRejected as exc:
                self.screen.notify(
                    f"{what}: rejected: {exc.message}", title="Exchange", severity="error", timeout=8, markup=False
                )
            except ClientError as exc:
                self.screen.notify(f"{what}: {exc}", title="Network", severity="error", timeout=8, markup=False)
            else:
                self.screen.notify(message, title=what, markup=False)
            finally:
                self.in_flight -= 1
            await self.refresh()

        self.screen.run_worker(job(), group="submit", exit_on_error=False)

    def place(self, plan: OrderPlan) -> None:
        async def call() -> str:
            resp = await self.client.place_order([plan.to_wire()])
            return f"{plan.describe()}\noid {_oid(resp)} · tx {short_address(resp.tx_hash)}"

        self._run("Order", call)

    def cancel_order(self, order: Order | None) -> None:
        if self._refuse_watch_only():
            return
        if order is None:
            self.screen.notify("No open order selected.", severity="warning")
            return

        async def call() -> str:
            resp = await self.client.cancel_by_oid([(order.order_id, order.instrument_id)])
            return f"cancelled {order.order_id} ({order.instrument}) · tx {short_address(resp.tx_hash)}"

        self._run("Cancel", call)

    def cancel_instrument(self) -> None:
        if self._refuse_watch_only():
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
        if self._refuse_watch_only():
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
        if self._refuse_watch_only():
            return
        if position is None:
            self.screen.notify("No position selected.", severity="warning")
            return
        ctx = order_context(self.state, position.instrument)
        if ctx is None:
            return
        plan = close_position_plan(ctx)
        if plan is None:
            self.screen.notify(f"No {position.instrument} position to close.", severity="warning")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.place(plan)

        lines = [plan.describe(), "A reduce-only market order: it fills against the book, with slippage."]
        self.screen.app.push_screen(ConfirmScreen(f"Close the {position.instrument} position?", lines), answered)
