"""The trading desk (``TradingDesk``): what every trading action of a session shares, without Textual.

The session owns it (``tui.ui.session``): the profile's guards and armed mode, the latency of what is sent, the
leverage and fee rates as last read, the ladder's sizes, the submissions in flight and the price picked for the next
order form; placing through the one placement primitive (``tui.trading.placement``), and the account's one state
updated as the exchange answers (``took``, ``cancelled``). What it tells the trader, asks first or runs in the
background goes through one small port (``DeskPort``) that the dashboard gives it (``attach``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Literal, Protocol

from tui.api.client import Client
from tui.api.errors import AccountMismatch, ActionRejected, ClientError
from tui.api.models import ExchangeResponse, LeverageSetting, UserFees
from tui.feed.state import FeedState
from tui.trading import ConfirmPolicy, OrderContext, OrderPlan, confirmation_reasons, market_estimate
from tui.trading import placement as placing
from tui.trading.cloids import tool_named, with_tool_cloids
from tui.trading.context import order_context, risk_inputs
from tui.trading.guards import OrderGuard, reversal
from tui.trading.latency import Latency
from tui.trading.orders import resting_order
from tui.trading.outcomes import AmendUnsure, NotPlaced, OutcomeUnknown, placed_oid
from tui.trading.risk_preview import RiskInputs, leverage_line, liquidation_line, preview_plan, risk_lines
from tui.trading.settle import Placed

__all__ = ["READ_ONLY", "Answer", "DeskPort", "Settled", "TradingDesk", "short_hash"]

log = logging.getLogger(__name__)
READ_ONLY = "Read-only mode (--read-only or read_only = true in the profile): trading is disabled"

Severity = Literal["information", "warning", "error"]
Answer = bool | str | None  # a question's answer: yes (True), no (False, None), or the key of a third answer
Settled = Callable[[str | None], None]  # told the exchange's refusal of a form's order (None: nothing to fix)


class DeskPort(Protocol):
    """What the desk needs of the screen it trades from: tell, ask, run in the background."""

    def notify(
        self, message: str, *, title: str = "", severity: Severity = "information", timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...  # fmt: skip

    def ask(
        self, title: str, lines: list[str], answered: Callable[[Answer], None], *, yes: str,
        also: tuple[str, str] | None,
    ) -> None: ...  # fmt: skip

    def run(self, work: Coroutine[Any, Any, None], *, name: str, group: str) -> None: ...


def short_hash(tx_hash: str | None) -> str:
    """A transaction hash shortened as the dashboard writes addresses (0x1234…abcd)."""
    if not tx_hash:
        return "-"
    return f"{tx_hash[:6]}…{tx_hash[-4:]}" if len(tx_hash) > 12 else tx_hash


class TradingDesk:
    """What every trading action of a session against ``client`` uses; ``refresh`` polls the account afterwards,
    ``changed`` tells the dashboard which topics of the one state the desk changed itself."""

    def __init__(
        self,
        client: Client,
        state: FeedState,
        *,
        refresh: Callable[[], Awaitable[None]],
        changed: Callable[[frozenset[str]], None],
        policy: ConfirmPolicy,
        guard: OrderGuard,
        clock: Callable[[], float],
        watch_only: bool,
        read_only: bool = False,
        ladder_notional: Decimal | None = None,
    ) -> None:
        self.client = client
        self.state = state
        self.refresh = refresh
        self.changed = changed
        self.policy = policy
        self.watch_only = watch_only
        self.read_only = read_only
        self.in_flight = 0  # submissions whose outcome is not yet shown (quitting asks while any is)
        self.picked: Decimal | None = None  # a price picked in the book, for the next order form
        self.guard = guard  # the profile's guards
        self.armed = False  # armed: order confirmations are skipped (never the guards, nor the questions that stay)
        self.clock = clock  # the feed's clock: a poll sent before a change cannot undo it
        self.latency = Latency(clock)  # sign -> acknowledgement -> socket, for the status bar
        self.leverage: dict[str, LeverageSetting] = {}  # the leverage in force per perp, as last read
        self.fees: UserFees | None = None  # the account's fee rates, once read
        self.order_sizes: dict[str, str] = {}  # per instrument, the size the ladder orders at (z, or its default)
        self.ladder_notional = ladder_notional  # USDC: the profile's ladder size (None: 2x the minimum order)
        self._port: DeskPort | None = None

    def attach(self, port: DeskPort) -> None:
        """Trade from the screen behind ``port`` (the dashboard, once it is made)."""
        self._port = port

    @property
    def port(self) -> DeskPort:
        if self._port is None:
            raise RuntimeError("the desk trades from no screen yet (attach a port first)")
        return self._port

    # ---- what an order needs to know --------------------------------------------------------------

    def context(self, symbol: str) -> OrderContext | None:
        """What an order on ``symbol`` needs to know now, with this desk's slippage bound and the leverage in
        force as last read."""
        return order_context(self.state, symbol, self.policy.slippage_pct, self.leverage.get(symbol))

    def risk(self, symbol: str) -> RiskInputs | None:
        """What the risk estimate of an order on ``symbol`` needs now (None: a spot instrument)."""
        return risk_inputs(self.state, symbol, self.leverage.get(symbol), self.fees)

    def liquidation_line(self, plan: OrderPlan, ctx: OrderContext) -> str | None:
        """The liquidation price the position would have after ``plan``, for a confirmation; None on spot."""
        inputs = self.risk(plan.symbol)
        return liquidation_line(plan, ctx, inputs) if inputs is not None else None

    def risk_preview(self, plan: OrderPlan | None, ctx: OrderContext | None, why: str = "") -> list[str]:
        """A form's lines for the risk of ``plan`` (the margin it takes and its fee, the liquidation price and the
        available balance after it, the leverage in force); ``why`` it cannot be told when there is no plan."""
        inputs = self.risk(ctx.symbol) if ctx is not None else None
        if inputs is None or ctx is None:
            return []
        if plan is None:
            return [
                f"margin — · liq after — ({why or 'not a valid order yet'})",
                leverage_line(inputs.leverage, inputs.isolated),
            ]
        return risk_lines(preview_plan(plan, ctx, inputs), ctx.tick)

    def read_risk(self, symbol: str, then: Callable[[], object]) -> None:
        """Read the leverage in force on ``symbol`` (and the fee rates, once) in the background, then ``then``:
        the account screen's figures, asked afresh each time a form opens, so a change made elsewhere shows."""
        account = self.state.account.address
        info = self.state.market.instruments.get(symbol)
        if account is None or info is None or info.kind != "perp":
            return

        async def job() -> None:
            try:
                self.leverage[symbol] = await self.client.instrument_leverage(account, symbol)
            except ClientError as exc:  # the form shows the leverage as not known
                log.warning("instrument_leverage %s: %s", symbol, exc)
            if self.fees is None:
                try:
                    self.fees = await self.client.user_fees(account)
                except ClientError as exc:  # an SDK-only request: the fee shows as not known
                    log.warning("user_fees: %s", exc)
            then()

        self.port.run(job(), name=f"risk of {symbol}", group="risk")

    def positions(self) -> dict[str, Decimal]:
        """Each instrument's signed position size, as last seen."""
        return self.guard.positions()

    # ---- the guards and the questions ---------------------------------------------------------------

    def refusal(self, plans: Sequence[OrderPlan]) -> str | None:
        """Why the profile's guards refuse ``plans`` (sent together); None when they may go. Armed or not."""
        why = self.guard.refusal(plans)
        if why is not None:
            log.warning("guard refused: %s", why)
            self.log("refusal", f"Refused by this profile's guard: {why}")
        return why

    def guarded(self, plans: Sequence[OrderPlan]) -> bool:
        """Say so loudly when the profile's guards refuse ``plans``; True when refused (nothing is sent)."""
        why = self.refusal(plans)
        if why is not None:
            self.port.notify(why, title="Refused by this profile's guard", severity="error", timeout=15, markup=False)
        return why is not None

    def questions(self, plans: Sequence[OrderPlan], ctx: OrderContext | None) -> list[str]:
        """Why to ask before sending ``plans``: a reversal of a position always; the confirmation rules (for the
        first order, against ``ctx``) unless armed. Empty: send without asking."""
        asked = list(filter(None, [reversal(plans, self.positions())]))
        if not self.armed and ctx is not None and plans:
            asked += confirmation_reasons(plans[0], ctx, self.policy)
        return asked

    def refuse(self, what: str) -> bool:
        """Say why ``what`` cannot be done (read-only, watch-only); False when it can."""
        if self.read_only:
            self.port.notify(f"{READ_ONLY}: {what} not sent.", title="Read-only", severity="warning")
        elif self.watch_only:
            self.port.notify(
                f"watch-only: no key loaded (start with --key-env VAR or a profile's keystore): {what} not sent.",
                severity="warning",
            )
        return self.read_only or self.watch_only

    def ask(
        self,
        title: str,
        lines: list[str],
        then: Callable[[], object],
        *,
        yes: str = "Yes (y)",
        also: tuple[str, str, Callable[[], object]] | None = None,
    ) -> None:
        """Ask ``title`` (default No), showing ``lines``; ``then`` on yes; ``also`` is (key, label, what it does): a
        third answer."""

        def answered(sure: Answer) -> None:
            if sure is True:
                then()
            elif also is not None and sure == also[0]:
                also[2]()

        self.port.ask(title, lines, answered, yes=yes, also=(also[0], also[1]) if also is not None else None)

    # ---- the one state, as the exchange answers ---------------------------------------------------

    def log(self, kind: str, text: str) -> None:
        """Enter ``text`` in the event log (the header's count of new events follows)."""
        self.state.account.events.add(kind, text)
        self.changed(frozenset({"events"}))

    def took(self, plans: Sequence[OrderPlan], oids: Sequence[int | None]) -> None:
        """The exchange accepted ``plans`` (``oids`` theirs): the trigger orders among them (TP/SL, stops) rest, so
        their rows come into the one state now; the others (a limit may fill at once) come with the feed."""
        account = self.state.account
        if account.address is None:
            return
        now, stamp = self.clock(), datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        rested = [
            account.rested(resting_order(plan, oid, account.address, stamp), now)
            for plan, oid in zip(plans, oids, strict=False)
            if oid is not None and plan.trigger is not None
        ]
        if any(rested):
            self.changed(frozenset({"orders", "positions"}))

    def cancel_answered(self, response: ExchangeResponse[Any], order_ids: Sequence[int]) -> None:
        """A cancel's answer: each of ``order_ids`` whose status is a success is ``cancelled``."""
        data = response.data
        raw = data.get("status") if isinstance(data, dict) else data
        items = raw if isinstance(raw, list) else [raw]
        done = zip(order_ids, items, strict=False)  # an order the answer does not name stays until the feed says
        self.cancelled([oid for oid, item in done if isinstance(item, dict) and "success" in item])

    def cancelled(self, order_ids: Sequence[int]) -> None:
        """The exchange accepted cancelling ``order_ids``: the open orders, the TP/SL columns and the protection
        read it now (one state), before the feed confirms it, so no key acts on a row already gone."""
        if self.state.account.cancelled(order_ids, self.clock()):
            self.changed(frozenset({"orders", "positions"}))

    @contextmanager
    def submitting(self) -> Iterator[None]:
        """Count a submission in flight while the block runs."""
        self.in_flight += 1
        try:
            yield
        finally:
            self.in_flight -= 1

    # ---- sending --------------------------------------------------------------------------------

    def run(self, what: str, call: Callable[[], Awaitable[str]], settled: Settled | None = None) -> None:
        """Run ``call`` in the background; tell its message, or the error. ``settled`` is told the exchange's
        refusal, or None when there is nothing to fix and send again (done; or not known, so sending again could do
        it twice)."""
        port = self.port

        async def job() -> None:
            self.in_flight += 1
            refusal: str | None = None
            try:
                message = await call()
            except ActionRejected as exc:
                refusal = exc.message
                self.log("refusal", f"{what}: rejected: {exc.message}")
                port.notify(
                    f"{what}: rejected: {exc.message}", title="Exchange", severity="error", timeout=8, markup=False
                )
            except AmendUnsure as exc:
                port.notify(f"{what}: {exc}", title=what, severity="error", timeout=15, markup=False)
            except OutcomeUnknown as exc:  # never sent again here: the trader looks first
                log.error("%s: %s", what, exc)
                port.notify(f"{what}: {exc}", title="OUTCOME UNKNOWN", severity="error", timeout=60, markup=False)
            except AccountMismatch as exc:  # it was done, but to someone else: never shown as done
                log.error("%s: %s", what, exc)
                port.notify(f"{what}: {exc}", title="WRONG ACCOUNT", severity="error", timeout=60, markup=False)
            except ClientError as exc:
                port.notify(f"{what}: {exc}", title="Network", severity="error", timeout=8, markup=False)
            else:
                port.notify(message, title=what, markup=False)
            finally:
                self.in_flight -= 1
                if settled is not None:
                    settled(refusal)
            await self.refresh()

        port.run(job(), name=what, group="submit")

    def place(self, plan: OrderPlan, settled: Settled | None = None) -> None:
        if self.guarded([plan]):  # checked again as it goes: the account may have moved since the form's check
            if settled is not None:
                settled(None)
            return

        async def call() -> str:
            placed = await self.place_settled([plan], "xt")
            if placed.response is None:
                return f"{plan.describe()}\n{placed.words()}"
            resp = placed.response
            return f"{plan.describe()}\noid {placed_oid(resp)} · tx {short_hash(resp.tx_hash)}"

        self.run("Order", call, settled)

    def place_group(self, plans: list[OrderPlan], settled: Settled | None = None, prefix: str = "ex") -> None:
        """``plans`` in one placeOrder (a bracket: the entry, then its exits), each settled by its cloid."""
        if self.guarded(plans):
            if settled is not None:
                settled(None)
            return

        async def call() -> str:
            placed = await self.place_settled(plans, prefix)
            if placed.response is None:
                return placed.words()
            resp = placed.response
            statuses = resp.data.get("status", []) if isinstance(resp.data, dict) else []
            refused = [s["error"] for s in statuses if isinstance(s, dict) and "error" in s]
            said = "; ".join(str(r) for r in refused)
            done = f"{len(plans) - len(refused)} of {len(plans)} order(s) placed"
            if refused:
                self.log("refusal", f"Order: {done}, refused: {said}")
            return f"{done}{' (refused: ' + said + ')' if said else ''} · tx {short_hash(resp.tx_hash)}"

        self.run("Order", call, settled)

    async def place_settled(self, plans: list[OrderPlan], prefix: str) -> Placed:
        """``plans`` in one placeOrder, each with a cloid (``prefix`` where it had none). A lost answer is settled
        from the exchange's record before anything else: every order placed or not (``Placed.words``), or
        ``OutcomeUnknown`` when the record cannot say in time; ``NotPlaced`` when none of them is there."""

        def unconfirmed(why: str) -> None:
            self.port.notify(
                f"{len(plans)} order(s) unconfirmed: waiting for the exchange ({why}); nothing is sent again",
                title="Unconfirmed",
                severity="warning",
                timeout=15,
                markup=False,
            )

        tool = tool_named(prefix)
        plans = with_tool_cloids(plans, tool)
        timing = self.latency.start([p.cloid for p in plans])
        request = placing.PlaceRequest(tuple(plans), tool)
        outcome = await placing.place(self.client, request, on_unconfirmed=unconfirmed)
        self.latency.answered(timing)
        match outcome:
            case placing.Accepted():
                self.took(plans, outcome.oids)
                return Placed(outcome.response, expires_ms=outcome.expires_ms)
            case placing.Refused() | placing.WrongAccount():
                raise outcome.error  # the refusal as the exchange said it; the wrong account as ever
            case placing.Settled():
                placed = Placed(None, outcome.lost, tuple(outcome.orders), outcome.expires_ms)
                if not any(o.found for o in outcome.orders):
                    raise NotPlaced(f"{placed.words()}: nothing was placed; sending again is safe")
                return placed
            case placing.Unknown():
                placed = Placed(None, outcome.lost, outcome.orders, outcome.expires_ms)
                raise OutcomeUnknown(f"{placed.words()}: see Open orders and Fills before sending again")

    def confirm_then_place(self, plan: OrderPlan, ctx: OrderContext, *, title: str) -> None:
        """Send ``plan`` unless the guards refuse it, asking first (default No) only when ``questions`` has any."""
        if self.guarded([plan]):
            return
        reasons = self.questions([plan], ctx)
        if not reasons:
            self.place(plan)
            return
        lines = [
            plan.describe(),
            *reasons,
            *filter(None, [market_estimate(plan, ctx), self.liquidation_line(plan, ctx)]),
        ]
        self.ask(title, lines, lambda: self.place(plan))
