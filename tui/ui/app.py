"""XtuiApp: the shell. It owns the feed worker, the themes, the keymap and the palette; screens do the rest.

``make_app`` is the one way to build it, for the command line, the screenshots and the tests alike.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from rich.console import RenderableType
from textual import events
from textual.app import App
from textual.binding import BindingType
from textual.screen import Screen
from textual.theme import BUILTIN_THEMES
from textual.worker import Worker

from tui.api.client import Client
from tui.api.errors import ClientError
from tui.api.signing import Signer
from tui.config.launch import DashboardOptions
from tui.feed.alerts import AlertBook, alerts_path
from tui.feed.watchlist import Watchlist, watchlist_path
from tui.feed.worker import Feed
from tui.paths import data_dir
from tui.trading import ConfirmPolicy
from tui.trading.context import order_context
from tui.trading.twap import Twap, TwapRunner
from tui.ui.bindings import APP_BINDINGS, key_catalogue
from tui.ui.commands import XtuiCommands
from tui.ui.diagnostics import Diagnostics, Probes, TerminalBytes
from tui.ui.messages import FeedChanged, WatchToggled
from tui.ui.render.crash_guard import guard_app
from tui.ui.render.lean_app import LeanApp
from tui.ui.screens.catalogue import open_screen, screen_classes
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.data_screen import ScreenContext
from tui.ui.screens.help import HelpScreen
from tui.ui.screens.main import MainScreen
from tui.ui.themes import DEFAULT_THEME, SEMANTIC_DEFAULTS, xtui_themes
from tui.ui.widgets.diagnostics_overlay import DiagnosticsOverlay
from tui.ui.worker_errors import report_worker_error

__all__ = ["XtuiApp", "known_themes", "make_app"]

log = logging.getLogger("tui.ui")
WARM_UP_AFTER_S = 1.0  # this long after start-up, the data screens are imported (on the UI's loop)


def known_themes() -> list[str]:
    """Every theme name a profile or ``--theme`` may use: xtui's own and Textual's built-in ones."""
    return [t.name for t in xtui_themes()] + list(BUILTIN_THEMES)


class XtuiApp(LeanApp[None]):
    TITLE = "xtui"
    COMMANDS: ClassVar[set[Any]] = App.COMMANDS | {XtuiCommands}

    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS

    def __init__(
        self,
        *,
        client: Client,
        ws_url: str,
        account: str | None,
        signer: Signer | None,
        profile: str,
        mainnet: bool,
        demo_key: bool,
        options: DashboardOptions,
        clock: Callable[[], float],
        wall_clock: Callable[[], float],
        fund: bool,
        close_client: bool,
        feed_options: Mapping[str, Any],
    ) -> None:
        super().__init__()
        guard_app(self)  # an unexpected exception is shown and logged; it never ends the dashboard
        self.client = client
        client.on_network_mismatch = self._network_mismatch
        self._close_client = close_client
        self._wall_clock = wall_clock
        self.alerts = AlertBook.load(alerts_path(data_dir(), profile))  # checked on every ticker update
        self.watchlist = Watchlist.load(watchlist_path(data_dir(), profile))
        self.twaps: TwapRunner | None = None  # with a key to trade with (see on_mount)
        self._help_rows: list[Any] | None = None  # what the installed help screen lists
        self._account = account
        self._signer = signer
        self.options = options
        self.keymap = dict(options.keymap)
        self.feed = Feed(
            client,
            ws_url,
            account=account,
            symbol=options.symbol,
            on_change=self._feed_changed,
            clock=clock,
            wall_clock=wall_clock,
            **feed_options,
        )
        self._fund = fund
        self.on_exit: list[Callable[[], None]] = []  # called as the app begins to exit, before Textual's teardown
        themes = xtui_themes()
        self._themes = [t.name for t in themes]
        for theme in themes:
            self.register_theme(theme)
        self.theme = options.theme if options.theme in self.available_themes else DEFAULT_THEME
        self.context = ScreenContext(
            client=client,
            feed=self.feed,
            account=account,
            signer=signer,
            read_only=options.read_only,
            poll_s=self.feed.poll_s,
            now_ms=lambda: int(wall_clock() * 1000),
            profile=profile,
        )
        self.main = MainScreen(
            feed=self.feed,
            client=client,
            profile=profile,
            mainnet=mainnet,
            signer=signer.address if signer else None,
            demo_key=demo_key,
            read_only=options.read_only,
            low_bandwidth=options.low_bandwidth,
            policy=ConfirmPolicy(options.confirm_notional, options.confirm_through_pct, options.slippage_pct),
            clock=clock,
            wall_clock=wall_clock,
        )
        self._clock = clock
        self.terminal_bytes = TerminalBytes()  # the output driver counts what it writes here
        status = self.feed.state.status
        self.probes = Probes(  # what the diagnostics overlay reads (tests pin them before the app runs)
            messages=lambda: status.messages,
            rate=client.governor.status,
            frames=self.main.frames.take,
            written=self.terminal_bytes.read,
        )
        self.diagnostics: Diagnostics | None = None  # made on mount: its first rates count from there

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
        if self._signer is not None and self._account is not None and not self.options.read_only:
            slippage = self.options.slippage_pct
            self.twaps = TwapRunner(
                self.client, self._account, lambda s: order_context(self.feed.state, s, slippage), self._twap_changed
            )
        if self.alerts.problem:
            self.notify(self.alerts.problem, title="Alerts", severity="error", timeout=30, markup=False)
        if self.watchlist.problem:
            self.notify(self.watchlist.problem, title="Watchlist", severity="error", timeout=30, markup=False)
        if self.client.network_mismatch:  # the exchange said so before the app started
            self._network_mismatch(self.client.network_mismatch)
        if self._fund:
            self.feed.account_opens_with(self._open_demo_account())
        self.run_worker(self.feed.run(), name="feed", group="feed", exit_on_error=False)
        # The data screens are left out of start-up (``screen_classes``); a second after it they are imported
        # here, on the UI's loop (~90 ms, once), so that the first ? or A does not wait for them. Not in a
        # thread: the collector would then run there too, and a finalizer that schedules on this loop from
        # another thread leaves it asleep (seen as tests hanging in epoll).
        self.set_timer(WARM_UP_AFTER_S, screen_classes)

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
        if self._close_client:
            await self.client.aclose()

    async def _open_demo_account(self) -> None:
        """The local exchange funds an account on its first signed action: a harmless one is sent. The feed
        loads the market meanwhile and looks at the account once this is answered: one round of account queries
        at start-up, which sees the funds (the faucet's own refresh, beside the feed's, made two)."""
        try:
            await self.client.cancel_all()
        except ClientError as exc:
            self.notify(f"Could not open the demo account: {exc}", severity="error", markup=False)

    def _network_mismatch(self, warning: str) -> None:
        """The exchange plays another network than xtui signs for: every order would go to another account."""
        log.error("network mismatch: %s", warning)
        self.notify(warning, title="WRONG NETWORK", severity="error", timeout=60, markup=False)

    # ---- routing ------------------------------------------------------------------------------------

    def _feed_changed(self, topics: frozenset[str]) -> None:
        self.post_message(FeedChanged(topics))

    def on_feed_changed(self, message: FeedChanged) -> None:
        self.main.feed_changed(message)  # the data screens poll for themselves
        if "markets" in message.topics and self.alerts.alerts:
            self._check_alerts()

    def on_watch_toggled(self, message: WatchToggled) -> None:
        """* on the markets pane: the selected market goes on the watchlist, or off it."""
        symbol, watchlist = message.symbol, self.watchlist
        try:
            added = watchlist.add(symbol) if symbol not in watchlist else not watchlist.remove(symbol)
        except (OSError, ValueError) as exc:
            self.notify(f"Watchlist not saved: {exc}", severity="error", markup=False)
            return
        self.notify(f"{symbol} {'added to' if added else 'taken off'} the watchlist (w shows it)", timeout=3)

    def _twap_changed(self, twap: Twap, what: str) -> None:
        stopped = twap.state == "stopped"
        log.log(logging.WARNING if stopped else logging.INFO, "twap %s: %s", twap.id, what)
        self.notify(what, title=f"TWAP {twap.id}", severity="error" if stopped else "information", markup=False)
        from tui.ui.screens.twap import TwapScreen  # loaded by now: a TWAP starts from its screen

        if isinstance(self.screen, TwapScreen):
            self.screen.show()

    def _check_alerts(self) -> None:
        """Tell each alert the latest prices: a notice (and the bell, if the alert rings) for each that fires."""
        prices = {}
        for symbol, t in self.feed.state.market.tickers.items():
            prices[(symbol, "last")], prices[(symbol, "mark")] = t.last_price, t.mark_price
            prices[(symbol, "index")] = t.index_price
        fired = self.alerts.check(prices, self._wall_clock())  # the file's troubles come after: see not_saved
        for f in fired:
            log.info("alert %s fired: %s", f.alert.id, f.text())
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
            self.main.mount(DiagnosticsOverlay(self.diagnostics, self.feed.state, clock=self._clock))

    def action_open_screen(self, name: str) -> None:
        open_screen(self, name, self.context)

    def action_next_theme(self) -> None:
        names = self._themes
        i = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(i + 1) % len(names)]
        self.notify(f"Theme {self.theme}", timeout=2)

    async def action_quit(self) -> None:
        """Textual's quit (``ctrl+q``, the palette's Quit) asks as ``q`` does while an order is in flight."""
        self.action_quit_app()

    def action_quit_app(self) -> None:
        running = self.twaps.active if self.twaps is not None else []
        if running:

            def stop_them(yes: bool | None) -> None:
                if yes:
                    self.run_worker(self._stop_and_exit(), exit_on_error=False)

            lines = [f"TWAP {t.id}: {t.progress()}" for t in running]
            lines.append("Quitting cancels them; the slices already sent stay as they are.")
            self.push_screen(ConfirmScreen(f"Quit with {len(running)} TWAP(s) running?", lines), stop_them)
            return
        if self.main.desk.in_flight:

            def answered(yes: bool | None) -> None:
                if yes:
                    self.run_worker(self._stop_and_exit(), exit_on_error=False)

            lines = [f"{self.main.desk.in_flight} submission(s) in flight: their outcome will not be shown."]
            self.push_screen(ConfirmScreen("Quit while an order is being sent?", lines), answered)
            return
        self.run_worker(self._stop_and_exit(), exit_on_error=False)

    async def _stop_and_exit(self) -> None:
        if self.twaps is not None:
            await self.twaps.stop_all()
        await self.feed.stop()
        self.exit()

    def exit(self, result: None = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        """Exit, first telling ``on_exit`` (the built-in exchange starts its own stop, beside Textual's teardown:
        each takes ~0.2 s, and one after the other they made quitting take ~0.45 s)."""
        hooks, self.on_exit = self.on_exit, []
        for hook in hooks:
            hook()
        super().exit(result, return_code, message)


def make_app(
    client: Client,
    ws_url: str,
    signer: Signer | None,
    *,
    account: str | None = None,
    profile: str = "LOCAL",
    mainnet: bool | None = None,
    demo_key: bool = False,
    options: DashboardOptions | None = None,
    clock: Callable[[], float] = time.monotonic,
    wall_clock: Callable[[], float] = time.time,
    fund: bool = False,
    close_client: bool = False,
    feed_options: Mapping[str, Any] | None = None,
) -> XtuiApp:
    """The dashboard on ``client``/``ws_url``. No ``signer``: watch-only. ``account`` defaults to the signer's.

    ``profile`` is the name the header shows; ``mainnet`` (default: the name is MAINNET) draws it in red.

    ``clock`` (monotonic seconds) dates the panes' data; ``wall_clock`` (epoch seconds) is compared with the
    exchange's time. ``fund`` sends one harmless signed action first (the local exchange's faucet).
    ``close_client``: the app closes ``client`` when it ends. ``feed_options`` go to ``Feed`` (``poll_s``...).
    """
    return XtuiApp(
        client=client,
        ws_url=ws_url,
        account=account or (signer.address if signer else None),
        signer=signer,
        profile=profile,
        mainnet=profile == "MAINNET" if mainnet is None else mainnet,
        demo_key=demo_key,
        options=options or DashboardOptions(),
        clock=clock,
        wall_clock=wall_clock,
        fund=fund,
        close_client=close_client,
        feed_options=dict(feed_options or {}),
    )
