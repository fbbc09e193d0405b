"""Which channels the feed holds on the WebSocket, following the selected instrument and chart.

Every instrument's ticker and the account's channels are held for the feed's life (the client
resubscribes them after a reconnect). The selected instrument's orderbook, trades and chart are
replaced on ``select()`` and ``set_chart()``; their callbacks check a generation number, so frames of a
replaced subscription still in flight are dropped rather than mixed into the new instrument's state.
Screens hold channels of their own (the explorer's blocks) through ``watch()``, until they close.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from tui.api.errors import RequestTimeout
from tui.api.ws import ClientClosed, ConnectionLost, Subscription, WsClient, WsError

from .core import FeedCore
from .frames import FrameHandlers

__all__ = ["ChannelSubscriptions", "Watch"]


class Watch:
    """A screen's hold on one channel (from ``Feed.watch``): payloads go to its handler until ``close()``."""

    def __init__(self, handler: Callable[[Any], None], close: Callable[[Watch], None]) -> None:
        self._handler = handler
        self._close = close
        self.sub: Subscription | None = None  # set once the server confirmed
        self.closed = False

    @property
    def held(self) -> bool:
        """The server confirmed the subscription and it was not closed since."""
        return self.sub is not None and not self.closed

    def deliver(self, data: Any) -> None:
        if not self.closed:
            self._handler(data)

    def close(self) -> None:
        """Stop delivering now; the server subscription ends in the background."""
        if not self.closed:
            self.closed = True
            self._close(self)


class ChannelSubscriptions:
    """The channels ``Feed`` holds, each routed to its ``FrameHandlers`` callback; ``attach()`` gives the socket
    (``Feed.run()`` makes it). Exposed: ``subscribe``, ``watch``, the account's and tickers' channels, and the
    shown market's: ``open_market``, ``drop_market``, ``replace_chart``."""

    def __init__(self, core: FeedCore, frames: FrameHandlers) -> None:
        self._core = core
        self._frames = frames
        self._ws: WsClient | None = None
        self._market_subs: list[Subscription] = []
        self._market_task: asyncio.Task[None] | None = None

    def attach(self, ws: WsClient) -> None:
        self._ws = ws

    async def subscribe(self, channel: str, handler: Callable[[Any], None], **params: Any) -> Subscription | None:
        """Subscribe, waiting for the socket and trying again if it drops meanwhile; None if refused."""

        received = self._core.state.status.messages

        def callback(data: Any) -> None:
            received[channel] += 1  # the diagnostics overlay's messages a second, by channel
            try:
                handler(data)
            except Exception as exc:  # a bug or a record the decoders let through: report, keep going
                self._core.bad(channel, exc)

        while self._ws is not None:
            try:
                sub = await self._ws.subscribe(channel, callback, **params)
            except ClientClosed:
                return None
            except (ConnectionLost, RequestTimeout):
                continue  # the socket dropped before the reply: subscribe again once it is back
            except WsError as exc:
                self._core.error(f"subscribe {channel}", exc)
                return None
            self._core.state.status.subscriptions += 1
            self._core.recovered(f"subscribe {channel}")
            self._core.notify.mark("status")
            return sub
        return None

    def watch(self, channel: str, handler: Callable[[Any], None], **params: Any) -> Watch:
        """Subscribe ``channel`` for a screen (in the background); ``handler`` runs on this loop for every
        payload until ``Watch.close()``. The client resubscribes it after a reconnect."""
        watch = Watch(handler, self._end_watch)

        async def hold() -> None:
            sub = await self.subscribe(channel, watch.deliver, **params)
            if sub is not None and watch.closed:  # closed while the subscribe was in flight
                await self._unsubscribe([sub])
            else:
                watch.sub = sub

        self._core.spawn(hold(), f"watch {channel}")
        return watch

    def _end_watch(self, watch: Watch) -> None:
        if watch.sub is not None:
            self._core.spawn(self._unsubscribe([watch.sub]), "unwatch")
            watch.sub = None

    async def _unsubscribe(self, subs: list[Subscription]) -> None:
        for sub in subs:
            with contextlib.suppress(WsError):
                await sub.unsubscribe()
            self._core.state.status.subscriptions -= 1
            self._core.notify.mark("status")

    async def subscribe_tickers(self) -> None:
        names = list(self._core.state.market.instruments)
        await asyncio.gather(*(self.subscribe("ticker", self._frames.handle_ticker, symbol=n) for n in names))

    async def subscribe_account(self, user: str) -> None:
        pairs = (
            ("orders", self._frames.handle_orders),
            ("position", self._frames.handle_position),
            ("fills", self._frames.handle_fills),
            ("account_summary", self._frames.handle_account_summary),
        )
        await asyncio.gather(*(self.subscribe(ch, fn, user=user) for ch, fn in pairs))

    def _while(self, current: Callable[[], bool], handler: Callable[[Any], None]) -> Callable[[Any], None]:
        """``handler`` for as long as ``current()`` holds (frames of a replaced subscription are dropped)."""

        def routed(data: Any) -> None:
            if current():
                handler(data)

        return routed

    def open_market(self) -> None:
        """Subscribe the shown instrument's book, trades and chart (in the background)."""
        self._market_task = self._core.spawn(
            self._subscribe_market(self._core.market_gen, self._core.chart_gen), "market"
        )

    def drop_market(self) -> None:
        """End the shown instrument's subscriptions, and those still being made."""
        if self._market_task is not None:
            self._market_task.cancel()
        old, self._market_subs = self._market_subs, []
        if old:
            self._core.spawn(self._unsubscribe(old), "unsubscribe")

    async def _subscribe_market(self, gen: int, chart_gen: int) -> None:
        symbol = self._core.state.market.selected

        def same() -> bool:
            return gen == self._core.market_gen

        for channel, handler in (("orderbook", self._frames.handle_book), ("trades", self._frames.handle_trades)):
            sub = await self.subscribe(channel, self._while(same, handler), symbol=symbol)
            if sub is not None:
                await self._keep(sub, same)
        await self._subscribe_chart(chart_gen)

    async def _keep(self, sub: Subscription, current: Callable[[], bool]) -> None:
        """Hold a market subscription, or end it at once if the market or chart changed meanwhile."""
        if current():
            self._market_subs.append(sub)
        else:
            await self._unsubscribe([sub])

    async def _subscribe_chart(self, chart_gen: int) -> None:
        market = self._core.state.market
        info = market.instruments.get(market.selected)
        if info is None or chart_gen != self._core.chart_gen:
            return

        def same() -> bool:
            return chart_gen == self._core.chart_gen

        sub = await self.subscribe(
            "chart",
            self._while(same, self._frames.handle_chart),
            instrument_id=info.id,
            chart_type=market.chart_type,
            resolution=market.resolution,
        )
        if sub is not None:
            await self._keep(sub, same)

    async def replace_chart(self) -> None:
        """Move the chart subscription to the chart now chosen (``chart_gen`` was bumped)."""
        old = [s for s in self._market_subs if s.name == "chart"]
        self._market_subs = [s for s in self._market_subs if s.name != "chart"]
        self._core.spawn(self._unsubscribe(old), "unsubscribe")
        self._core.spawn(self._subscribe_chart(self._core.chart_gen), "chart")
