"""A session: one account on one exchange, everything the dashboard needs for it in one frozen record.

``open_session`` makes it before the app exists (``tui.ui.run`` for the command line, ``make_app`` for the
screenshots, the bench and the tests): the client, the feed, the signer, the options, the clocks and the account's
stores, read from disk here, so the app's construction reads no file. The app takes a session whole and can later
take another whole (``XtuiApp.switch_session``); a TWAP still running keeps the session it started in.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol, TypedDict, Unpack

import msgspec

from tui.api.client import Client
from tui.api.signing import Signer
from tui.config.launch import DashboardOptions
from tui.feed.alerts import AlertBook, alerts_path
from tui.feed.event_file import EventFile, event_log_path
from tui.feed.indicator_choice import IndicatorChoice, indicators_path
from tui.feed.layouts import LayoutBook, layouts_path
from tui.feed.watchlist import Watchlist, watchlist_path
from tui.feed.worker import Feed
from tui.paths import data_dir
from tui.trading import ConfirmPolicy, OrderContext
from tui.trading.chase import Chase, ChaseRunner
from tui.trading.context import order_context
from tui.trading.desk import TradingDesk
from tui.trading.guards import Guards, OrderGuard
from tui.trading.oco import Oco, OcoRunner
from tui.trading.tool_book import KeptOco, KeptTrail, ToolBook, tool_book_path
from tui.trading.tool_forms import tool_of
from tui.trading.tools import OrderTool
from tui.trading.trail_plan import Source
from tui.trading.trailing import Trail, TrailRunner
from tui.trading.twap import Twap, TwapRunner

__all__ = ["Listener", "Relay", "Session", "SessionParts", "open_session"]

log = logging.getLogger("tui.ui")


class Listener(Protocol):
    """Who hears what a session's feed and TWAPs report: the app that holds the session."""

    def feed_changed(self, topics: frozenset[str]) -> None: ...

    def twap_changed(self, twap: Twap, what: str) -> None: ...

    def trail_changed(self, trail: Trail, what: str) -> None: ...

    def tool_changed(self, title: str, ended_badly: bool, what: str) -> None: ...


class Relay:
    """What the feed and the TWAP runner report, passed on to the listener: they are made before the app that
    listens, which connects itself when it takes the session (``listener``); until then, nothing is passed on."""

    def __init__(self) -> None:
        self.listener: Listener | None = None

    def feed_changed(self, topics: frozenset[str]) -> None:
        if self.listener is not None:
            self.listener.feed_changed(topics)

    def twap_changed(self, twap: Twap, what: str) -> None:
        if self.listener is not None:
            self.listener.twap_changed(twap, what)

    def trail_changed(self, trail: Trail, what: str) -> None:
        if self.listener is not None:
            self.listener.trail_changed(trail, what)

    def chase_changed(self, chase: Chase, what: str) -> None:
        if self.listener is not None:
            self.listener.tool_changed(f"Chase {chase.id}", chase.state == "stopped", what)

    def oco_changed(self, oco: Oco, what: str) -> None:
        if self.listener is not None:
            self.listener.tool_changed(
                f"OCO {oco.id}", oco.state in ("stopped", "left") and oco.reason != "cancelled", what
            )


class Session(msgspec.Struct, frozen=True):
    """One account on one exchange: what the app, its screens and its client-side tools work with."""

    client: Client
    feed: Feed
    signer: Signer | None  # None: watch-only
    account: str | None
    profile: str  # the name the header shows; the stores are kept per profile
    mainnet: bool  # the header draws the name in red
    demo_key: bool  # the header says the key is the built-in demo one
    fund: bool  # the key's own account: funded by the exchange's faucet request first, when it says it has one
    options: DashboardOptions
    clock: Callable[[], float]  # monotonic seconds: dates the panes' data
    wall_clock: Callable[[], float]  # epoch seconds: compared with the exchange's time
    alerts: AlertBook
    watchlist: Watchlist
    layouts: LayoutBook  # the profile's saved layouts (Y and the palette switch to them)
    indicators: IndicatorChoice  # the chart's indicators the profile chose (i and the palette)
    twaps: TwapRunner | None  # None without a key to trade with (watch-only, read-only)
    trails: TrailRunner | None  # the trailing stops; None without a key to trade with
    guard: OrderGuard  # the profile's guards, asked by every order path (the desk's and the TWAP slices)
    chases: ChaseRunner | None  # None without a key to trade with, as the TWAPs
    ocos: OcoRunner | None
    owns_client: bool  # the app closes the client when the session ends
    relay: Relay
    event_file: EventFile  # the event log kept on disk for the profile (its thread starts with the session)
    tool_book: ToolBook  # the protective tools kept on disk, so that a restart resumes them (``tui.ui.resume``)
    desk: TradingDesk  # what every trading key of the dashboard goes through (its screen attaches a port to it)

    @property
    def read_only(self) -> bool:
        return self.options.read_only

    def now_ms(self) -> int:
        """The exchange's time as this machine sees it."""
        return int(self.wall_clock() * 1000)

    @property
    def tools(self) -> list[OrderTool]:
        """The order tools of this session (none without a key to trade with): what the app, the quit question,
        the signals and the account switch go through."""
        return [t for t in (self.twaps, self.trails, self.chases, self.ocos) if t is not None]

    def owned_cloids(self) -> set[str]:
        """The cloids of the open orders this session's tools keep now."""
        return {cloid for tool in self.tools for cloid in tool.owned_cloids()}

    def uncovered(self) -> dict[str, str]:
        """instrument -> what a protective tool could not keep covered, in its words (the protection model shows
        them with the position)."""
        said: dict[str, str] = {}
        for tool in self.tools:
            for name, words in tool.uncovered().items():
                said[name] = f"{said[name]}; {words}" if name in said else words
        return said


