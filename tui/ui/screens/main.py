"""The dashboard: markets, chart, order book, trade tape, positions, open orders and fills, account and status.

The screen routes the feed's change notices to the panes and draws the dirty ones at once, as far as the
terminal's byte budget allows (``BytePacer``); a 10-a-second tick paces the overview panes. Its bindings
are the trading and view keys; the trading ones go through ``OrderDesk`` so that nothing here awaits the
network. What happens to the account (fills, triggers, orders the exchange ends, liquidations, funding) is
announced as notices, with the bell the config asks for.
"""

from __future__ import annotations

import logging
from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Container
from textual.css.query import NoMatches
from textual.geometry import Size
from textual.widgets import TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from tui.config.launch import DashboardOptions
from tui.feed.events import notices
from tui.ui.diagnostics import FrameMeter, TerminalBytes
from tui.ui.messages import InstrumentChosen, PricePicked
from tui.ui.render.screens import LeanScreen
from tui.ui.widgets.account_bar import AccountBar, one_summary
from tui.ui.widgets.armed_banner import ArmedBanner
from tui.ui.widgets.book import OrderBookPane
from tui.ui.widgets.chart import ChartPane, chart_type_label, next_chart_type, next_resolution, resolution_label
from tui.ui.widgets.fills import FillsPane
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.funding import FundingLine, HeaderRow
from tui.ui.widgets.markets import MarketsPane
from tui.ui.widgets.orders import OpenOrdersPane
from tui.ui.widgets.pane import FeedLine, FeedPane
from tui.ui.widgets.positions import PositionsPane
from tui.ui.widgets.status_bar import STALE_AFTER_S, StatusBar, drift_warning
from tui.ui.widgets.tape import TradeTapePane
from tui.ui.worker_errors import report_worker_error

from .context import LOW_BANDWIDTH_REFRESH_S, REFRESH_S, TICK_S, DashboardContext
from .guard_post import GuardPost
from .main_chart import ChartIndicatorActions
from .main_keys import MAIN_BINDINGS, TRADING_ACTIONS, locked_key_words
from .main_layout import MAIN_CSS
from .main_pacing import NewsPacing

__all__ = ["LOW_BANDWIDTH_REFRESH_S", "REFRESH_S", "MainScreen"]

log = logging.getLogger(__name__)

LOW_BANDWIDTH_STRETCH = 2.0  # on a slow link the panes paced in seconds (account, positions) redraw half as often
TABS = {"orders": "tab-orders", "fills": "tab-fills"}  # the panes that share the bottom cell, by tab
ANNOUNCE_TICKS = 2  # refresh ticks from an event to its notice: the pushes that came with it are in by then


