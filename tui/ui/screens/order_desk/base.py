"""The desk's shared part (``Desk``): the screen it tells and asks, the client it sends with, the feed's state it
reads; the read-only and watch-only refusals, sending in a worker, reporting the outcome, asking before an order
that needs it. Every group of actions holds one ``Desk``; what the desk decides without Textual is
``tui.trading`` (``order_context``, ``checked``, ``placed_oid``, ``why_failed``)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

from textual.screen import Screen

from tui.api.client import Client
from tui.api.errors import AccountMismatch, ActionRejected, ClientError
from tui.feed.state import FeedState
from tui.trading import ConfirmPolicy, OrderContext, OrderPlan, confirmation_reasons, market_estimate
from tui.trading.context import order_context
from tui.trading.outcomes import AmendUnsure, NotPlaced, OutcomeUnknown, placed_oid
from tui.trading.settle import Placed, place_settled, with_cloids
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

    def context(self, symbol: str) -> OrderContext | None:
        """What an order on ``symbol`` needs to know now, with this desk's slippage bound."""
        return order_context(self.state, symbol, self.policy.slippage_pct)

    def refuse(self, what: str) -> bool:
        """Say why ``what`` cannot be done (read-only, watch-only); False when it can."""
        if self.read_only:
            self.screen.notify(f"{READ_ONLY}: {what} not sent.", title="Read-only", severity="warning")
        elif self.watch_only:
            self.screen.notify(
                f"Watch-only: no key to sign with (start with --key-env VAR or a profile's keystore): {what} not sent.",
                severity="warning",
            )
        return self.read_only or self.watch_only

    def log(self, kind: str, text: str) -> None:
        """Enter ``text`` in the event log (the header's count of new events follows)."""
        self.state.account.events.add(kind, text)
        self.screen.app.post_message(FeedChanged(frozenset({"events"})))

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
        async def call() -> str:
            placed = await self.place_settled([plan], "xt")
            if placed.response is None:
                return f"{plan.describe()}\n{placed.words()}"
            resp = placed.response
            return f"{plan.describe()}\noid {placed_oid(resp)} · tx {short_address(resp.tx_hash)}"

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

        placed = await place_settled(self.client, with_cloids(plans, prefix), on_unconfirmed=unconfirmed)
        if placed.response is None and placed.unknown:
            raise OutcomeUnknown(f"{placed.words()}: see Open orders and Fills before sending again")
        if placed.response is None and not any(o is not None and o.found for o in placed.orders):
            raise NotPlaced(f"{placed.words()}: nothing was placed; sending again is safe")
        return placed

    def ask(self, title: str, lines: list[str], then: Callable[[], object], *, yes: str = "Yes (y)") -> None:
        """Ask ``title`` (default No), showing ``lines``; ``then`` on yes."""

        def answered(sure: bool | None) -> None:
            if sure:
                then()

        self.screen.app.push_screen(ConfirmScreen(title, lines, yes=yes), answered)

    def confirm_then_place(self, plan: OrderPlan, ctx: OrderContext, *, title: str) -> None:
        """Send ``plan``, asking first (default No) only when ``confirmation_reasons`` has any."""
        reasons = confirmation_reasons(plan, ctx, self.policy)
        if not reasons:
            self.place(plan)
            return
        lines = [plan.describe(), *reasons, *filter(None, [market_estimate(plan, ctx)])]
        self.ask(title, lines, lambda: self.place(plan))