class SessionParts(TypedDict, total=False):
    """What ``open_session`` (and ``make_app``) take besides the client, the socket's URL and the signer."""

    account: str | None  # default: the signer's address
    profile: str  # default "LOCAL"
    mainnet: bool | None  # default (None): the profile is named MAINNET
    demo_key: bool  # default False
    options: DashboardOptions | None  # default (None): DashboardOptions()
    clock: Callable[[], float]  # default time.monotonic
    wall_clock: Callable[[], float]  # default time.time
    fund: bool  # default False
    close_client: bool  # default False: the caller closes the client
    feed_options: Mapping[str, Any]  # to ``Feed`` (poll_s, ws_options...)
    stores: Path  # the folder of the profile's files (alerts, watchlist, layouts, event log); default data_dir()


def open_session(client: Client, ws_url: str, signer: Signer | None, **parts: Unpack[SessionParts]) -> Session:
    """The session on ``client``/``ws_url`` signed by ``signer`` (None: watch-only), its stores read from disk."""
    options = parts.get("options") or DashboardOptions()
    account = parts.get("account") or (signer.address if signer else None)
    profile = parts.get("profile", "LOCAL")
    mainnet = parts.get("mainnet")
    clock = parts.get("clock", time.monotonic)
    wall_clock = parts.get("wall_clock", time.time)
    stores = parts.get("stores") or data_dir()
    relay = Relay()
    feed = Feed(
        client,
        ws_url,
        account=account,
        symbol=options.symbol,
        on_change=relay.feed_changed,
        clock=clock,
        wall_clock=wall_clock,
        **parts.get("feed_options", {}),
    )
    guards = Guards(options.max_order_notional, options.daily_loss_limit, options.liquidation_warn_pct)
    guard = OrderGuard(guards, feed.state, lambda: int(wall_clock() * 1000))
    feed.state.account.events.kept_by_xtui = lambda cloid: tool_of(cloid) is not None
    twaps = trails = chases = ocos = None
    tool_book = ToolBook.load(tool_book_path(stores, profile))
    if signer is not None and account is not None and not options.read_only:
        slippage = options.slippage_pct

        def context(symbol: str) -> OrderContext | None:
            return order_context(feed.state, symbol, slippage)

        def price(symbol: str, source: Source) -> Decimal | None:
            ticker = feed.state.market.tickers.get(symbol)
            seen = None if ticker is None else ticker.mark_price if source == "mark" else ticker.last_price
            return seen or None  # a 0 is no price

        def keep(kept: list[KeptTrail]) -> None:
            try:
                tool_book.keep(account, kept)
            except OSError as exc:  # the trail goes on; a restart will not offer to resume it
                log.warning("trailing stops not kept on disk: %s", exc)

        def keep_ocos(kept: list[KeptOco]) -> None:
            try:
                tool_book.keep_ocos(account, kept)
            except OSError as exc:  # the pair stays linked; a restart will not offer to link it again
                log.warning("OCOs not kept on disk: %s", exc)

        twaps = TwapRunner(client, account, context, relay.twap_changed, guard=guard.refusal)
        trails = TrailRunner(client, account, context, price, relay.trail_changed, guard=guard.refusal, on_kept=keep)
        chases = ChaseRunner(client, account, context, relay.chase_changed, guard=guard.refusal)
        ocos = OcoRunner(client, account, relay.oco_changed, context=context, guard=guard.refusal, on_kept=keep_ocos)
    return Session(
        client=client,
        feed=feed,
        signer=signer,
        account=account,
        profile=profile,
        mainnet=profile == "MAINNET" if mainnet is None else mainnet,
        demo_key=parts.get("demo_key", False),
        fund=parts.get("fund", False),
        options=options,
        clock=clock,
        wall_clock=wall_clock,
        alerts=AlertBook.load(alerts_path(stores, profile)),
        watchlist=Watchlist.load(watchlist_path(stores, profile)),
        layouts=LayoutBook.load(layouts_path(stores, profile)),
        indicators=IndicatorChoice.load(
            indicators_path(stores, profile), options.chart_ma_periods, options.chart_rsi_period
        ),
        twaps=twaps,
        trails=trails,
        guard=guard,
        chases=chases,
        ocos=ocos,
        owns_client=parts.get("close_client", False),
        relay=relay,
        event_file=EventFile(event_log_path(stores, profile)),
        tool_book=tool_book,
        desk=TradingDesk(
            client,
            feed.state,
            refresh=feed.refresh_account,
            changed=relay.feed_changed,  # heard by the app, which takes it as the feed's own news
            policy=ConfirmPolicy(options.confirm_notional, options.confirm_through_pct, options.slippage_pct),
            guard=guard,
            clock=clock,
            watch_only=signer is None,
            read_only=options.read_only,
            ladder_notional=options.ladder_notional,
        ),
    )