class MainScreen(ChartIndicatorActions, LeanScreen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012 (Textual declares them so)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (34, "-tall")]  # noqa: RUF012

    BINDINGS: ClassVar[list[BindingType]] = MAIN_BINDINGS
    # Focus starts on the markets list, and comes back to it whenever the screen has none. Textual's default,
    # the first focusable widget, is the market filter, hidden until `/`: it took the focus first, and giving
    # it to the list restyled both at start-up.
    AUTO_FOCUS = "#markets-table"
    RESTYLE_ON_FIRST_RESUME = False  # styled as it mounted: Textual styling every widget again took ~25 ms
    BLANK = True  # the rows and bars cover it: drawn blank each frame, not its 48 lines kept with their cuts

    DEFAULT_CSS = MAIN_CSS

    def __init__(self, context: DashboardContext) -> None:
        super().__init__(id="main", classes="-show-book")  # which of the panes that share a place is shown
        session = context.session
        self.context = context
        self.feed = session.feed
        self._session = session
        self._low_bandwidth = context.low_bandwidth
        self._refresh_s = context.refresh_s  # how often panes redraw
        self._clock = session.clock
        self._wall_clock = session.wall_clock
        self._drift_told = False
        self._panes: list[FeedPane | FeedLine] | None = None
        self.pacing: NewsPacing | None = None  # the terminal's byte budget (made on mount, when the app is known)
        self._announce_in = 0  # refresh ticks until the account's new events are announced (0: none due)
        self._events_shown = 0  # how many of the feed's account events have been announced
        self._tab_labels: dict[str, str] = {}  # pane id -> the label its tab shows
        self.frames = FrameMeter()  # a refresh tick to the frame showing it (the diagnostics overlay)
        self.funding = context.funding  # how the markets pane and the header write funding rates (F cycles)
        # the book over time for the heatmap: a column every tick (every 5th on a slow link); tests stop it
        self.depth_history = context.depth_history
        self.sampling = True
        self._heat_s = context.heat_s
        self._heat_ticks = 0
        self.desk = context.orders
        self.guards = GuardPost(self, context.desk)  # armed mode, liquidation warnings, the day's PnL baseline

    def take_breakpoints(self, size: Size) -> None:
        """Take the breakpoint classes of ``size`` now, as Textual does on the first resize: then they are
        already styled once, and that resize finds nothing to change instead of styling every widget again."""
        for length, points in ((size.width, self.HORIZONTAL_BREAKPOINTS), (size.height, self.VERTICAL_BREAKPOINTS)):
            chosen = max((point for point in points if length >= point[0]), default=None)
            for point in points:
                self.set_class(point == chosen, point[1], update=False)

    def compose(self) -> ComposeResult:
        state = self.feed.state
        header = self.context.header("header")
        now_s = lambda: self._wall_clock() + (state.status.clock_drift_ms or 0) / 1000  # noqa: E731 (the exchange's)
        yield ArmedBanner(id="armed")
        yield HeaderRow(header, FundingLine(state, view=self.funding, now_s=now_s, id="funding"))
        # grid cells fill in this order; the breakpoint classes move and hide them (see DEFAULT_CSS)
        with Container(id="grid"):
            yield MarketsPane(state, funding=self.funding, id="markets")
            yield OrderBookPane(state, id="book")
            yield TradeTapePane(state, id="tape")
            yield ChartPane(state, id="chart")
            yield PositionsPane(state, uncovered=self._session.uncovered, id="positions")
            with TabbedContent(id="orders-tabs"):
                with TabPane("Open orders", id=TABS["orders"]):
                    trails = self._session.trails
                    labels = trails.labels if trails is not None else None  # a trailing stop's type, its peak
                    owned = self._session.owned_cloids  # the others of the tools' schemes run no more
                    yield OpenOrdersPane(state, now_s=self._wall_clock, labels=labels, owned=owned, id="orders")
                with TabPane("Fills", id=TABS["fills"]):
                    yield FillsPane(state, id="fills")
        yield AccountBar(state, id="account")
        yield StatusBar(state, clock=self._clock, latency=self.context.desk.latency, id="status")
        yield Footer()

    def on_mount(self) -> None:
        self._panes = self.live_panes()
        for pane in self._panes:
            pane.set_tick(self._refresh_s, LOW_BANDWIDTH_STRETCH if self._low_bandwidth else 1.0)
        counter = getattr(self.app, "terminal_bytes", None)  # counted by the output driver; none while headless
        bytes_out = counter if isinstance(counter, TerminalBytes) else TerminalBytes()
        self.pacing = NewsPacing(
            self.flush_panes, self.live_panes, self.set_timer, bytes_out, self._clock, self._low_bandwidth
        )
        self.set_interval(self._refresh_s, self.pacing.tick)
        self.query_one(OrderBookPane).bars = not self._low_bandwidth
        self.set_interval(TICK_S, self._tick)
        self.context.follow(self, self.feed_changed)
        self._catch_up()
        self.flush_panes()
        self.run_worker(self.guards.seed_day(), name="day PnL", group="guards", exit_on_error=False)

    # ---- the feed ---------------------------------------------------------------------------------

    def live_panes(self) -> list[FeedPane | FeedLine]:
        """The panes and lines the feed drives: composed once, so looked up once (a query walks the DOM)."""
        if self._panes is not None:
            return self._panes
        return [*self.query(FeedPane), *self.query(FeedLine)]

    def on_unmount(self) -> None:
        self.context.leave(self)

    def _catch_up(self) -> None:
        """What the feed said before the screen followed it (from its mount): the account's events are announced,
        a clock's drift told, as they would have been."""
        if self.feed.state.account.events.count > self._events_shown and not self._announce_in:
            self._announce_in = ANNOUNCE_TICKS
        if not self._drift_told:
            self._tell_drift()

    def feed_changed(self, topics: frozenset[str]) -> None:
        """The feed's news (the app's signal; the desk's and the app's own entries in the one state too)."""
        for pane in self.live_panes():
            pane.feed_changed(topics)
        # news is drawn at once, as long as the byte budget and the link allow (tui.ui.render.pacing), else as
        # soon as they do, with whatever came meanwhile; the account's own at once (``NewsPacing.urgent``). News
        # that comes while the screen still mounts (the feed's first picture, often) is drawn by its on_mount.
        if self._panes is not None:
            self.pacing.news(topics) if self.pacing is not None else self.flush_panes(tick=False)
        if "events" in topics and not self._announce_in:
            self._announce_in = ANNOUNCE_TICKS
        if "status" in topics:
            self._dim_stale()
            if not self._drift_told:
                self._tell_drift()

    def _tell_drift(self) -> None:
        """Once a session: a clock off by more than a second. xtui signs on the exchange's clock as it measures
        it, but until it has measured it (and for every other program on this machine) the clock is wrong."""
        warning = drift_warning(self.feed.state.status.clock_drift_ms)
        if warning is None:
            return
        self._drift_told = True
        self.notify(
            f"{warning.capitalize()}. xtui signs nonces and expiresAfter on the exchange's clock as it measures "
            "it, but an order sent before that may be rejected: sync the system clock (NTP).",
            title="Clock drift",
            severity="warning",
            timeout=20,
            markup=False,
        )

    def flush_panes(self, tick: bool = True, topics: frozenset[str] | None = None) -> None:
        """Let the live panes draw what changed (``topics``: only those that follow one of them)."""
        panes = self.live_panes() if topics is None else [p for p in self.live_panes() if p.TOPICS & topics]
        if any(pane.dirty and pane.display for pane in panes):  # a frame follows: timed until drawn
            self.call_after_refresh(self.frames.end, self.frames.begin())
        for pane in panes:
            pane.flush(tick)
        one_summary(*(p for p in self.live_panes() if isinstance(p, AccountBar | PositionsPane)))  # once mounted
        self._label_tabs()
        if tick and self._announce_in:
            self._announce_in -= 1
            if not self._announce_in:
                self._announce()

    def _label_tabs(self) -> None:
        """The tabs of the open orders and the fills, with how many each holds (their panes' titles, hidden)."""
        account = self.feed.state.account
        for pane, name, count in (("orders", "Open orders", account.open_orders), ("fills", "Fills", account.fills)):
            label = f"{name} ({len(count)})" if count else name
            if self._tab_labels.get(pane) != label:
                try:
                    tab = self.query_one("#orders-tabs", TabbedContent).get_tab(TABS[pane])
                except NoMatches:  # its tabs are not mounted (yet, or any more): labelled on a later flush
                    continue
                tab.label = label
                self._tab_labels[pane] = label

    def _announce(self) -> None:
        """A notice for what happened to the account since the last one (events that came together share
        one), and the bell when one of them is of a kind the config rings it for."""
        account = self.feed.state.account
        fresh = account.events.since(self._events_shown)
        self._events_shown = account.events.count
        told = notices(fresh, account.order_status)
        for notice in told:
            self.notify(notice.text, title=notice.title, severity=notice.severity, timeout=notice.timeout, markup=False)
        options = getattr(self.app, "options", None)  # the app's DashboardOptions, as the profile set them
        bell = options.bell if isinstance(options, DashboardOptions) else DashboardOptions().bell
        if any(notice.kinds & bell for notice in told):
            self.app.bell()

    def _tick(self) -> None:
        self._heat_ticks += 1
        if self.sampling and self._heat_ticks * TICK_S >= self._heat_s:
            self._heat_ticks = 0
            self.depth_history.sample(self.feed.state.market, self._clock())
        self.query_one(StatusBar).dirty = True
        self.query_one(OpenOrdersPane).dirty = True
        if self.guards.check_liquidations() and not self._announce_in:
            self._announce_in = ANNOUNCE_TICKS  # announced (with the bell) as the account's other events are
        self._dim_stale()

    def _dim_stale(self) -> None:
        """While the connection is down, dim the panes whose data is older than ``STALE_AFTER_S``."""
        status = self.feed.state.status
        down = status.connection != "live"
        now = self._clock()
        for pane in self.live_panes():
            if pane.AGE_TOPIC is not None:
                at = status.updated.get(pane.AGE_TOPIC)
                pane.set_class(down and at is not None and now - at > STALE_AFTER_S, "-stale")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self._own_cancels(event)
        report_worker_error(self, event)  # the screen's workers: orders, cancels, the feed's moves

    def _own_cancels(self, event: Worker.StateChanged) -> None:
        """While the desk cancels (any submission but an order), the orders the exchange says are cancelled
        are the trader's doing, which the desk reports: they are not announced again as the exchange's."""
        if event.worker.group != "submit" or event.worker.name == "Order":
            return
        if event.state is WorkerState.RUNNING:
            self.feed.state.account.events.own_cancel(True, self._clock())
        elif event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            self.feed.state.account.events.own_cancel(False, self._clock())

    @on(InstrumentChosen)
    def _instrument_chosen(self, event: InstrumentChosen) -> None:
        event.stop()
        self.select(event.symbol)

    def select(self, symbol: str) -> None:
        """Show ``symbol`` in the book, tape and chart (the feed moves its subscriptions in a worker)."""
        self.desk.picked = None
        self.query_one(MarketsPane).redraw_soon()  # its selected row, at once whatever its pace
        self.run_worker(self.feed.select(symbol), group="select", exclusive=True, exit_on_error=False)

    @on(PricePicked)
    def _price_picked(self, event: PricePicked) -> None:
        event.stop()
        self.desk.picked = event.price

    # ---- actions ------------------------------------------------------------------------------------

    TRADING_ACTIONS: ClassVar[frozenset[str]] = TRADING_ACTIONS

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Trading keys are not offered when nothing can be sent: watch-only (no key) or read-only; the pane
        cycle only where panes share a place."""
        if action == "cycle_panes":
            return bool(self._shared_panes())
        return not (action in self.TRADING_ACTIONS and not self.context.can_trade)

    def on_key(self, event: events.Key) -> None:
        """A trading key pressed when nothing can be sent says why, instead of nothing (it is not offered)."""
        bindings = self.bound_to(event.key)
        read_only, watch_only = self._session.read_only, self._session.signer is None
        words = locked_key_words(bindings, self.TRADING_ACTIONS, read_only=read_only, watch_only=watch_only)
        if words:
            event.stop()
            event.prevent_default()
            self.notify(words, severity="warning")

    def _shared_panes(self) -> tuple[str, ...]:
        """The panes that take turns in one place at this size: book, tape and chart when short, book and
        tape when narrow, none at full size."""
        if self.has_class("-short"):
            return ("book", "tape", "chart")
        if self.has_class("-narrow"):
            return ("book", "tape")
        return ()

    def action_cycle_panes(self) -> None:
        shared = self._shared_panes()
        if not shared:
            return
        shown = next((p for p in shared if self.has_class(f"-show-{p}")), shared[0])
        following = shared[(shared.index(shown) + 1) % len(shared)]
        for name in ("book", "tape", "chart"):
            self.set_class(name == following, f"-show-{name}")
        self.query_one(f"#{following}", FeedPane).dirty = True  # it did not redraw while hidden
        self.call_after_refresh(self.flush_panes)
        names = {"book": "order book", "tape": "trades", "chart": "chart"}
        self.notify(f"Showing the {names[following]} (v: the next)", timeout=2)

    def on_resize(self, _event: object) -> None:
        self.call_after_refresh(self.refresh_bindings)  # the pane cycle key comes and goes with the size

    def action_open_ladder(self) -> None:
        from .ladder import LadderScreen  # not on the first frame

        if self.app.screen is self:
            self.app.push_screen(LadderScreen(self.context, refresh_s=self._refresh_s))

    def action_open_heatmap(self) -> None:
        from .heatmap import HeatmapScreen  # not on the first frame

        if self.app.screen is self:
            self.app.push_screen(HeatmapScreen(self.context, refresh_s=self._heat_s))

    def action_buy(self) -> None:
        self.desk.open_form("buy")

    def action_sell(self) -> None:
        self.desk.open_form("sell")

    def action_cancel_order(self) -> None:
        self.desk.on_row(self.query_one(OpenOrdersPane), self.desk.cancel_order)

    def action_amend_order(self) -> None:
        self.desk.on_row(self.query_one(OpenOrdersPane), self.desk.amend_order)

    def action_bracket(self) -> None:
        self.desk.bracket()

    def action_attach_exits(self) -> None:
        self.desk.attach_exits(self.query_one(PositionsPane).selected())

    def action_trail(self) -> None:
        self.desk.trail(self.query_one(PositionsPane).selected())

    def action_scale(self) -> None:
        self.desk.scale()

    def action_cancel_group(self) -> None:
        self.desk.on_row(self.query_one(OpenOrdersPane), self.desk.cancel_group)

    def action_cancel_instrument(self) -> None:
        self.desk.cancel_instrument()

    def action_cancel_everything(self) -> None:
        self.desk.cancel_everything()

    def action_cancel_cloid(self) -> None:
        self.desk.cancel_by_cloid()

    def action_close_position(self) -> None:
        self.desk.close_position(self.query_one(PositionsPane).selected())

    def action_reverse_position(self) -> None:
        self.desk.reverse_position(self.query_one(PositionsPane).selected())

    def action_panic(self) -> None:
        self.desk.panic()

    def action_toggle_armed(self) -> None:
        self.guards.toggle_armed()

    def action_filter_markets(self) -> None:
        self.query_one(MarketsPane).start_filter()

    def action_funding_view(self) -> None:
        self.funding.cycle()
        self.query_one(MarketsPane).dirty = self.query_one(FundingLine).dirty = True
        self.notify(f"Funding rates {self.funding.name}", timeout=2)

    def action_cycle_grouping(self) -> None:
        group = self.query_one(OrderBookPane).cycle_grouping()
        self.notify(f"Book grouped by {group}x the tick", timeout=2)

    def action_resolution(self, step: int) -> None:
        market = self.feed.state.market
        resolution = next_resolution(market.resolution, step)
        self._set_chart(market.chart_type, resolution)
        self.notify(f"Chart {resolution_label(resolution)}", timeout=2)

    def action_chart_type(self) -> None:
        market = self.feed.state.market
        chart_type = next_chart_type(market.chart_type)
        self._set_chart(chart_type, market.resolution)
        self.notify(f"Chart of the {chart_type_label(chart_type)} price", timeout=2)

    def action_chart_zoom(self, step: int) -> None:
        self.notify(self.query_one(ChartPane).zoom(step), timeout=2)

    def _set_chart(self, chart_type: str, resolution: str) -> None:
        self.run_worker(self.feed.set_chart(chart_type, resolution), group="chart", exclusive=True, exit_on_error=False)

    def action_refresh_account(self) -> None:
        self.run_worker(self.feed.refresh_account(), group="refresh", exclusive=True, exit_on_error=False)

    def action_zoom_pane(self) -> None:
        """The pane with the focus (else the chart) fills the screen; again, or Escape, puts it back."""
        if self.maximized is not None:
            self.minimize()
            return
        around = self.focused.ancestors_with_self if self.focused is not None else []
        target = next((w for w in around if isinstance(w, FeedPane)), self.query_one(ChartPane))
        if target.display and self.maximize(target, container=False):
            target.dirty = True
            self.call_after_refresh(self.flush_panes)

    def action_focus_pane(self, pane: str) -> None:
        table = self.query_one(OrderBookPane).view if pane == "book" else self.query_one(f"#{pane}-table")
        if pane in TABS:  # the open orders and the fills share a cell: show the pane's tab, then focus it
            self.query_one("#orders-tabs", TabbedContent).active = TABS[pane]
            self.call_after_refresh(table.focus)
        elif table.display and table.parent is not None and table.parent.display:
            table.focus()
