"""What the account, wallet, history, explorer and reference screens share.

``DataScreen`` polls: a worker loads the screen's data, the screen shows it, then the next load waits
``poll_s``; loads never overlap and a key (``r``) loads again now. Nothing on the UI loop awaits the
network. Signed actions go through ``propose``: a form, a confirmation that names what will move (default
No), then a worker that sends the action and shows the result with its full transaction hash.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar, cast

import msgspec
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Static, TabbedContent
from textual.worker import Worker, WorkType

from tui.api.client import Client
from tui.api.errors import ActionRejected, ClientError
from tui.api.models import DecodeError, ExchangeResponse
from tui.api.signing import Signer
from tui.edges.safe_text import printable
from tui.feed.alerts import AlertBook
from tui.feed.event_file import EventFile
from tui.feed.watchlist import Watchlist
from tui.feed.worker import Feed
from tui.keys import KeystoreError
from tui.ui.messages import FeedChanged
from tui.ui.render.screens import LeanScreen
from tui.ui.widgets.display import short_address
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.notice_line import NoticeLine
from tui.ui.worker_errors import report_worker_error

from .confirm import ConfirmScreen
from .form import FormScreen

if TYPE_CHECKING:
    from tui.trading.chase import ChaseRunner
    from tui.trading.oco import OcoRunner
    from tui.trading.twap import TwapRunner
    from tui.ui.session import Session

__all__ = ["ActionPlan", "DataScreen", "ScreenContext"]

log = logging.getLogger(__name__)


class ScreenContext(msgspec.Struct, frozen=True):
    """What every data screen is given: the client, the feed, whose account, who signs, how often to poll, and
    the account's stores (alerts, watchlist, TWAPs). Made from the app's session (``of``)."""

    client: Client
    feed: Feed
    account: str | None
    signer: Signer | None
    read_only: bool
    poll_s: float
    now_ms: Callable[[], int]  # the exchange's time as this machine sees it
    profile: str
    alerts: AlertBook
    watchlist: Watchlist
    twaps: TwapRunner | None  # None without a key to trade with
    event_file: EventFile  # the event log kept on disk: what earlier sessions logged
    chases: ChaseRunner | None = None  # likewise
    ocos: OcoRunner | None = None

    @classmethod
    def of(cls, session: Session) -> ScreenContext:
        return cls(
            client=session.client,
            feed=session.feed,
            account=session.account,
            signer=session.signer,
            read_only=session.read_only,
            poll_s=session.feed.poll_s,
            now_ms=session.now_ms,
            profile=session.profile,
            alerts=session.alerts,
            watchlist=session.watchlist,
            twaps=session.twaps,
            event_file=session.event_file,
            chases=session.chases,
            ocos=session.ocos,
        )


class ActionPlan(msgspec.Struct, frozen=True):
    """A checked action: the question and the lines of the confirmation, and how to send it."""

    what: str  # "Transfer": names the notification and the result line
    question: str
    lines: list[str]
    send: Callable[[], Awaitable[ExchangeResponse[Any]]]
    outcome: Callable[[ExchangeResponse[Any]], str] = msgspec.field(default=lambda resp: "done")


class DataScreen(LeanScreen[None]):
    """A screen of exchange data, reloaded every ``poll_s``. Subclasses give ``compose_body`` and ``fetch``."""

    class Loaded(Message, bubble=False):
        """A load has landed: the screen shows the exchange's answer, or why there is none."""

        def __init__(self, screen: DataScreen) -> None:
            super().__init__()
            self.screen = screen

        @property
        def control(self) -> DataScreen:
            return self.screen

    SCREEN_TITLE: ClassVar[str] = ""
    # notices in a line of the screen's own (``NoticeLine``) instead of toasts over its table, while it is shown
    NOTICES_IN_LINE: ClassVar[bool] = False
    SIGNED_ACTIONS: ClassVar[frozenset[str]] = frozenset()  # actions that sign: hidden when nothing can sign
    AUTO_FOCUS = "DataTable"  # Up and Down move the selection at once, and the row keys act on it

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="screen.back", tooltip="Back to the dashboard"),
        Binding("r", "reload", "Refresh", id="screen.reload", tooltip="Load this screen's data again now"),
    ]

    DEFAULT_CSS = """
    DataScreen {
        layout: vertical;
    }
    DataScreen #screen-title {
        height: 1;
        background: $panel;
        padding: 0 1;
        text-style: bold;
    }
    DataScreen #screen-error {
        height: auto;
        padding: 0 1;
        color: $error;
        display: none;
    }
    DataScreen #screen-error.-shown {
        display: block;
    }
    DataScreen #screen-result, DataScreen .screen-note {
        height: auto;
        padding: 0 1;
        color: $foreground-muted;
    }
    DataScreen #screen-result.-error {
        color: $error;
    }
    DataScreen .section {
        height: 1;
        padding: 0 1;
        color: $accent;
        text-style: bold;
    }
    """

    def __init__(self, ctx: ScreenContext) -> None:
        super().__init__()
        self.ctx = ctx

    # ---- layout -------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        who = short_address(self.ctx.account) if self.ctx.account else "no account"
        yield Static(f"{self.SCREEN_TITLE} · {who} · {self.ctx.profile}", id="screen-title", markup=False)
        yield Static("", id="screen-error", markup=False)
        yield from self.compose_body()
        yield Static("", id="screen-result", markup=False)
        if self.NOTICES_IN_LINE:
            yield NoticeLine(id="screen-notices")
        yield Footer()

    def compose_body(self) -> ComposeResult:
        """The screen's own widgets."""
        yield from ()

    # ---- loading ------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.reload()

    def reload(self) -> None:
        """Load now, then every ``poll_s`` (a load already running is cancelled)."""
        self.start_work(self._poll, name=f"{self.SCREEN_TITLE} refresh", group="poll", exclusive=True)

    def start_work(
        self, work: Callable[[], Awaitable[None]], *, name: str, group: str, exclusive: bool = False
    ) -> None:
        """Run ``work`` in a worker of this screen. It is given as a function, not a coroutine: one
        cancelled before it starts (an exclusive group) then leaves no coroutine never awaited."""
        self.run_worker(cast("WorkType[None]", work), name=name, group=group, exclusive=exclusive, exit_on_error=False)

    async def _poll(self) -> None:
        await self.load_once()
        while True:
            await asyncio.sleep(self.ctx.poll_s)
            if self.polls:
                await self.load_once()

    @property
    def polls(self) -> bool:
        """Load again every ``poll_s``; a screen whose data streams in says no while it does."""
        return True

    async def load_once(self) -> None:
        """One load; a failure is shown on the screen, never raised."""
        error = self.query_one("#screen-error", Static)
        try:
            await self.fetch()
        except (ClientError, DecodeError) as exc:
            error.update(f"Could not load: {exc}")
            error.add_class("-shown")
        else:
            error.update("")
            error.remove_class("-shown")
        self.post_message(self.Loaded(self))

    async def fetch(self) -> None:
        """Ask the exchange for the screen's data and show it."""

    @property
    def account(self) -> str | None:
        return self.ctx.account

    # ---- actions ------------------------------------------------------------------------------------

    def refuse(self, what: str) -> bool:
        """Say why ``what`` cannot be sent (read-only, watch-only); False when it can."""
        if self.ctx.read_only:
            self.notify(f"Read-only mode: {what} not sent.", title="Read-only", severity="warning")
            return True
        if self.ctx.signer is None:
            self.notify(f"Watch-only: no key to sign with: {what} not sent.", severity="warning")
            return True
        return False

    def propose(self, what: str, form: FormScreen[ActionPlan]) -> None:
        """Show ``form``; confirm the plan it makes (default No); send it when confirmed."""
        if self.refuse(what):
            return

        def planned(plan: ActionPlan | None) -> None:
            if plan is not None:
                self.confirm(plan)

        self.app.push_screen(form, planned)

    def confirm(self, plan: ActionPlan) -> None:
        """Ask ``plan.question`` (default No), then send the plan."""
        if self.refuse(plan.what):
            return

        def answered(yes: bool | str | None) -> None:
            if yes is True:
                self.send(plan)

        self.app.push_screen(ConfirmScreen(plan.question, plan.lines), answered)

    def send(self, plan: ActionPlan) -> None:
        """Send ``plan`` in a worker; the outcome and transaction hash go to the result line and a notification."""

        async def job() -> None:
            try:
                resp = await plan.send()
            except ActionRejected as exc:
                tx = f" · tx {exc.tx_hash}" if exc.tx_hash else ""
                self.show_result(f"{plan.what}: rejected: {exc.message}{tx}", error=True)
                self.ctx.feed.state.account.events.add("refusal", f"{plan.what}: rejected: {exc.message}")
                self.app.post_message(FeedChanged(frozenset({"events"})))  # the header counts it
            except (ClientError, KeystoreError, OSError, ValueError) as exc:
                self.show_result(f"{plan.what}: failed: {exc}", error=True)
            else:
                self.show_result(f"{plan.what}: {plan.outcome(resp)} · tx {resp.tx_hash}")
            self.reload()
            await self.ctx.feed.refresh_account()

        self.start_work(job, name=plan.what, group="submit")

    def show_result(self, text: str, *, error: bool = False) -> None:
        line = self.query_one("#screen-result", Static)
        line.update(printable(text, lines=True))  # it may quote the exchange's refusal
        line.set_class(error, "-error")
        log.log(logging.WARNING if error else logging.INFO, "%s", text)
        self.notify(text, severity="error" if error else "information", timeout=10 if error else 6, markup=False)

    # ---- keys ---------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Signing actions are not offered read-only or watch-only (``refuse`` still says why if called)."""
        return not (action in self.SIGNED_ACTIONS and (self.ctx.read_only or self.ctx.signer is None))

    @on(TabbedContent.TabActivated)
    def _focus_tab_table(self, event: TabbedContent.TabActivated) -> None:
        """A tab shown: its first table takes the focus, so Up and Down move its selection without Tab."""
        for table in event.pane.query(DataTable):
            if table.focusable:
                table.focus()
                return

    def action_back(self) -> None:
        if self.is_current:
            self.app.pop_screen()

    def action_reload(self) -> None:
        self.reload()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_worker_error(self, event)


def money_lines(rows: Iterable[tuple[str, str]]) -> list[str]:
    """Confirmation lines aligned on their labels."""
    items = list(rows)
    width = max((len(k) for k, _ in items), default=0)
    return [f"{k.ljust(width)}  {v}" for k, v in items]
