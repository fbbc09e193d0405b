"""The order desk's shared part: what an order needs to know of the market (``order_context``), and the
machinery every trading action uses: the read-only and watch-only refusals, sending in a worker, reporting the
outcome, asking before an order that needs it."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any

from textual.screen import Screen

from tui.api.client import Client
from tui.api.errors import AccountMismatch, ActionRejected, ClientError
from tui.api.models import ExchangeResponse, Order
from tui.feed.state import FeedState
from tui.order_entry import (
    DEFAULT_SLIPPAGE_PCT,
    ConfirmPolicy,
    OrderContext,
    OrderPlan,
    Validation,
    confirmation_reasons,
    fmt_decimal,
    market_estimate,
)
from tui.order_entry.settle import Placed, place_settled, with_cloids
from tui.ui.widgets.display import short_address

from ..confirm import ConfirmScreen
from ..field_checks import FieldError
from ..order_form import Settled

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


def first_error(errors: dict[str, str], fields: tuple[str, ...]) -> FieldError:
    """The first of ``errors`` as a ``FieldError`` on its field, or on the form's first field when the fault
    is in a field the form does not have."""
    name, message = next(iter(errors.items()), (fields[0], "cannot be sent"))
    return FieldError(name if name in fields else fields[0], message)


def checked(result: Validation, fields: tuple[str, ...]) -> OrderPlan:
    """The plan of ``result``, or a ``FieldError`` on the first field it faults."""
    if result.ok and result.plan is not None:
        return result.plan
    raise first_error(result.errors, fields)


def describe_order(order: Order) -> str:
    """An open order as a person reads it: 'SELL 0.5 BTC-PERP @ 101,000 (GTC reduce-only)'."""
    side = "BUY" if order.side == "b" else "SELL"
    at = "market" if order.is_market else fmt_decimal(order.limit_price)
    trig = f", trigger {fmt_decimal(order.trigger_px)}" if order.trigger_px else ""
    kind = {"tp": "take-profit ", "sl": "stop-loss "}.get(order.tpsl, "stop " if order.trigger_px else "")
    flags = " reduce-only" if order.reduce_only else ""
    return f"{side} {fmt_decimal(order.unfilled)} {order.instrument} @ {at} ({kind}{order.tif}{trig}{flags})"


def placed_oid(resp: ExchangeResponse[Any]) -> str:
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


class DeskBase:
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
            except AmendUnsure as exc:
                self.screen.notify(f"{what}: {exc}", title=what, severity="error", timeout=15, markup=False)
            except OutcomeUnknown as exc:  # never sent again here: the trader looks first
                log.error("%s: %s", what, exc)
                self.screen.notify(
                    f"{what}: {exc}", title="OUTCOME UNKNOWN", severity="error", timeout=60, markup=False
                )
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
            placed = await self.place_settled([plan], "xt")
            if placed.response is None:
                return f"{plan.describe()}\n{placed.words()}"
            resp = placed.response
            return f"{plan.describe()}\noid {placed_oid(resp)} · tx {short_address(resp.tx_hash)}"

        self._run("Order", call, settled)

    async def place_settled(self, plans: list[OrderPlan], prefix: str) -> Placed:
        """``plans`` in one placeOrder, each with a cloid (``prefix`` where it had none). A lost answer is settled
        from the exchange's record before anything else: every order placed or not (``Placed.words``), or
        ``OutcomeUnknown`` when the record cannot say in time; ``NotPlaced`` when none of them is there."""

        def unconfirmed(why: str) -> None:
            self.screen.notify(
                f"{len(plans)} order(s) unconfirmed: waiting for the exchange ({why}); nothing is sent again",
                title="Unconfirmed",
                severity="warning",
                timeout=15,
                markup=False,
            )

        placed = await place_settled(self.client, with_cloids(plans, prefix), on_unconfirmed=unconfirmed)
        if placed.response is None and placed.unknown:
            raise OutcomeUnknown(f"{placed.words()}: see Open orders and Fills before sending again")
        if placed.response is None and not any(o is not None and o.found for o in placed.orders):
            raise NotPlaced(f"{placed.words()}: nothing was placed; sending again is safe")
        return placed

    def _ask(self, title: str, lines: list[str], then: Callable[[], object], *, yes: str = "Yes (y)") -> None:
        """Ask ``title`` (default No), showing ``lines``; ``then`` on yes."""

        def answered(sure: bool | None) -> None:
            if sure:
                then()

        self.screen.app.push_screen(ConfirmScreen(title, lines, yes=yes), answered)

    def _confirm_then_place(self, plan: OrderPlan, ctx: OrderContext, *, title: str) -> None:
        """Send ``plan``, asking first (default No) only when ``confirmation_reasons`` has any."""
        reasons = confirmation_reasons(plan, ctx, self.policy)
        if not reasons:
            self.place(plan)
            return
        lines = [plan.describe(), *reasons, *filter(None, [market_estimate(plan, ctx)])]
        self._ask(title, lines, lambda: self.place(plan))


class OutcomeUnknown(ClientError):
    """Orders whose answer was lost and whose outcome the exchange's record could not tell in time."""


class NotPlaced(ClientError):
    """Orders whose answer was lost and that the exchange's record shows were never placed."""


class AmendUnsure(ClientError):
    """An amend that stopped half way: the cancel's outcome is unknown, or the old order is cancelled and
    the new one was not placed."""

    def __init__(self, oid: int, exc: ClientError, *, cancelled: bool = False, unknown: bool = False) -> None:
        if unknown:
            super().__init__(
                f"oid {oid} was cancelled; whether the new order was placed is unknown ({exc}): see Open orders "
                "before placing it again"
            )
        elif cancelled:
            super().__init__(f"oid {oid} was cancelled but the new order was not placed ({why_failed(exc)})")
        else:
            super().__init__(f"the cancel of oid {oid} did not answer ({exc}): nothing was placed; check Open orders")


def why_failed(exc: ClientError) -> str:
    return f"rejected: {exc.message}" if isinstance(exc, ActionRejected) else str(exc)
