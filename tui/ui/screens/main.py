"""The dashboard: markets, chart, order book, trade tape, positions, open orders, account and status.

The screen routes the feed's change notices to the panes and flushes the dirty ones on one timer (at
most 10 times a second). Its bindings are the trading and view keys; the trading ones go through
``OrderDesk`` so that nothing here awaits the network.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.screen import Screen
from textual.widgets import DataTable
from textual.worker import Worker

from tui.api.client import Client
from tui.feed.worker import Feed
from tui.order_entry import ConfirmPolicy
from tui.ui.messages import FeedChanged, InstrumentChosen, PricePicked
from tui.ui.widgets.account_bar import AccountBar
from tui.ui.widgets.book import OrderBookPane
from tui.ui.widgets.chart import ChartPane, chart_type_label, next_chart_type, next_resolution, resolution_label
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.header import ProfileHeader
from tui.ui.widgets.markets import MarketsPane
from tui.ui.widgets.orders import OpenOrdersPane
from tui.ui.widgets.pane import FeedLine, FeedPane
from tui.ui.widgets.positions import PositionsPane
from tui.ui.widgets.status_bar import StatusBar, drift_warning
from tui.ui.widgets.tape import TradeTapePane
from tui.ui.worker_errors import report_worker_error

from .order_desk import OrderDesk

__all__ = ["MainScreen"]

log = logging.getLogger(__name__)

REFRESH_S = 0.1  # panes re-read the state at most this often
TICK_S = 1.0  # ages in the status bar and the orders pane move on without new data


class MainScreen(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012 (Textual declares them so)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (34, "-tall")]  # noqa: RUF012

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "buy", "Buy", id="buy", tooltip="Order form to buy at the best ask or the picked price"),
        Binding("s", "sell", "Sell", id="sell", tooltip="Order form to sell at the best bid or the picked price"),
        Binding("x", "cancel_order", "Cancel", id="cancel_order", tooltip="Cancel the selected open order"),
        Binding("X", "cancel_instrument", "Cancel all", id="cancel_instrument", show=False,
                tooltip="Cancel every open order on the selected instrument"),
        Binding("k", "cancel_cloid", "Cancel by cloid", id="cancel_cloid", show=False,
                tooltip="Cancel an order by its client order id"),
        Binding("c", "close_position", "Close", id="close_position", tooltip="Close the selected position"),
        Binding("P", "panic", "PANIC", id="panic",
                tooltip="PANIC: cancel every open order and close every position (asks first)"),
        Binding("slash", "filter_markets", "Filter", id="filter_markets", show=False,
                tooltip="Filter the markets by typing"),
        Binding("g", "cycle_grouping", "Group", id="book_grouping", show=False,
                tooltip="Group the book by 1x, 10x, 100x the tick"),
        Binding("right_square_bracket", "resolution(1)", "Res+", id="chart_next_resolution", show=False,
                tooltip="Next chart resolution (1m 5m 15m 30m 1h 4h 1D 1W)"),
        Binding("left_square_bracket", "resolution(-1)", "Res-", id="chart_prev_resolution", show=False,
                tooltip="Previous chart resolution"),
        Binding("t", "chart_type", "Chart type", id="chart_type", show=False,
                tooltip="Chart last trade, mark or index price"),
        Binding("r", "refresh_account", "Refresh", id="refresh_account", show=False,
                tooltip="Poll the account now"),
        Binding("1", "focus_pane('markets')", "Markets", id="focus_markets", show=False, tooltip="Focus the markets"),
        Binding("2", "focus_pane('book')", "Book", id="focus_book", show=False, tooltip="Focus the order book"),
        Binding("3", "focus_pane('positions')", "Positions", id="focus_positions", show=False,
                tooltip="Focus the positions"),
        Binding("4", "focus_pane('orders')", "Orders", id="focus_orders", show=False, tooltip="Focus the open orders"),
    ]  # fmt: skip

    DEFAULT_CSS = """
    MainScreen {
        layout: vertical;
    }
    MainScreen #grid {
        height: 1fr;
        layout: grid;
        grid-size: 3 4;
        grid-columns: 1fr 46 30;
        grid-rows: 10 1fr 6 7;
    }
    MainScreen #book, MainScreen #tape {
        row-span: 2;
        height: 1fr;
    }
    MainScreen #positions, MainScreen #orders {
        column-span: 3;
        height: 1fr;
    }
    MainScreen #markets, MainScreen #chart {
        height: 1fr;
    }
    MainScreen.-narrow #grid {
        grid-size: 2 4;
        grid-columns: 1fr 40;
    }
    MainScreen.-narrow #tape {
        display: none;
    }
    MainScreen.-narrow #positions, MainScreen.-narrow #orders {
        column-span: 2;
    }
    MainScreen.-short #grid {
        grid-rows: 10 1fr 1fr;
    }
    MainScreen.-wide.-short #grid {
        grid-size: 3 3;
    }
    MainScreen.-narrow.-short #grid {
        grid-size: 2 3;
    }
    MainScreen.-short #chart {
        display: none;
    }
    MainScreen.-short #book, MainScreen.-short #tape {
        row-span: 3;
    }
    MainScreen.-short #positions, MainScreen.-short #orders {
        column-span: 1;
    }
    """

    def __init__(
        self,
        *,
        feed: Feed,
        client: Client,
        profile: str,
        signer: str | None,
        demo_key: bool,
        policy: ConfirmPolicy,
        mainnet: bool = False,
        read_only: bool = False,
        clock: Callable[[], float],
        wall_clock: Callable[[], float],
    ) -> None:
        super().__init__(id="main")
        self.feed = feed
        self._profile = profile
        self._mainnet = mainnet
        self._signer = signer
        self._demo_key = demo_key
        self._read_only = read_only
        self._clock = clock
        self._wall_clock = wall_clock
        self._drift_told = False
        self._panes: list[FeedPane | FeedLine] | None = None
        self.desk = OrderDesk(
            self,
            client,
            feed.state,
            refresh=feed.refresh_account,
            policy=policy,
            watch_only=signer is None,
            read_only=read_only,
        )

    def compose(self) -> ComposeResult:
        state = self.feed.state
        yield ProfileHeader(
            state,
            profile=self._profile,
            signer=self._signer,
            demo_key=self._demo_key,
            mainnet=self._mainnet,
            read_only=self._read_only,
            id="header",
        )
        # grid cells fill in this order; the breakpoint classes move and hide them (see DEFAULT_CSS)
        with Container(id="grid"):
            yield MarketsPane(state, id="markets")
            yield OrderBookPane(state, id="book")
            yield TradeTapePane(state, id="tape")
            yield ChartPane(state, id="chart")
            yield PositionsPane(state, id="positions")
            yield OpenOrdersPane(state, now_s=self._wall_clock, id="orders")
        yield AccountBar(state, id="account")
        yield StatusBar(state, clock=self._clock, id="status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._panes = self._live()
        self.set_interval(REFRESH_S, self.flush_panes)
        self.set_interval(TICK_S, self._tick)
        self.flush_panes()
        self.query_one("#markets-table", DataTable).focus()

    # ---- the feed ---------------------------------------------------------------------------------

    def _live(self) -> list[FeedPane | FeedLine]:
        """The panes and lines the feed drives: composed once, so looked up once (a query walks the DOM)."""
        if self._panes is not None:
            return self._panes
        return [*self.query(FeedPane), *self.query(FeedLine)]

    def feed_changed(self, message: FeedChanged) -> None:
        for pane in self._live():
            pane.feed_changed(message.topics)
        if "status" in message.topics and not self._drift_told:
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

    def flush_panes(self) -> None:
        for pane in self._live():
            pane.flush()

    def _tick(self) -> None:
        self.query_one(StatusBar).dirty = True
        self.query_one(OpenOrdersPane).dirty = True

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_worker_error(self, event)  # the screen's workers: orders, cancels, the feed's moves

    @on(InstrumentChosen)
    def _instrument_chosen(self, event: InstrumentChosen) -> None:
        event.stop()
        self.select(event.symbol)

    def select(self, symbol: str) -> None:
        """Show ``symbol`` in the book, tape and chart (the feed moves its subscriptions in a worker)."""
        self.desk.picked = None
        self.run_worker(self.feed.select(symbol), group="select", exclusive=True, exit_on_error=False)

    @on(PricePicked)
    def _price_picked(self, event: PricePicked) -> None:
        event.stop()
        self.desk.picked = event.price

    # ---- actions ------------------------------------------------------------------------------------

    def action_buy(self) -> None:
        self.desk.open_form("buy")

    def action_sell(self) -> None:
        self.desk.open_form("sell")

    def action_cancel_order(self) -> None:
        self.desk.cancel_order(self.query_one(OpenOrdersPane).selected())

    def action_cancel_instrument(self) -> None:
        self.desk.cancel_instrument()

    def action_cancel_cloid(self) -> None:
        self.desk.cancel_by_cloid()

    def action_close_position(self) -> None:
        self.desk.close_position(self.query_one(PositionsPane).selected())

    def action_panic(self) -> None:
        self.desk.panic()

    def action_filter_markets(self) -> None:
        self.query_one(MarketsPane).start_filter()

    def action_cycle_grouping(self) -> None:
        book = self.query_one(OrderBookPane)
        group = book.cycle_grouping()
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

    def _set_chart(self, chart_type: str, resolution: str) -> None:
        self.run_worker(self.feed.set_chart(chart_type, resolution), group="chart", exclusive=True, exit_on_error=False)

    def action_refresh_account(self) -> None:
        self.run_worker(self.feed.refresh_account(), group="refresh", exclusive=True, exit_on_error=False)

    def action_focus_pane(self, pane: str) -> None:
        table_id = {"markets": "#markets-table", "book": "#book-table", "positions": "#positions-table"}.get(
            pane, "#orders-table"
        )
        table = self.query_one(table_id)  # the book's rows are not a DataTable
        if table.display and table.parent is not None and table.parent.display:
            table.focus()
