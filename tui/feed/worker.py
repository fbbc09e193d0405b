"""The feed's background worker: WebSocket subscriptions plus /info polling, merged into one state.

``Feed.run()`` is one long-lived coroutine (the app runs it as a Textual worker). It loads what the
socket cannot give (instruments, the book, recent trades, chart history, the account), subscribes the
selected instrument's channels, every instrument's ticker and the account's channels, and polls /info
to reconcile: the account every ``poll_s``, and while the socket is down (or stale: silent, maybe dead)
the market too, every second.

The connection is reported as it is: ``live`` only while the socket is heard from (the client pings it
while quiet), ``stale`` when it falls silent, ``reconnecting`` when it is lost and until, back, the book is
reloaded from /info and the account's orders and positions reconciled; a line across the trade tape then
marks the gap. /info calls timing out in a row make the client test the socket at once. Network and
data errors are reported in ``state.status``; ``run()`` never raises them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from tui.api.client import Client
from tui.api.models import Fill, Order
from tui.api.ws import ConnState, WsClient

from .book import BookState
from .channels import ChannelSubscriptions, Watch
from .core import FeedCore
from .frames import FAST_POLL_S, FrameHandlers
from .side_market import SideMarket
from .state import FILLS_KEPT, FUNDING_KEPT, TRADES_KEPT, TapeMark, instruments_from

__all__ = ["CHART_CANDLES", "CHART_TYPES", "RESOLUTIONS", "Feed"]

CHART_TYPES = ("mark", "index", "ltp")
RESOLUTIONS: Mapping[str, int] = {
    "1": 60, "5": 300, "15": 900, "30": 1_800, "60": 3_600, "240": 14_400, "1D": 86_400, "1W": 604_800,
}  # fmt: skip
CHART_CANDLES = 300  # history loaded per chart
TICKER_POLL_S = 2.0  # while the socket is down
INFO_TIMEOUTS_SUSPECT = 2  # /info timeouts in a row after which the socket is tested at once


class Feed:
    """Market and account data for the dashboard; see the module docstring. ``clock`` (monotonic
    seconds) stamps ``status.updated`` and paces notifications; ``wall_clock`` (epoch seconds) is
    compared with the exchange's time; ``ws_options`` go to ``WsClient`` (backoff, ping interval).

    Its parts: ``FeedCore`` (state, clocks, notification, errors, jobs), ``frames`` (the channels' handlers
    and the book's resync) and the channel subscriptions; the feed runs the socket and the polls."""

    def __init__(
        self,
        client: Client,
        ws_url: str,
        *,
        account: str | None,
        symbol: str = "BTC-PERP",
        on_change: Callable[[frozenset[str]], None] | None = None,
        coalesce_s: float = 0.02,  # a frame or so: what limits redraws is the screen's byte budget
        poll_s: float = 3.0,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        ws_options: Mapping[str, Any] | None = None,
    ) -> None:
        core = self._core = FeedCore(
            client,
            account=account,
            symbol=symbol,
            on_change=on_change,
            coalesce_s=coalesce_s,
            clock=clock,
            wall=wall_clock,
            on_info_timeouts=self._info_timed_out,
        )
        self.client = client
        self.state = core.state
        self.frames = FrameHandlers(core)
        self._channels = ChannelSubscriptions(core, self.frames)
        self._clock = clock
        self._wall = wall_clock
        self._notify = core.notify
        self._ws: WsClient | None = None
        self.ws_url = ws_url
        self.poll_s = poll_s
        self._ws_options = {"wall_clock": wall_clock, **(ws_options or {})}  # one wall clock for the feed
        self._running = False
        self._stopping = asyncio.Event()
        self._done = asyncio.Event()
        self._ending: asyncio.Future[None] | None = None  # run()'s ending (``_end``), once begun
        self._down_poll_ok = False  # a poll made while the socket was down succeeded: "polling"
        self._last_ticker_poll = float("-inf")
        self._resyncing = False  # back after a reconnect, reloading what was missed: not live yet
        self._lost = False  # the socket was lost and is not back yet (the event log says so once)
        self._silent_after: int | None = None  # the newest trade held when the socket fell silent
        self._account_opening: asyncio.Future[Any] | None = None  # the account's first look waits for it

    # ---- the contract ---------------------------------------------------------------------------

    def account_opens_with(self, opening: Awaitable[Any]) -> None:
        """Look at the account only once ``opening`` is done (the local exchange's faucet request, which funds it):
        the market loads meanwhile, and the account's first picture is the funded one."""
        self._account_opening = asyncio.ensure_future(opening)

    async def run(self) -> None:
        """Run until ``stop()``. Network and data errors are reported in ``state.status``, not raised."""
        if self._running or self._done.is_set():
            raise RuntimeError("Feed.run() can be called once")
        self._running = True
        ws = self._ws = WsClient(
            self.ws_url, on_state=self._on_ws_state, on_server_time=self.client.server_clock.observe, **self._ws_options
        )
        self._channels.attach(ws)
        try:
            await ws.start()
            self._core.spawn(self._load_all(), "load")
            self._core.spawn(self._poll_loop(), "poll")
            await self._stopping.wait()
        finally:
            # The ending is a task of its own, which a second cancel of run() does not cut short (Textual
            # cancels a worker once more as the app shuts down): the socket is closed, and ``stop()`` (which
            # waits for ``_done``) returns, whatever happens to run() meanwhile.
            self._ending = asyncio.ensure_future(self._end(ws))
            await asyncio.shield(self._ending)

    async def _end(self, ws: WsClient) -> None:
        try:
            await self._core.cancel_jobs()
            await ws.close()
        finally:
            self._running = False
            self.state.status.connection = "closed"
            self._notify.mark("status")
            self._notify.flush()
            self._notify.close()
            self._done.set()

    async def stop(self) -> None:
        """End ``run()`` and wait for it to finish closing."""
        self._stopping.set()
        self._core.wake.set()
        if self._running:
            await self._done.wait()

    @property
    def news_pending(self) -> bool:
        """Whether the state changed in ways the UI has not been told yet (they go out within ``coalesce_s``)."""
        return self._notify.pending

    async def wait_ready(self) -> None:
        """Wait until instruments, the first book and (with an account) the account are loaded."""
        await self._core.ready.wait()

    async def select(self, symbol: str) -> None:
        """Show ``symbol``: move the market subscriptions to it and load its book, trades and chart."""
        market = self.state.market
        if market.instruments and symbol not in market.instruments:
            raise ValueError(f"unknown instrument {symbol!r}")
        if symbol == market.selected and market.book.loaded:
            return
        self._reset_market(symbol)
        market.chart_loading = self._running and bool(market.instruments)
        if market.chart_loading:
            await self._open_market()

    async def set_chart(self, chart_type: str, resolution: str) -> None:
        """Show another chart of the selected instrument: resubscribe and load its history."""
        if chart_type not in CHART_TYPES or resolution not in RESOLUTIONS:
            raise ValueError(f"chart type must be one of {CHART_TYPES}, resolution one of {tuple(RESOLUTIONS)}")
        market = self.state.market
        market.chart_type, market.resolution = chart_type, resolution
        market.candles = []
        market.chart_loading = self._running and bool(market.instruments)
        self._core.chart_gen += 1
        self._core.touch("chart", self._clock())
        if market.chart_loading:
            await self._channels.replace_chart()
            await self._load_chart()

    def watch(self, channel: str, handler: Callable[[Any], None], **params: Any) -> Watch:
        """Subscribe ``channel`` for a screen (in the background); ``handler`` runs on this loop for every
        payload until ``Watch.close()``. The client resubscribes it after a reconnect."""
        return self._channels.watch(channel, handler, **params)

    def side_market(self, symbol: str) -> SideMarket:
        """``symbol``'s book, trades and chart beside the selected instrument's (a layout of several markets):
        ``open()`` it once the instruments are known, ``close()`` it when no longer shown."""
        return SideMarket(self._core, self._channels, symbol)

    async def refresh_account(self) -> None:
        """Poll the account now (after an order is acknowledged, say)."""
        if self.state.account.address is not None:
            await self._poll_account()
            self._refresh_status()

    # ---- status ---------------------------------------------------------------------------------

    def _error(self, where: str, exc: BaseException | str) -> None:
        self._core.error(where, exc)

    def _on_ws_state(self, state: ConnState) -> None:
        ws = self._ws
        self._log_connection(state)
        if state is ConnState.LIVE:
            self._down_poll_ok = False
            if ws is not None and ws.status.reconnects > self.state.status.reconnects:
                self.state.status.reconnects = ws.status.reconnects
                self._resyncing = True
                self._core.spawn(self._after_reconnect(), "reconnect")
            else:
                self._silent_after = None  # it was only quiet: nothing was missed
        else:
            trades = self.state.market.trades
            if self._silent_after is None and trades:
                self._silent_after = trades[0].trade_id
            book = self.state.market.book
            if state is ConnState.RECONNECTING and book.loaded and not book.stale:
                book.stale = True  # the socket is gone: until /info says otherwise the book may be wrong
                self._core.touch("book", self._clock())
            if state is ConnState.RECONNECTING:
                self._core.drift.forget()  # measured afresh after the outage; the drift shown stays until then
            self._core.wake.set()  # poll now, and every second while down
        self._refresh_status()

    def _log_connection(self, state: ConnState) -> None:
        """The socket lost (once per outage) and back, in the event log."""
        log = self.state.account.events
        if state is ConnState.RECONNECTING and not self._lost:
            self._lost = True
            log.add("disconnect", "WebSocket lost: reconnecting; the account is polled meanwhile")
        elif state is ConnState.LIVE and self._lost:
            self._lost = False
            log.add("reconnect", "WebSocket back: reloading the book, the account and the tape")
        else:
            return
        self._notify.mark("events")

    def _info_timed_out(self) -> None:
        if self._core.info_timeouts >= INFO_TIMEOUTS_SUSPECT and self._ws is not None:
            self._ws.suspect()

    def _refresh_status(self) -> None:
        status = self.state.status
        ws = self._ws
        if ws is None or ws.state is ConnState.CLOSED:
            status.connection = "closed" if self._done.is_set() or self._stopping.is_set() else "connecting"
        elif ws.state is ConnState.LIVE:
            status.connection = "reconnecting" if self._resyncing else "live"
        else:
            status.connection = "polling" if self._down_poll_ok else ws.state.value
        status.paper = self.client.paper
        status.rate = self.client.governor.status()
        status.rate_at = self._clock()
        # the drift is measured as answers and frames arrive (``DriftMeter``), never here: this runs on a
        # disconnect too, and the last answer's Date read now would be as old as the outage
        if self.client.server_clock.offset_ms is None:  # the signing clock: a Date is better than nothing
            self.client.server_clock.observe_date(self.client.last_server_date)
        self._notify.mark("status")

    # ---- loading --------------------------------------------------------------------------------

    async def _load_all(self) -> None:
        market = self.state.market
        while not market.instruments:
            result = await self._core.fetch("instruments", self.client.instruments())
            if result is not None:
                market.instruments = instruments_from(result)
                self._core.touch("markets", self._clock())
                self._refresh_status()  # what the exchange is (a mirror: paper) shows from the first answer
            elif await self._pause(FAST_POLL_S):
                return
        symbol = market.selected
        if symbol not in market.instruments:
            symbol = next(iter(market.instruments))
            self._error("select", f"unknown instrument {market.selected!r}; showing {symbol}")
        market.chart_loading = True
        self._reset_market(symbol)  # also drops what a select() made meanwhile, so nothing is held twice
        self._core.spawn(self._channels.subscribe_tickers(), "tickers")
        if (user := self.state.account.address) is not None:
            self._core.spawn(self._channels.subscribe_account(user), "account")
            self._core.spawn(
                self._channels.subscribe("funding_payments", self.frames.handle_funding, user=user), "funding"
            )
        # one snapshot for the first frame: every query at once, not one after another
        await asyncio.gather(self._poll_tickers(), self._open_market(), self.refresh_account(), self._load_funding())

    def _reset_market(self, symbol: str) -> None:
        """Forget the shown instrument: its data, its subscriptions, its resync in flight."""
        self._core.market_gen += 1
        self._core.chart_gen += 1
        self._channels.drop_market()
        self.frames.forget_resync()
        market = self.state.market
        market.selected = symbol
        market.book = BookState(symbol)
        market.trades.clear()
        market.tape_marks.clear()
        self._silent_after = None
        market.candles = []
        now = self._clock()
        for topic in ("markets", "book", "trades", "chart"):
            self._core.touch(topic, now)

    async def _open_market(self) -> None:
        self._channels.open_market()
        await asyncio.gather(self.frames.resync_book(), self._load_trades(), self._load_chart())

    async def _load_trades(self) -> bool:
        gen, market = self._core.market_gen, self.state.market
        trades = await self._core.fetch("trades", self.client.trades(market.selected, TRADES_KEPT))
        if trades is None or gen != self._core.market_gen:
            return trades is not None
        market.merge_trades(trades)
        self._core.touch("trades", self._clock())
        return True

    def _server_now_s(self) -> int:
        drift = self.state.status.clock_drift_ms or 0
        return int(self._wall() + drift / 1000)

    def _server_now_ms(self) -> int:
        drift = self.state.status.clock_drift_ms or 0
        return int(self._wall() * 1000) + drift

    async def _load_chart(self, candles: int = CHART_CANDLES) -> bool:
        """Chart history (``from``/``to`` in the exchange's seconds), merged under the live candle."""
        gen, market = self._core.chart_gen, self.state.market
        info = market.instruments.get(market.selected)
        if info is None:
            return False
        step = RESOLUTIONS[market.resolution]
        to = self._server_now_s() + step
        call = self.client.chart(info.id, market.chart_type, market.resolution, to - step * candles, to)
        history = await self._core.fetch("chart", call)
        if gen != self._core.chart_gen:
            return history is not None
        market.chart_loading = False  # loaded, or failed: either way the chart shows what it has
        if history is None:
            self._core.touch("chart", self._clock())
            return False
        market.merge_candles(history)
        self._core.touch("chart", self._clock())
        return True

    async def _poll_tickers(self) -> bool:
        self._last_ticker_poll = self._clock()
        tickers = await self._core.fetch("ticker", self.client.ticker("all"))
        if tickers is None:
            return False
        self.state.market.tickers.update((t.symbol, t) for t in tickers)
        self._core.touch("markets", self._clock())
        return True

    async def _open_orders(self, user: str) -> list[Order]:
        return [o async for o in self.client.iter_pages(Order, "open_orders", limit=500, user=user)]

    async def _poll_account(self) -> bool:
        """Positions, open orders, summary and fills; pushes newer than the poll are kept."""
        account = self.state.account
        user = account.address
        if user is None:
            return True
        if self._account_opening is not None:
            await asyncio.shield(self._account_opening)  # a poll cancelled meanwhile leaves the opening be
            self._account_opening = None  # done: later polls do not look again
        since = self._clock()
        positions, orders, summary, fills = await asyncio.gather(
            self._core.fetch("positions", self.client.positions(user)),
            self._core.fetch("open_orders", self._open_orders(user)),
            self._core.fetch("account_summary", self.client.account_summary(user)),
            self._core.fetch("fills", self.client.fills(user, limit=FILLS_KEPT)),
        )
        now = self._clock()
        if positions is not None:
            account.reconcile_positions(positions, since)
            self._core.touch("positions", now)
        if orders is not None:
            account.reconcile_orders(orders, since)
            self._core.touch("orders", now)
        if summary is not None and account.reconcile_summary(summary, since):
            self._core.touch("account", now)
        if fills is not None:
            account.merge_fills(fills.data)
            self._core.touch("fills", now)
        ok = None not in (positions, orders, summary, fills)
        polled_fills = fills.data if fills is not None else []
        if ok and not account.loaded:
            account.events.history(polled_fills, orders or [])  # what was there before: not news
            account.loaded = True
            self._core.check_ready()
        elif account.loaded:
            self._polled_events(polled_fills, orders or [])
        return ok

    async def _load_funding(self) -> bool:
        """The account's newest funding records (pushes bring the later ones): what each position has paid,
        and how often funding is paid."""
        user = self.state.account.address
        if user is None:
            return True
        page = await self._core.fetch("funding_history", self.client.funding_history(user, limit=FUNDING_KEPT))
        if page is not None:
            self.frames.took_funding(page.data)
        return page is not None

    def _polled_events(self, fills: list[Fill], orders: list[Order]) -> None:
        """Fills and fired triggers a poll shows before (or instead of: the socket was down) their pushes."""
        account, instruments, now = self.state.account, self.state.market.instruments, self._clock()
        told = [account.events.fill(f, instruments.get(f.instrument)) for f in reversed(fills)]  # oldest first
        told += [
            account.events.order(o, o, instruments.get(o.instrument), now) for o in orders if o.state == "triggered"
        ]
        if any(e is not None for e in told):
            self._core.touch("events", now)

    async def _poll_market(self) -> bool:
        """While the socket is down: the book, trades, tickers and the live candle from /info."""
        await self.frames.resync_book()
        ok = self.state.market.book.loaded and not self.state.market.book.stale
        ok = await self._load_trades() and ok
        if self._clock() - self._last_ticker_poll >= TICKER_POLL_S:
            ok = await self._poll_tickers() and ok
        return await self._load_chart(candles=2) and ok

    async def _after_reconnect(self) -> None:
        """The socket is back: reload the book, the account and the tape, mark the gap on the tape, then
        say live; the chart, the tickers and the funding records follow."""
        try:
            await asyncio.gather(self.frames.resync_book(), self.refresh_account(), self._load_trades())
            self._mark_gap()
        finally:
            self._resyncing = False
            self._refresh_status()
        await self._load_chart()
        await self._poll_tickers()
        await self._load_funding()  # payments made while the socket was down

    def _mark_gap(self) -> None:
        """A line across the tape above the trades held when the socket fell silent."""
        after, self._silent_after = self._silent_after, None
        ws = self._ws
        if after is None or ws is None:
            return
        gap = ws.status.last_gap_s or 0.0
        self.state.market.tape_marks.appendleft(TapeMark(after, self._server_now_ms(), gap))
        self._core.touch("trades", self._clock())

    async def _pause(self, seconds: float) -> bool:
        """Wait ``seconds`` or until woken; True when stopping."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._core.wake.wait()
        self._core.wake.clear()
        return self._stopping.is_set()

    async def _poll_loop(self) -> None:
        while True:
            live = self._ws is not None and self._ws.state is ConnState.LIVE
            if await self._pause(self.poll_s if live else min(FAST_POLL_S, self.poll_s)):
                return
            if not self.state.market.instruments:
                continue  # the loader is still at it
            live = self._ws is not None and self._ws.state is ConnState.LIVE
            ok = True
            book = self.state.market.book
            if not live:
                ok = await self._poll_market()
            elif book.stale or not book.loaded:
                await self.frames.resync_book()  # a resync failed earlier
            ok = await self._poll_account() and ok
            if self._ws is not None and self._ws.state is not ConnState.LIVE:
                self._down_poll_ok = ok
            self._refresh_status()
