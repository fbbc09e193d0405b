"""A saved layout on screen: its panes where and as large as it says, each market pane on its own instrument.

The screen stands over the dashboard and is given its context (whose desk it trades through, with the same guards,
armed mode and checks). Market panes that name an instrument read a ``SideMarket`` of the feed (its book, trades and
chart, held while the screen is open); those that name none follow the dashboard's selected instrument. The order
form acts on the instrument of the focused pane (or of the last market pane focused), and the bar above the grid says
which.

Textual's grid places its children in order, in the next free cell: the panes go in by their top-left cells, row by
row, and a blank fills each cell no pane covers, so every pane lands where the layout puts it. A terminal smaller than
the layout needs shows what it needs instead of squeezed panes.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.widget import Widget
from textual.widgets import Static

from tui.feed.layouts import Layout, PaneSpot
from tui.feed.state import FeedState
from tui.ui.messages import InstrumentChosen, PricePicked
from tui.ui.render.screens import LeanScreen
from tui.ui.widgets.account_bar import AccountBar
from tui.ui.widgets.armed_banner import ArmedBanner
from tui.ui.widgets.book import OrderBookPane
from tui.ui.widgets.chart import ChartPane
from tui.ui.widgets.fills import FillsPane
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.markets import MarketsPane
from tui.ui.widgets.orders import OpenOrdersPane
from tui.ui.widgets.pane import FeedLine, FeedPane
from tui.ui.widgets.positions import PositionsPane
from tui.ui.widgets.status_bar import STALE_AFTER_S, StatusBar
from tui.ui.widgets.tape import TradeTapePane
from tui.ui.widgets.ticker_pane import TickerPane

from .context import DashboardContext
from .main_keys import TRADING_ACTIONS, locked_key_words
from .main_pacing import LOW_BANDWIDTH_STRETCH, NewsPacing, screen_pacing

__all__ = ["CHROME_LINES", "LAYOUT_BINDINGS", "LayoutScreen", "too_small"]

REFRESH_S, LOW_BANDWIDTH_REFRESH_S = 0.1, 0.5  # as the dashboard's panes (--low-bandwidth: the slower)
TICK_S = 1.0
CHROME_LINES = 4  # the header, the layout's bar, the status bar and the footer (armed: one line more, the banner)

LAYOUT_BINDINGS: list[BindingType] = [
    Binding("b", "buy", "Buy", id="buy", tooltip="Order form to buy the focused pane's instrument at its best ask"),
    Binding("s", "sell", "Sell", id="sell", tooltip="Order form to sell the focused pane's instrument at its best bid"),
    Binding("escape", "dashboard", "Dashboard", id="layout_close", tooltip="Back to the dashboard's own layout"),
]


def too_small(layout: Layout, width: int, height: int) -> str | None:
    """What ``layout`` needs when a ``width`` x ``height`` terminal is too small for it; None when it fits."""
    need_w, need_h = layout.min_size()
    need_h += CHROME_LINES
    if width >= need_w and height >= need_h:
        return None
    several = len(layout.instruments) > 1
    what = f"{len(layout.instruments)} markets side by side" if several else "its panes"
    return (
        f"The layout {layout.name!r} needs a terminal of at least {need_w}x{need_h} for {what} "
        f"(columns {' '.join(layout.columns)}, rows {' '.join(layout.rows)}); this one is {width}x{height}.\n\n"
        "Make the terminal larger (or the font smaller), or press Y for the next layout, Escape for the dashboard, "
        "which fits any size (at 80x24 its book, trades and chart take turns: v)."
    )


class LayoutChartPane(ChartPane):
    """A layout's chart: the last price is on its axis (and in the ticker), not also in the border's subtitle.
    A subtitle that changes repaints the whole pane: with a tick of 0.05 (ETH) that was most of a chart's bytes."""

    def show_titles(self, title: str | None = None, subtitle: str | None = None) -> None:
        super().show_titles(title, "" if subtitle is not None and subtitle.startswith("close ") else subtitle)


