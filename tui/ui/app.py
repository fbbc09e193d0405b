"""XtuiApp: the shell. It runs a session's feed (``tui.ui.session``) and owns the themes, the keymap and the
palette; screens do the rest.

``XtuiApp(session, themes=...)`` reads no file: the session's stores and the themes are read before. ``make_app``
builds the session and the app in one call, for the screenshots, the bench and the tests.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Unpack

from rich.console import RenderableType
from textual import events
from textual.binding import BindingType
from textual.notifications import Notification, Notify, SeverityLevel
from textual.screen import Screen
from textual.signal import Signal
from textual.theme import Theme
from textual.worker import Worker

from tui.api.client import Client
from tui.api.errors import ClientError
from tui.api.signing import Signer
from tui.config.launch import DashboardOptions
from tui.edges.safe_text import printable
from tui.feed.alerts import AlertBook
from tui.feed.watchlist import Watchlist
from tui.feed.worker import Feed
from tui.trading.chase import MOVED
from tui.trading.trailing import Trail, TrailRunner
from tui.trading.twap import Twap, TwapRunner
from tui.ui.account_watch import AccountWatch
from tui.ui.bindings import APP_BINDINGS, key_catalogue
from tui.ui.commands import XtuiCommands
from tui.ui.diagnostics import Diagnostics, Probes, TerminalBytes
from tui.ui.layouts import LayoutCommands, next_layout
from tui.ui.messages import FeedChanged, WatchToggled
from tui.ui.order_tools import resting_now, stop_tools
from tui.ui.quitting import quit_question
from tui.ui.render.crash_guard import guard_app
from tui.ui.render.lean_app import LeanApp
from tui.ui.render.toasts import TOASTS_CSS, NoticeShown, keep_at_most, show_now
from tui.ui.screens.catalogue import open_screen, screen_classes
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.context import DashboardContext
from tui.ui.screens.data_screen import DataScreen, ScreenContext
from tui.ui.screens.help import HelpScreen
from tui.ui.screens.main import MainScreen
from tui.ui.screens.order_desk import OrderDesk, ScreenPort
from tui.ui.session import Session, SessionParts, open_session
from tui.ui.themes import DEFAULT_THEME, SEMANTIC_DEFAULTS, xtui_themes
from tui.ui.widgets.diagnostics_overlay import DiagnosticsOverlay
from tui.ui.widgets.notice_line import NoticeLine
from tui.ui.worker_errors import report_worker_error

if TYPE_CHECKING:
    from tui.ui.accounts import Accounts

__all__ = ["XtuiApp", "make_app"]

log = logging.getLogger("tui.ui")
WARM_UP_AFTER_S = 1.0  # this long after start-up, the data screens are imported (on the UI's loop)
MAX_TOASTS = 2  # notices shown at once; the older ones go (the event log keeps everything)
TWO_TOASTS_FROM = 30  # rows: under it (80x24) one notice, which fits beside the markets, above the positions
EVENTS_WRITTEN_EVERY_S = 0.5  # the event log's new entries go to its file's thread in batches this often


class XtuiApp(LeanApp[None]):
    TITLE = "xtui"
    CSS = TOASTS_CSS
    # xtui's commands only: Textual's system commands (its Quit, Keys, Maximize, Screenshot, Theme) bypass xtui's
    # own (the guarded quit, the help, T's themes); ctrl+q stays, as ``action_quit``, the guarded quit
    COMMANDS: ClassVar[set[Any]] = {XtuiCommands, LayoutCommands}

    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS
    # each session's main screen is the base of a screen mode of its own, so that another can replace it whole
    DEFAULT_MODE: ClassVar[str] = "session-0"

    def __init__(self, session: Session, *, themes: Sequence[Theme], accounts: Accounts | None = None) -> None:
        """The dashboard on ``session``, with ``themes`` (``xtui_themes()``) to choose from; ``accounts``: the
        profiles ``@`` switches to (None: started without a config, as the tests and screenshots are)."""
        super().__init__()
        self.accounts = accounts
        guard_app(self)  # an unexpected exception is shown and logged; it never ends the dashboard
        self._help_rows: list[Any] | None = None  # what the installed help screen lists
        self.on_exit: list[Callable[[], None]] = []  # called as the app begins to exit, before Textual's teardown
        self.on_switch: list[Callable[[], None]] = []  # called once another session is shown (``switch_session``)
        self._themes = [t.name for t in themes]
        for theme in themes:
            self.register_theme(theme)
        self.terminal_bytes = TerminalBytes()  # the output driver counts what it writes here
        self.diagnostics: Diagnostics | None = None  # made on mount: its first rates count from there
        self._earlier: list[Session] = []  # sessions replaced while a TWAP of theirs ran: it runs on in them
        self.left_resting: list[str] = []  # orders of xtui's runners left on the exchange as it ended
        self._sessions_shown = 1  # names the next session's screen mode
        self.news: Signal[frozenset[str]] = Signal(self, "feed")  # the feed's news, to the screens that follow it
        self._take(session)

    def _take(self, session: Session) -> None:
        """Make ``session`` the app's: its feed and TWAPs report here, and a new main screen shows it."""
        self.session = session
        self._watch = AccountWatch(self, session)  # what an earlier run left; each position's protection
        session.relay.listener = self
        session.client.on_network_mismatch = self._network_mismatch
        options = session.options
        self.keymap = dict(options.keymap)
        self.theme = options.theme if options.theme in self.available_themes else DEFAULT_THEME
        self.context = ScreenContext.of(session)
        port = ScreenPort(self)  # the desk tells, asks and runs through it
        session.desk.attach(port)
        orders = OrderDesk(session.desk, port, session.trails)
        self.dashboard = DashboardContext(session, port, orders, select=self._select, news=self.news)
        self.main = MainScreen(self.dashboard)
        port.work_on(self.main)  # its workers are the dashboard's, which hears how its cancels end
        status = session.feed.state.status
        self.probes = Probes(  # what the diagnostics overlay reads (tests pin them before the app runs)
            messages=lambda: status.messages,
            rate=session.client.governor.status,
            frames=self.main.frames.take,
            written=self.terminal_bytes.read,
        )

    def _select(self, symbol: str) -> None:
        """Show ``symbol`` in the dashboard (a layout's markets pane picks it)."""
        self.main.select(symbol)

    # ---- the session's parts, as the screens and the signal handlers reach them ----------------------

    @property
    def client(self) -> Client:
        return self.session.client

    @property
    def feed(self) -> Feed:
        return self.session.feed

    @property
    def options(self) -> DashboardOptions:
        return self.session.options

    @property
    def alerts(self) -> AlertBook:
        return self.session.alerts  # checked on every ticker update

    @property
    def watchlist(self) -> Watchlist:
        return self.session.watchlist

    @property
    def twaps(self) -> TwapRunner | None:
        return self.session.twaps

    @property
    def trails(self) -> TrailRunner | None:
        return self.session.trails

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(SEMANTIC_DEFAULTS)

    def get_default_screen(self) -> Screen[Any]:
        """The main screen is the bottom of the stack, not pushed over Textual's blank one: pushed in
        ``on_mount``, Textual held its start-up batch until every pane had mounted, so the screen's first
        frame was rendered inside the batch and thrown away (~40 ms), and drawn again after it."""
        self.main.take_breakpoints(self.size)
        return self.main

    def on_mount(self) -> None:
        if self.keymap:
            self.set_keymap(self.keymap)
        self.diagnostics = Diagnostics(self.probes)
        self._start_session()
        # The data screens are left out of start-up (``screen_classes``); a second after it they are imported
        # here, on the UI's loop (~90 ms, once), so that the first ? or A does not wait for them. Not in a
        # thread: the collector would then run there too, and a finalizer that schedules on this loop from
        # another thread leaves it asleep (seen as tests hanging in epoll).
        self.set_timer(WARM_UP_AFTER_S, screen_classes)
        self.set_interval(EVENTS_WRITTEN_EVERY_S, self.write_events)

    def write_events(self) -> None:
        """Hand the event log's new entries to its file's thread (which writes them: never this loop)."""
        self.session.event_file.write(self.feed.state.account.events.book.take_unwritten())

    def log_event(self, kind: str, text: str) -> None:
        """Enter what the dashboard saw in the event log (the header's unread count follows)."""
        self.feed.state.account.events.add(kind, text)
        self.main.feed_changed(frozenset({"events"}))

    def _start_session(self) -> None:
        """What the session's stores said as they were read, then its feed, started."""
        self.session.event_file.start()
        if self.alerts.problem:
            self.notify(self.alerts.problem, title="Alerts", severity="error", timeout=30, markup=False)
        if self.watchlist.problem:
            self.notify(self.watchlist.problem, title="Watchlist", severity="error", timeout=30, markup=False)
        if self.session.layouts.problem:
            self.notify(self.session.layouts.problem, title="Layouts", severity="error", timeout=30, markup=False)
        if self.session.indicators.problem:
            self.notify(self.session.indicators.problem, title="Chart", severity="error", timeout=30, markup=False)
        if self.client.network_mismatch:  # the exchange said so before the app started
            self._network_mismatch(self.client.network_mismatch)
        if self.session.fund:
            self.feed.account_opens_with(self._fund_from_faucet())
        self.run_worker(self.feed.run(), name="feed", group="feed", exit_on_error=False)

    async def switch_session(self, session: Session) -> None:
        """Show ``session`` instead of the current one (another account): the screens over the dashboard close,
        the current feed stops and a new main screen shows ``session``. A TWAP still running keeps the session it
        started in (its runner holds that client) until it ends or the dashboard quits."""
        old = self.session
        while len(self.screen_stack) > 1:
            await self.pop_screen()
        await old.feed.stop()
        self.write_events()
        old.event_file.close()
        if quit_question([old], 0) is not None:  # a tool of its own still runs: it goes on as its account
            self._earlier.append(old)
        elif old.owns_client:
            await old.client.aclose()
        self._take(session)
        if self.keymap:
            self.set_keymap(self.keymap)
        await self._show_main()
        self.diagnostics = Diagnostics(self.probes)
        self._start_session()
        for hook in self.on_switch:
            hook()

    async def _show_main(self) -> None:
        """The new main screen in place of the old one, which is removed first (the new one takes its id):
        through a blank screen mode, as Textual removes a mode's base screen only with its mode."""
        old, n = self.current_mode, self._sessions_shown
        passing, new = f"switching-{n}", f"session-{n}"
        self._sessions_shown += 1
        self.add_mode(passing, Screen)
        await self.switch_mode(passing)
        if old == self.DEFAULT_MODE:  # the start's mode was not added: Textual made it from get_default_screen
            self.add_mode(old, Screen)
        await self.remove_mode(old)
        main = self.main
        main.take_breakpoints(self.size)
        self.add_mode(new, lambda: main)
        await self.switch_mode(new)
        await self.remove_mode(passing)

    async def on_event(self, event: events.Event) -> None:
        """A key typed before the main screen has mounted (the feed can be ready before every pane is) would
        go to a screen that does not handle keys yet, and be lost: it is held, and handled once the screen
        is up (the screen's queue holds the call behind its mount)."""
        early = isinstance(event, events.Key) and not self.main.is_mounted and self.screen_stack[-1:] == [self.main]
        if early and self.main.call_later(self.post_message, event):
            return
        await super().on_event(event)

    def on_key(self, event: events.Key) -> None:
        """Escape then a key, typed within the terminal's escape delay (100 ms), arrives as one alt+key: the
        Escape that closed a dialog would swallow the next key. Unless alt+key is bound, it is both keys."""
        if not event.key.startswith("alt+") or not event.character or not event.character.isprintable():
            return
        if any(b.binding.key == event.key for b in self.screen.active_bindings.values()):
            return
        event.stop()
        self.simulate_key("escape")
        self.simulate_key(event.character)

    async def on_unmount(self) -> None:
        await self.feed.stop()
        self.write_events()
        self.session.event_file.close()
        for session in [*self._earlier, self.session]:
            if session.owns_client:
                await session.client.aclose()

    async def _fund_from_faucet(self) -> None:
        """An exchange with a faucet (``xtui sim`` says so in ``X-Xtui-Faucet``) funds the key's own account by the
        faucet request (once: an address it funded before gets nothing more) before the feed first looks at the
        account, so the order form shows the funds, not "available 0.00". The first answer of the feed's market
        load says whether there is a faucet; an exchange without one is asked nothing."""
        client, account = self.client, self.session.account
        await client.heard()
        if client.faucet is None or account is None:
            return
        try:
            await client.request_funds(account, once=True)
        except ClientError as exc:
            self.notify(f"Could not fund the account from the exchange's faucet: {exc}", severity="error", markup=False)

    def _network_mismatch(self, warning: str) -> None:
        """The exchange plays another network than xtui signs for: every order would go to another account."""
        log.error("network mismatch: %s", warning)
        self.notify(warning, title="WRONG NETWORK", severity="error", timeout=60, markup=False)

    # ---- routing ------------------------------------------------------------------------------------

    def feed_changed(self, topics: frozenset[str]) -> None:
        """The session's feed changed (``Listener``): the panes hear of it on the UI's loop."""
        self.post_message(FeedChanged(topics))

    def on_feed_changed(self, message: FeedChanged) -> None:
        self._watch.changed(message.topics)
        self.news.publish(message.topics)  # the dashboard, a layout, the ladder, the heatmap (the data screens poll)
        if "markets" in message.topics and self.alerts.alerts:
            self._check_alerts()

    def notify(
        self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None,
        markup: bool = True,
    ) -> None:  # fmt: skip
        """Every notice, its text made printable first (it may quote the exchange, a file or a recording), shown at
        once: not behind the frames the app's queue holds (an order's acknowledgement waited ~13 ms there)."""
        shown = Notification(
            printable(message, lines=True), printable(title), severity,
            self.NOTIFICATION_TIMEOUT if timeout is None else timeout, markup=markup,
        )  # fmt: skip
        if show_now(self, shown, self.on_notify):
            self.post_message(NoticeShown(shown))
        else:
            self.post_message(Notify(shown))

    def on_notify(self, event: Notify) -> None:
        screen = self.screen
        if isinstance(screen, DataScreen) and screen.NOTICES_IN_LINE and screen.is_mounted:
            event.prevent_default()  # in the screen's own line, not a toast over its table
            screen.query_one(NoticeLine).add(event.notification)
            return
        keep_at_most(self, event, MAX_TOASTS if self.size.height >= TWO_TOASTS_FROM else 1)

    def on_watch_toggled(self, message: WatchToggled) -> None:
        """* on the markets pane: the selected market goes on the watchlist, or off it."""
        symbol, watchlist = message.symbol, self.watchlist
        try:
            added = watchlist.add(symbol) if symbol not in watchlist else not watchlist.remove(symbol)
        except (OSError, ValueError) as exc:
            self.notify(f"Watchlist not saved: {exc}", severity="error", markup=False)
            return
        self.notify(f"{symbol} {'added to' if added else 'taken off'} the watchlist (w shows it)", timeout=3)

    def twap_changed(self, twap: Twap, what: str) -> None:
        """A TWAP of this session, or of one it replaced, moved on (``Listener``)."""
        stopped = twap.state == "stopped"
        log.log(logging.WARNING if stopped else logging.INFO, "twap %s: %s", twap.id, what)
        self.log_event("twap", f"TWAP {twap.id}: {what}")
        self.notify(what, title=f"TWAP {twap.id}", severity="error" if stopped else "information", markup=False)
        from tui.ui.screens.twap import TwapScreen  # loaded by now: a TWAP starts from its screen

        if isinstance(self.screen, TwapScreen):
            self.screen.show()

    def trail_changed(self, trail: Trail, what: str) -> None:
        """A trailing stop of this session, or of one it replaced, moved or ended (``Listener``)."""
        loud = trail.state in ("stopped", "ended") or trail.waiting
        log.log(logging.WARNING if loud else logging.INFO, "trail %s: %s", trail.id, what)
        title = f"Trailing stop {trail.id}"
        self.log_event("trail", f"{title}: {what}")
        if trail.state == "stopped":
            self.notify(what, title=title, severity="error", markup=False)
        else:  # a move is news for a moment: the open orders keep showing where the stop is
            timeout = 3 if what.startswith("moved") else 8
            self.notify(what, title=title, severity="warning" if loud else "information", timeout=timeout, markup=False)
        self.main.feed_changed(frozenset({"orders"}))  # its row in the open orders says the new peak

    def tool_changed(self, title: str, ended_badly: bool, what: str) -> None:
        """A chase or OCO of this session, or of one it replaced, moved on (``Listener``)."""
        log.log(logging.WARNING if ended_badly else logging.INFO, "%s: %s", title.lower(), what)
        self.log_event(title.split()[0].lower(), f"{title}: {what}")
        if not what.startswith(MOVED):  # a reprice: the screen and the open orders show it, a notice each would flood
            self.notify(what, title=title, severity="error" if ended_badly else "information", markup=False)
        from tui.ui.screens.chase import ChaseScreen  # loaded by now: a chase starts from its screen

        if isinstance(self.screen, ChaseScreen):
            self.screen.show()

    def _check_alerts(self) -> None:
        """Tell each alert the latest prices: a notice (and the bell, if the alert rings) for each that fires."""
        prices = {}
        for symbol, t in self.feed.state.market.tickers.items():
            prices[(symbol, "last")], prices[(symbol, "mark")] = t.last_price, t.mark_price
            prices[(symbol, "index")] = t.index_price
        fired = self.alerts.check(prices, self.session.wall_clock())  # the file's troubles come after: see not_saved
        for f in fired:
            log.info("alert %s fired: %s", f.alert.id, f.text())
            self.log_event("alert", f"Alert {f.alert.id}: {f.text()}")
            self.notify(f.text(), title=f"Alert {f.alert.id}", severity="warning", timeout=20, markup=False)
        if any(f.alert.bell for f in fired):
            self.bell()
        if fired and self.alerts.not_saved:  # disarmed here all the same: it fired, and it was seen
            log.error("alerts not saved: %s", self.alerts.not_saved)
            said = f"Alerts could not be saved ({self.alerts.not_saved}): the file still has them armed for a restart"
            self.notify(said, title="Alerts", severity="error", timeout=20, markup=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_worker_error(self, event)

    # ---- actions ------------------------------------------------------------------------------------

    def action_help(self) -> None:
        """The help screen, made once and kept (installed) while the keys stay as they are: opening it again
        only shows it."""
        if isinstance(self.screen, HelpScreen):
            return
        rows = key_catalogue(self, self.BINDINGS, self.keymap)
        if self._help_rows != rows:
            if self.is_screen_installed("help"):
                self.uninstall_screen("help")
            self.install_screen(HelpScreen(rows), name="help")
            self._help_rows = rows
        self.push_screen("help")

    def action_diagnostics(self) -> None:
        """Open or close the diagnostics overlay over the dashboard."""
        shown = self.main.query(DiagnosticsOverlay)
        if shown:
            shown.remove()
        elif self.diagnostics is not None:
            self.main.mount(DiagnosticsOverlay(self.diagnostics, self.feed.state, clock=self.session.clock))

    def action_open_screen(self, name: str) -> None:
        open_screen(self, name, self.context)

    def action_next_layout(self) -> None:
        next_layout(self)

    def action_switch_account(self) -> None:
        """``@``: trade as another of the config's profiles, without a restart (``tui.ui.switch``)."""
        if self.accounts is None:
            self.notify("No other accounts: this dashboard was started without the config's profiles", timeout=5)
            return
        if any(w.group == "switch" and not w.is_finished for w in self.workers):
            return  # a switch is under way (its dialogs hold the keys; this guards any other way in)
        from tui.ui.switch import switch_account

        self.run_worker(switch_account(self, self.accounts), group="switch", exit_on_error=False)

    def action_next_theme(self) -> None:
        names = self._themes
        i = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(i + 1) % len(names)]
        self.notify(f"Theme {self.theme}", timeout=2)

    async def action_quit(self) -> None:
        """Textual's quit (``ctrl+q``, the palette's Quit) asks as ``q`` does while an order is in flight."""
        self.action_quit_app()

    def sessions(self) -> list[Session]:
        """The session shown, after those it replaced while a client-side tool of theirs still ran."""
        return [*self._earlier, self.session]

    def action_quit_app(self) -> None:
        question = quit_question(self.sessions(), self.main.desk.in_flight)
        if question is None:
            self.run_worker(self._stop_and_exit(), exit_on_error=False)
            return

        def answered(yes: bool | str | None) -> None:
            if yes is True:
                self.run_worker(self._stop_and_exit(), exit_on_error=False)

        self.push_screen(ConfirmScreen(*question), answered)

    async def stop_tools(self) -> None:
        """End every order tool of this session and of those it replaced (entry orders withdrawn, protective ones
        left, each saying so); what stays on the exchange is kept in ``left_resting``."""
        sessions = self.sessions()
        self.left_resting = resting_now(sessions)  # what is said should the stop be cut short (a signal's time limit)
        self.left_resting = await stop_tools(sessions)

    async def _stop_and_exit(self) -> None:
        await self.stop_tools()
        await self.feed.stop()
        self.exit()

    def exit(self, result: None = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        """Exit, first telling ``on_exit``: the built-in exchange starts its own stop beside Textual's teardown,
        not after it."""
        hooks, self.on_exit = self.on_exit, []
        for hook in hooks:
            hook()
        super().exit(result, return_code, message)


def make_app(
    client: Client,
    ws_url: str,
    signer: Signer | None,
    **parts: Unpack[SessionParts],
) -> XtuiApp:
    """The dashboard on a new session (``open_session``: ``client``/``ws_url``, ``signer`` or None for watch-only,
    and ``parts``), with every theme to choose from."""
    return XtuiApp(open_session(client, ws_url, signer, **parts), themes=xtui_themes())
