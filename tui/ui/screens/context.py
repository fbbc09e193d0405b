"""What the dashboard and the screens over it that follow the feed are given (``DashboardContext``): the app's signal
of the feed's news, the session
(its feed, clocks, options and the trading desk it owns), the dashboard's port to that desk and the groups of trading
actions, the book's depth over time, how funding rates are written, and how to show another instrument. The app
makes it, once a session; no screen reaches another screen for these."""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from textual.dom import DOMNode
from textual.signal import Signal

from tui.feed.heatmap import DepthHistory
from tui.feed.state import FeedState
from tui.trading.desk import TradingDesk
from tui.ui.session import Session
from tui.ui.widgets.funding import FundingView
from tui.ui.widgets.header import ProfileHeader

from .order_desk import OrderDesk, ScreenPort

__all__ = [
    "LOSS_LIMIT_NOTE",
    "LOW_BANDWIDTH_HEAT_TICKS",
    "LOW_BANDWIDTH_REFRESH_S",
    "REFRESH_S",
    "TICK_S",
    "DashboardContext",
]

REFRESH_S = 0.1  # the tick paced panes (markets, chart, account) count
LOW_BANDWIDTH_REFRESH_S = 0.5  # ... on a slow link (--low-bandwidth)
TICK_S = 1.0  # ages in the status bar and the orders pane move on without new data
LOW_BANDWIDTH_HEAT_TICKS = 5  # on a slow link (--low-bandwidth) the heatmap takes a column every 5 ticks
LOSS_LIMIT_NOTE = "LOSS LIMIT: reducing orders only until 00:00 UTC"


class DashboardContext(msgspec.Struct, frozen=True):
    """One session's dashboard: what its screens read, trade through and share."""

    session: Session
    port: ScreenPort  # the desk's notices, questions and work, on the dashboard
    orders: OrderDesk  # the trading actions (the dashboard's keys, the ladder's, a layout's b and s)
    select: Callable[[str], None]  # show an instrument in the dashboard's book, tape and chart
    news: Signal[frozenset[str]]  # the app's: the topics of the feed's state that changed
    depth_history: DepthHistory = msgspec.field(default_factory=DepthHistory)  # the book over time (the heatmap)
    funding: FundingView = msgspec.field(default_factory=FundingView)  # how funding rates are written (F cycles)

    @property
    def desk(self) -> TradingDesk:
        return self.session.desk

    @property
    def state(self) -> FeedState:
        return self.session.feed.state

    @property
    def low_bandwidth(self) -> bool:
        return self.session.options.low_bandwidth

    @property
    def refresh_s(self) -> float:
        """How often the live panes redraw."""
        return LOW_BANDWIDTH_REFRESH_S if self.low_bandwidth else REFRESH_S

    @property
    def heat_s(self) -> float:
        """How often the heatmap takes a column (and its screen redraws)."""
        return TICK_S * (LOW_BANDWIDTH_HEAT_TICKS if self.low_bandwidth else 1)

    @property
    def can_trade(self) -> bool:
        """Whether anything can be sent: a key to trade with, not read-only."""
        return not (self.session.read_only or self.session.signer is None)

    def follow(self, screen: DOMNode, changed: Callable[[frozenset[str]], None]) -> None:
        """``screen`` hears the feed's news (``changed``) from now until it closes (``leave``), as it comes."""
        self.news.unsubscribe(screen)  # once, however many of its classes' mount handlers ask
        self.news.subscribe(screen, changed, immediate=True)

    def leave(self, screen: DOMNode) -> None:
        self.news.unsubscribe(screen)

    def header_note(self) -> str | None:
        """What the header says of the guards: the daily loss limit once it is reached."""
        return LOSS_LIMIT_NOTE if self.desk.guard.loss_limit_reached() else None

    def header(self, id: str, *, network: bool = True) -> ProfileHeader:
        """The line that says who trades where (profile, account, signer, connection); ``network``: with the
        network signed for (a layout's header has always said the default's)."""
        session = self.session
        signed_for = "mainnet" if network and not session.client.testnet else "testnet"
        return ProfileHeader(
            self.state,
            profile=session.profile,
            signer=session.signer.address if session.signer else None,
            demo_key=session.demo_key,
            mainnet=session.mainnet,
            read_only=session.read_only,
            note=self.header_note,
            network=signed_for,
            id=id,
        )