class LayoutScreen(LeanScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = LAYOUT_BINDINGS

    DEFAULT_CSS = """
    LayoutScreen {
        layout: vertical;
    }
    LayoutScreen #layout-bar {
        height: 1;
        background: $panel;
        color: $foreground-muted;
        padding: 0 1;
    }
    LayoutScreen #layout-grid {
        height: 1fr;
        layout: grid;
    }
    LayoutScreen #layout-grid > FeedPane {
        height: 1fr;
    }
    LayoutScreen #layout-small {
        height: 1fr;
        padding: 2 4;
        display: none;
    }
    LayoutScreen.-small #layout-small {
        display: block;
    }
    LayoutScreen.-small #layout-grid {
        display: none;
    }
    """

    def __init__(self, layout: Layout, context: DashboardContext) -> None:
        super().__init__()
        self.plan = layout  # ``layout`` is Textual's: what the screen is (not its panes)
        self.context = context
        self._session = context.session
        feed = context.session.feed
        self._sides = {symbol: feed.side_market(symbol) for symbol in layout.instruments}
        self._instrument_of: dict[Widget, str | None] = {}  # market pane -> its instrument (None: the selected)
        self._market_pane: Widget | None = None  # the market pane focused last: orders go to its instrument
        self._panes: list[FeedPane | FeedLine] = []
        self.pacing: NewsPacing | None = None  # the terminal's byte budget (made on mount, when the app is known)
        self._bar = ""

    # ---- building ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        context, session = self.context, self._session
        yield ArmedBanner(id="armed")
        yield context.header("header", network=False)
        yield Static("", id="layout-bar", markup=False)
        grid = Container(id="layout-grid")
        grid.styles.grid_size_columns = len(self.plan.columns)
        grid.styles.grid_size_rows = len(self.plan.rows)
        grid.styles.grid_columns = " ".join(self.plan.columns)
        grid.styles.grid_rows = " ".join(self.plan.rows)
        with grid:
            yield from self._cells()
        yield Static("", id="layout-small", markup=False)
        yield AccountBar(context.state, id="account")  # equity, available and margin in view in every layout
        yield StatusBar(context.state, clock=session.clock, latency=context.desk.latency, id="status")
        yield Footer()

    def _cells(self) -> list[Widget]:
        """The panes by their top-left cells, row by row, a blank in each cell no pane covers (see the module)."""
        layout = self.plan
        starts = {(p.row, p.col): p for p in layout.panes}
        covered = {
            (r, c) for p in layout.panes for r in range(p.row, p.row + p.rows) for c in range(p.col, p.col + p.cols)
        }
        out: list[Widget] = []
        for row in range(len(layout.rows)):
            for col in range(len(layout.columns)):
                spot = starts.get((row, col))
                if spot is not None:
                    out.append(self._pane(spot, len(out)))
                elif (row, col) not in covered:
                    out.append(Static("", classes="layout-blank"))
        return out

    def _state(self, symbol: str | None) -> FeedState:
        return self._sides[symbol].state if symbol is not None else self.context.state

    def _pane(self, spot: PaneSpot, n: int) -> Widget:
        state, name = self._state(spot.instrument), f"pane-{n}"
        pane: FeedPane
        match spot.pane:
            case "chart":
                pane = LayoutChartPane(state, id=name)
            case "book":
                pane = OrderBookPane(state, id=name)
            case "tape":
                pane = TradeTapePane(state, id=name)
            case "ticker":
                pane = TickerPane(state, spot.instrument, id=name)
            case "markets":
                pane = MarketsPane(state, funding=self.context.funding, id=name)
            case "positions":
                pane = PositionsPane(state, uncovered=self._session.uncovered, id=name)
            case "orders":
                pane = OpenOrdersPane(state, now_s=self._session.wall_clock, owned=self._session.owned_cloids, id=name)
            case _:
                pane = FillsPane(state, id=name)
        pane.styles.row_span, pane.styles.column_span = spot.rows, spot.cols
        if spot.pane in ("chart", "book", "tape", "ticker"):
            self._instrument_of[pane] = spot.instrument
            pane.can_focus = True  # a chart or a ticker has nothing else to focus: Tab still reaches it
        return pane

    def on_mount(self) -> None:
        self._panes = [*self.query(FeedPane), *self.query(FeedLine)]
        self.query_one(ArmedBanner).arm(self.context.desk.armed)
        for pane in self.query(OrderBookPane):
            pane.bars = not self.context.low_bandwidth  # none on a slow link, as the dashboard's
        self._open_sides()
        low = self._session.options.low_bandwidth
        refresh_s = LOW_BANDWIDTH_REFRESH_S if low else REFRESH_S
        for each in self._panes:
            each.set_tick(refresh_s, LOW_BANDWIDTH_STRETCH if low else 1.0)
        # the dashboard's byte budget, whatever the markets do: one pacer of its own over the terminal's bytes
        self.pacing = screen_pacing(self, self.flush_panes, lambda: self._panes, self._session.clock, low)
        self.call_after_refresh(self.pacing.pacer.forgive)  # the first picture is what the key asked for
        self.set_interval(refresh_s, self.pacing.tick)
        self.set_interval(TICK_S, self._tick)
        self._fit(self.app.size.width, self.app.size.height)
        first = next(iter(self._instrument_of), None)
        if first is not None:
            first.focus()
        self._show_bar()
        self.context.follow(self, self.feed_changed)
        self.flush_panes()

    async def on_unmount(self) -> None:
        self.context.leave(self)
        for side in self._sides.values():
            await side.close()

    def _open_sides(self) -> None:
        """Each instrument's channels, once the instruments are known (a no-op for those already open)."""
        for side in self._sides.values():
            side.open()

    # ---- the feed -----------------------------------------------------------------------------------

    def feed_changed(self, topics: frozenset[str]) -> None:
        """The feed's news, heard as the dashboard hears it (drawn at once as far as the byte budget allows, else
        as soon as it does)."""
        if "markets" in topics:
            self._open_sides()
        if "status" in topics:
            self._follow_connection()
        for pane in self._panes:
            pane.feed_changed(topics)
        if self.is_mounted and self.pacing is not None:
            self.pacing.news(topics)
        if "markets" in topics:
            self._show_bar()

    def _follow_connection(self) -> None:
        """The other instruments' books go stale while the socket is lost, and are reloaded once it is back (the
        feed does so for the selected one); their panes dim as the dashboard's do."""
        status = self.context.state.status
        for side in self._sides.values():
            if status.connection in ("reconnecting", "polling", "closed"):
                side.lost()
            elif status.connection == "live":
                side.back()
        down = status.connection != "live"
        now = self._session.clock()
        for pane in self._panes:
            if pane.AGE_TOPIC is not None:
                at = status.updated.get(pane.AGE_TOPIC)
                pane.set_class(down and at is not None and now - at > STALE_AFTER_S, "-stale")

    def flush_panes(self, tick: bool = True, topics: frozenset[str] | None = None) -> None:
        """Let the panes draw what changed (``topics``: only those that follow one of them)."""
        for pane in self._panes:
            if topics is None or pane.TOPICS & topics:
                pane.flush(tick)

    def _tick(self) -> None:
        for pane in self._panes:
            if isinstance(pane, (StatusBar, OpenOrdersPane)):
                pane.dirty = True
        self._follow_connection()

    # ---- focus and size -----------------------------------------------------------------------------

    def focused_symbol(self) -> str:
        """The instrument the order form acts on: the focused market pane's, else the last one focused's, else the
        dashboard's selected instrument."""
        pane = self._market_pane
        symbol = self._instrument_of.get(pane) if pane is not None else None
        return symbol or self.context.state.market.selected

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        node: Widget | None = event.widget
        while node is not None and node not in self._instrument_of:
            parent = node.parent
            node = parent if isinstance(parent, Widget) else None
        if node is not None:
            self._market_pane = node
        self._show_bar()

    def _show_bar(self) -> None:
        symbol = self.focused_symbol()
        known = self.context.state.market.instruments
        gone = [s for s in self.plan.instruments if known and s not in known]
        text = f"Layout {self.plan.name} · b/s trade {symbol} (the focused pane's) · Y next layout · Esc dashboard"
        if gone:
            text += f" · not listed here: {', '.join(gone)}"
        if text != self._bar:
            self._bar = text
            self.query_one("#layout-bar", Static).update(text)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        why = too_small(self.plan, width, height)
        self.set_class(why is not None, "-small")
        self.query_one("#layout-small", Static).update(why or "")

    # ---- messages and actions ---------------------------------------------------------------------

    @on(InstrumentChosen)
    def _instrument_chosen(self, event: InstrumentChosen) -> None:
        """A market picked in a markets pane: the dashboard selects it, and the panes that name no instrument
        follow it."""
        event.stop()
        self.context.select(event.symbol)
        self._show_bar()

    @on(PricePicked)
    def _price_picked(self, event: PricePicked) -> None:
        """A price picked in a book that follows the selected instrument goes to the order form, as on the
        dashboard; one picked in another instrument's book is dropped (the form starts at its best bid or ask)."""
        event.stop()
        pane = self._market_pane  # the book picked in has the focus
        if pane is not None and self._instrument_of.get(pane, "") is None:
            self.context.desk.picked = event.price

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Buy and sell as the dashboard offers them (not watch-only or read-only); its other trading keys are the
        dashboard's only, so the panes do not name them here."""
        if action in ("buy", "sell"):
            return self.context.can_trade
        return action not in TRADING_ACTIONS

    def on_key(self, event: events.Key) -> None:
        """b or s when nothing can be sent says why, as on the dashboard (they are not offered)."""
        bindings = self.bound_to(event.key)
        read_only, watch_only = self._session.read_only, self._session.signer is None
        words = locked_key_words(bindings, frozenset({"buy", "sell"}), read_only=read_only, watch_only=watch_only)
        if words:
            event.stop()
            event.prevent_default()
            self.notify(words, severity="warning")

    def action_buy(self) -> None:
        self.context.orders.open_form("buy", self.focused_symbol())

    def action_sell(self) -> None:
        self.context.orders.open_form("sell", self.focused_symbol())

    def action_dashboard(self) -> None:
        self.dismiss(None)
