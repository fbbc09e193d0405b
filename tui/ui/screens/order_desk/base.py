"""The desk's shared part (``Desk``): the screen it tells and asks, the client it sends with, the feed's state it
reads; the read-only and watch-only refusals, sending in a worker, reporting the outcome, asking before an order
that needs it. Every group of actions holds one ``Desk``; what the desk decides without Textual is
``tui.trading`` (``order_context``, ``checked``, ``placed_oid``, ``why_failed``)."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from textual.screen import Screen

from tui.api.client import Client
from tui.api.errors import AccountMismatch, ActionRejected, ClientError
from tui.api.models import ExchangeResponse, LeverageSetting, UserFees
from tui.feed.state import FeedState
from tui.trading import ConfirmPolicy, OrderContext, OrderPlan, confirmation_reasons, market_estimate
from tui.trading import placement as placing
from tui.trading.cloids import tool_named, with_tool_cloids
from tui.trading.context import order_context, risk_inputs
from tui.trading.guards import Guards, OrderGuard, reversal
from tui.trading.latency import Latency
from tui.trading.orders import resting_order
from tui.trading.outcomes import AmendUnsure, NotPlaced, OutcomeUnknown, placed_oid
from tui.trading.risk_preview import RiskInputs, leverage_line, liquidation_line, preview_plan, risk_lines
from tui.trading.settle import Placed
from tui.ui.messages import FeedChanged
from tui.ui.widgets.display import short_address

from ..confirm import ConfirmScreen
from ..order_form import Settled

log = logging.getLogger(__name__)
READ_ONLY = "Read-only mode (--read-only or read_only = true in the profile): trading is disabled"


class Desk:
    """What every trading action of ``screen`` against ``client`` uses; ``refresh`` polls the account afterwards."""

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
        guard: OrderGuard | None = None,
        clock: Callable[[], float] | None = None,
        ladder_notional: Decimal | None = None,
    ) -> None:
        self.screen = screen
        self.client = client
        self.state = state
        self.refresh = refresh
        self.policy = policy
        self.watch_only = watch_only
        self.read_only = read_only
        self.in_flight = 0  # submissions whose outcome is not yet shown (quitting asks while any is)
        self.picked: Decimal | None = None  # a price picked in the book, for the next order form
        self.guard = guard or OrderGuard(Guards(), state, client.server_clock.now_ms)  # the profile's guards
        self.armed = False  # armed: order confirmations are skipped (never the guards, nor the questions that stay)
        self.clock = clock or time.monotonic  # the feed's clock: a poll sent before a change cannot undo it
        self.latency = Latency(self.clock)  # sign -> acknowledgement -> socket, for the status bar
        self.leverage: dict[str, LeverageSetting] = {}  # the leverage in force per perp, as last read
        self.fees: UserFees | None = None  # the account's fee rates, once read
        self.order_sizes: dict[str, str] = {}  # per instrument, the size the ladder orders at (z, or its default)
        self.ladder_notional = ladder_notional  # USDC: the profile's ladder size (None: 2x the minimum order)

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
        """Read the leverage in force on ``symbol`` (and the fee rates, once) in a worker, then ``then``: the
        account screen's figures, asked afresh each time a form opens, so a change made elsewhere shows."""
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

        self.screen.run_worker(job(), name=f"risk of {symbol}", group="risk", exit_on_error=False)

    def positions(self) -> dict[str, Decimal]:
        """Each instrument's signed position size, as last seen."""
        return self.guard.positions()

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
            self.screen.notify(why, title="Refused by this profile's guard", severity="error", timeout=15, markup=False)
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
            self.screen.notify(f"{READ_ONLY}: {what} not sent.", title="Read-only", severity="warning")
        elif self.watch_only:
            self.screen.notify(
                f"watch-only: no key loaded (start with --key-env VAR or a profile's keystore): {what} not sent.",
                severity="warning",
            )
        return self.read_only or self.watch_only

    def log(self, kind: str, text: str) -> None:
        """Enter ``text`` in the event log (the header's count of new events follows)."""
        self.state.account.events.add(kind, text)
        self.screen.app.post_message(FeedChanged(frozenset({"events"})))

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
            self.screen.app.post_message(FeedChanged(frozenset({"orders", "positions"})))

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
            self.screen.app.post_message(FeedChanged(frozenset({"orders", "positions"})))

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
                self.log("refusal", f"{what}: rejected: {exc.message}")
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
        if self.guarded([plan]):  # checked again as it goes: the account may have moved since the form's check
            if settled is not None:
                settled(None)
            return

        async def call() -> str:
            placed = await self.place_settled([plan], "xt")
            if placed.response is None:
                return f"{plan.describe()}\n{placed.words()}"
            resp = placed.response
            return f"{plan.describe()}\noid {placed_oid(resp)} · tx {short_address(resp.tx_hash)}"

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
            return f"{done}{' (refused: ' + said + ')' if said else ''} · tx {short_address(resp.tx_hash)}"

        self.run("Order", call, settled)

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

        def answered(sure: bool | str | None) -> None:
            if sure is True:
                then()
            elif also is not None and sure == also[0]:
                also[2]()

        other = (also[0], also[1]) if also is not None else None
        self.screen.app.push_screen(ConfirmScreen(title, lines, yes=yes, also=other), answered)

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
