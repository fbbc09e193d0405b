"""Another instrument's book, trades and chart, held beside the selected one's: a layout of several markets at once.

A ``SideMarket`` is a market state of its own (``state``: the feed's account and status, its own ``market``) fed by
channels held through ``ChannelSubscriptions.watch`` (the client shares a channel already held, as the selected
instrument's, and resubscribes after a reconnect) and loaded from /info as the selected market is: the book by the
feed's own ``FrameHandlers`` (gaps reload it), the recent trades and the chart's history. Its changes are announced
under the feed's topics, on the feed's notifier. ``close()`` ends its channels and its jobs.
"""

from __future__ import annotations

import asyncio

from .book import BookState
from .channels import ChannelSubscriptions, Watch
from .core import FeedCore
from .frames import FrameHandlers
from .state import TRADES_KEPT, FeedState, MarketState

__all__ = ["SIDE_CHART", "SideMarket"]

SIDE_CHART = ("ltp", "1", 60, 300)  # chart type, resolution, its seconds, candles loaded: last trade, 1 minute


class SideMarket:
    """``symbol``'s book, trades and 1-minute chart, while open (see the module docstring)."""

    def __init__(self, main: FeedCore, channels: ChannelSubscriptions, symbol: str) -> None:
        self.symbol = symbol
        self._main = main
        self._channels = channels
        shared = main.state
        market = MarketState(instruments=shared.market.instruments, tickers=shared.market.tickers, selected=symbol,
                             book=BookState(symbol), chart_type=SIDE_CHART[0], resolution=SIDE_CHART[1])  # fmt: skip
        core = self._core = FeedCore(
            main.client,
            account=None,
            symbol=symbol,
            on_change=None,
            coalesce_s=0.0,
            clock=main.clock,
            wall=main.wall,
            on_info_timeouts=lambda: None,
        )
        core.state = self.state = FeedState(market, shared.account, shared.status)
        core.notify = main.notify  # its changes reach the screen as the selected market's do
        self._frames = FrameHandlers(core)
        self._watches: list[Watch] = []
        self._info_id = 0
        self.opened = False
        self.down = False  # the socket was lost: the book is stale until it is reloaded

    def open(self) -> None:
        """Subscribe its channels and load its book, trades and chart (in the background); a no-op once open or
        while its instrument is not known (not listed, or the instruments not loaded yet)."""
        market = self.state.market
        market.instruments = self._main.state.market.instruments  # the feed replaces the dict once loaded
        info = market.instruments.get(self.symbol)
        if self.opened or info is None:
            return
        self.opened = True
        market.chart_loading = True
        watch = self._channels.watch
        self._watches = [
            watch("orderbook", self._frames.handle_book, symbol=self.symbol),
            watch("trades", self._frames.handle_trades, symbol=self.symbol),
            watch("chart", self._frames.handle_chart, instrument_id=info.id, chart_type=SIDE_CHART[0],
                  resolution=SIDE_CHART[1]),
        ]  # fmt: skip
        self._info_id = info.id
        self._core.spawn(self._load(info.id), f"side market {self.symbol}")

    def lost(self) -> None:
        """The socket is lost: its book may be wrong from now on (shown stale) until ``back()`` reloads it."""
        book = self.state.market.book
        if self.opened and not self.down:
            self.down = True
            book.stale = book.loaded
            self._core.touch("book", self._core.clock())

    def back(self) -> None:
        """The socket is back (its channels resubscribed by the client): reload the book, the trades and the candles
        missed meanwhile from /info, as the feed does for the selected instrument."""
        if self.opened and self.down:
            self.down = False
            self._core.spawn(self._load(self._info_id), f"side market {self.symbol} again")

    async def _load(self, instrument_id: int) -> None:
        await asyncio.gather(self._frames.resync_book(), self._load_trades(), self._load_chart(instrument_id))

    async def _load_trades(self) -> None:
        trades = await self._core.fetch("trades", self._core.client.trades(self.symbol, TRADES_KEPT))
        if trades is not None:
            self.state.market.merge_trades(trades)
            self._core.touch("trades", self._core.clock())

    async def _load_chart(self, instrument_id: int) -> None:
        chart_type, resolution, step, count = SIDE_CHART
        drift = self.state.status.clock_drift_ms or 0
        to = int(self._core.wall() + drift / 1000) + step
        history = await self._core.fetch(
            "chart", self._core.client.chart(instrument_id, chart_type, resolution, to - step * count, to)
        )
        market = self.state.market
        market.chart_loading = False  # loaded, or failed: either way the chart shows what it has
        if history is not None:
            market.merge_candles(history)
        self._core.touch("chart", self._core.clock())

    async def close(self) -> None:
        """End its channels (the server's subscriptions go in the background) and its loads in flight."""
        for watch in self._watches:
            watch.close()
        self._watches = []
        await self._core.cancel_jobs()
