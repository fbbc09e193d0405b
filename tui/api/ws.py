"""JSON-RPC WebSocket client (protocol-notes section 5): subscribe, unsubscribe, ping, post, reconnect.

A :class:`WsClient` owns one socket at a time. A background task connects, reads frames and pings; when
the socket drops (or stays silent past ``idle_timeout``) it reconnects with exponential backoff and
jitter and resubscribes everything with the original channel and params.

Local subscriptions with the same channel and params share one server subscription, so the server never
holds a subscription twice and no notification is delivered twice. A subscriber joining a shared one
receives updates from then on, not a fresh snapshot (a reconnect does bring a fresh one to all).

Client-sent messages are limited to the interface's 2,000 a rolling minute (callers wait, nothing is
dropped) and the server subscriptions to 1,000 (beyond that :class:`SubscriptionLimitError`).

The client is here: its lifecycle, the reconnect loop, subscription sharing. The topics and handles are in
``ws_topics``, one socket's request/reply matching and notification routing in ``ws_conn``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable, Coroutine
from types import TracebackType
from typing import Any, Literal

import msgspec
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from .errors import RequestTimeout
from .ws_conn import Connection
from .ws_protocol import (
    CHANNEL_ALIASES,
    MAX_MESSAGES_PER_MINUTE,
    MAX_SUBSCRIPTIONS,
    Callback,
    ClientClosed,
    Clock,
    ConnectionLost,
    ConnState,
    MessageRateLimiter,
    RpcError,
    Sleep,
    SubscriptionError,
    SubscriptionLimitError,
    WsError,
    WsStatus,
    backoff_delay,
    clip,
    normalize_channel,
)
from .ws_topics import Subscription, Topic, parse_subscribed

__all__ = [
    "CHANNEL_ALIASES",
    "MAX_MESSAGES_PER_MINUTE",
    "MAX_SUBSCRIPTIONS",
    "ClientClosed",
    "ConnState",
    "ConnectionLost",
    "MessageRateLimiter",
    "RpcError",
    "Subscription",
    "SubscriptionError",
    "SubscriptionLimitError",
    "WsClient",
    "WsError",
    "WsStatus",
    "backoff_delay",
    "normalize_channel",
]

log = logging.getLogger(__name__)


class WsClient:
    """JSON-RPC WebSocket client with keepalive, reconnect, resubscribe and the interface's limits.

    ``sleep`` and ``clock`` are used by the reconnect backoff and the message-rate limiter (inject them
    in tests); the ping interval and the idle timeout run on the event loop's own time.
    """

    def __init__(
        self,
        url: str,
        *,
        ping_interval: float = 30.0,
        idle_timeout: float | None = None,
        request_timeout: float = 10.0,
        open_timeout: float = 10.0,
        backoff_min: float = 0.5,
        backoff_max: float = 30.0,
        backoff_jitter: float = 0.5,
        max_subscriptions: int = MAX_SUBSCRIPTIONS,
        max_messages_per_minute: int = MAX_MESSAGES_PER_MINUTE,
        rng: random.Random | None = None,
        sleep: Sleep = asyncio.sleep,
        clock: Clock = time.monotonic,
        on_state: Callable[[ConnState], object] | None = None,
    ) -> None:
        """``idle_timeout`` (default twice ``ping_interval``): seconds without any frame after which the
        socket is taken for dead and replaced. ``on_state`` is called on every state change."""
        self.url = url
        self._ping_interval = ping_interval
        self._idle_timeout = idle_timeout if idle_timeout is not None else 2 * ping_interval
        self._request_timeout = request_timeout
        self._open_timeout = open_timeout
        self._backoff = (backoff_min, backoff_max, backoff_jitter)
        self._max_subscriptions = max_subscriptions
        self._limiter = MessageRateLimiter(max_messages_per_minute, 60.0, clock=clock, sleep=sleep)
        self._rng = rng or random.Random()
        self._sleep = sleep
        self._clock = clock
        self._on_state = on_state
        self._state = ConnState.CLOSED
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._conn: Connection | None = None
        self._topics: dict[tuple[str, bytes], Topic] = {}
        self._ever_live = False
        self._reconnects = 0
        self._last_message_at: float | None = None
        self._latency: float | None = None
        self._invalid_frames = 0
        self._background: set[asyncio.Task[None]] = set()

    # ----- lifecycle and status

    async def start(self) -> None:
        """Start connecting in the background; returns at once (see :meth:`wait_live`)."""
        if self._task is not None or self._closing:
            raise RuntimeError("WsClient.start() called twice")
        self._set_state(ConnState.CONNECTING)
        self._task = asyncio.create_task(self._run(), name=f"ws {self.url}")

    async def close(self) -> None:
        """Close the socket, fail pending requests with :class:`ClientClosed`, end all subscriptions."""
        if self._closing:
            return
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        for task in list(self._background):
            task.cancel()
        for topic in self._topics.values():
            topic.dead = True
            topic.settled.set()
        self._topics.clear()
        self._set_state(ConnState.CLOSED)

    async def __aenter__(self) -> WsClient:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def wait_live(self) -> None:
        """Wait until connected and subscribed (wrap in ``asyncio.timeout`` to bound it)."""
        await self._live_conn()

    @property
    def state(self) -> ConnState:
        """The current connection state."""
        return self._state

    @property
    def status(self) -> WsStatus:
        """A snapshot of state, reconnect count, last message time and counters."""
        return WsStatus(
            self._state,
            self._reconnects,
            self._last_message_at,
            self._latency,
            self._invalid_frames,
            len(self._topics),
        )

    # ----- public requests

    async def subscribe(self, channel: str, callback: Callback, /, **params: Any) -> Subscription:
        """Subscribe to ``channel`` with its ``params``; ``callback(data)`` gets every notification.

        Waits until the connection is live. Raises :class:`SubscriptionError` if rejected,
        :class:`SubscriptionLimitError` past the limit, :class:`ConnectionLost` if the socket drops
        before the reply.
        """
        name, args = normalize_channel(channel, params)
        key = (name, msgspec.json.encode(args, order="sorted"))
        while True:
            self._check_open()
            topic = self._topics.get(key)
            if topic is not None:  # share it; wait for its first subscribe if still in flight
                sub = Subscription(self, topic, callback)
                topic.handles.append(sub)
                try:
                    await topic.settled.wait()
                except BaseException:
                    if (todo := self._detach(sub)) is not None:
                        self._spawn(self._unsubscribe_channel(*todo))
                    raise
                if topic.established and not topic.dead:
                    return sub
                self._detach(sub)
                continue  # the first subscribe failed: try on our own
            if len(self._topics) >= self._max_subscriptions:
                raise SubscriptionLimitError(f"subscribe {name}: already {len(self._topics)} subscriptions, the limit")
            topic = Topic(name, args, key)
            self._topics[key] = topic
            sub = Subscription(self, topic, callback)
            topic.handles.append(sub)
            try:
                conn = await self._live_conn()
                await self._subscribe_topic(conn, topic)
                if topic.dead:  # closed while the reply was in flight
                    raise ClientClosed("WebSocket client is closed")
            except BaseException:
                self._drop_topic(topic)
                raise
            finally:
                topic.settled.set()
            topic.established = True
            return sub

    async def unsubscribe(self, sub: Subscription) -> None:
        """Remove ``sub``. The server subscription is ended (``params`` = the echoed channel names)
        when no other local subscription shares it. Best effort: never raises for a lost socket."""
        if (todo := self._detach(sub)) is not None:
            await self._unsubscribe_channel(*todo)

    async def post(self, kind: Literal["action", "info", "explorer"], payload: Any) -> Any:
        """Send an HTTP body over the socket (section 5.2); returns ``result.data`` or ``result``."""
        self._check_open()
        conn = await self._live_conn()
        result = await conn.request("post", {"type": kind, "payload": payload})
        if isinstance(result, dict) and result.get("data") is not None:
            return result["data"]
        return result

    # ----- internals: state

    def _set_state(self, state: ConnState) -> None:
        if state is self._state:
            return
        self._state = state
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
        if self._on_state is not None:
            try:
                self._on_state(state)
            except Exception:
                log.exception("on_state callback failed")

    def _check_open(self) -> None:
        if self._closing:
            raise ClientClosed("WebSocket client is closed")
        if self._task is None:
            raise WsError("WebSocket client not started: call start() first")

    async def _live_conn(self) -> Connection:
        while True:
            self._check_open()
            conn = self._conn
            if self._state is ConnState.LIVE and conn is not None and conn.lost is None:
                return conn
            await self._changed.wait()

    def _detach(self, sub: Subscription) -> tuple[Connection, str, Topic] | None:
        """Take ``sub`` off its topic; if it was the last handle of a live topic, drop the topic and
        return what to unsubscribe on the server."""
        topic = sub._topic
        if sub not in topic.handles:
            return None
        topic.handles.remove(sub)
        if topic.handles or topic.dead or not topic.established:
            return None
        channel, conn = topic.server_channel, self._conn
        self._drop_topic(topic)
        return (conn, channel, topic) if conn is not None and channel is not None else None

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _drop_topic(self, topic: Topic) -> None:
        topic.dead = True
        if self._topics.get(topic.key) is topic:
            del self._topics[topic.key]
        if self._conn is not None and topic.server_channel is not None:
            self._conn.unroute(topic.server_channel, topic)
        topic.server_channel = None

    # ----- internals: the connection loop

    async def _run(self) -> None:
        attempt = 0
        while True:
            try:
                ws = await connect(
                    self.url,
                    ping_interval=None,  # JSON-RPC pings instead, as the SDKs do
                    ping_timeout=None,
                    open_timeout=self._open_timeout,
                    close_timeout=2.0,
                    max_size=2**24,
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("WebSocket connect to %s failed: %s", self.url, exc)
            else:
                try:
                    conn = Connection(
                        ws, limiter=self._limiter, request_timeout=self._request_timeout, on_invalid=self._invalid
                    )
                    if await self._serve(conn):
                        attempt = 0
                except Exception:
                    log.exception("WebSocket connection to %s failed", self.url)
            self._set_state(ConnState.RECONNECTING if self._ever_live else ConnState.CONNECTING)
            minimum, maximum, jitter = self._backoff
            await self._sleep(backoff_delay(attempt, minimum=minimum, maximum=maximum, jitter=jitter, rng=self._rng))
            attempt += 1

    async def _serve(self, conn: Connection) -> bool:
        """Run one connection until it ends; True if it went live."""
        self._conn = conn
        reader = asyncio.create_task(self._read_loop(conn))
        pinger: asyncio.Task[None] | None = None
        went_live = False
        try:
            if self._ever_live:
                await self._resubscribe(conn)
            if conn.lost is not None:
                return False
            if self._ever_live:
                self._reconnects += 1
            self._ever_live = went_live = True
            self._set_state(ConnState.LIVE)
            pinger = asyncio.create_task(self._ping_loop(conn))
            await reader
            return True
        except (ConnectionLost, RequestTimeout) as exc:
            log.warning("WebSocket %s lost while resubscribing: %s", self.url, exc)
            return went_live
        finally:
            tasks = [t for t in (reader, pinger) if t is not None]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            conn.fail(self._lost_error())
            self._conn = None
            for topic in self._topics.values():
                topic.server_channel = None
            if conn.idle:  # a half-open socket would not answer a close handshake
                conn.ws.transport.abort()
            else:
                with contextlib.suppress(Exception):
                    await conn.ws.close()

    def _lost_error(self) -> ConnectionLost:
        if self._closing:
            return ClientClosed("WebSocket client is closed")
        return ConnectionLost("WebSocket disconnected")

    async def _read_loop(self, conn: Connection) -> None:
        try:
            while True:
                try:
                    async with asyncio.timeout(self._idle_timeout):
                        raw = await conn.ws.recv()
                except TimeoutError:
                    log.warning("WebSocket %s silent for %.1f s; reconnecting", self.url, self._idle_timeout)
                    conn.idle = True
                    return
                self._last_message_at = time.time()
                try:
                    conn.on_frame(raw)
                except Exception:
                    self._invalid_frames += 1
                    log.exception("WebSocket frame not handled: %s", clip(raw))
        except ConnectionClosed as exc:
            log.info("WebSocket %s closed: %s", self.url, exc)
        finally:
            conn.fail(self._lost_error())

    async def _ping_loop(self, conn: Connection) -> None:
        while conn.lost is None:
            await asyncio.sleep(self._ping_interval)
            rid = conn.next_id()
            sent = self._clock()

            def pong(msg: dict[str, Any], sent: float = sent) -> None:
                if msg.get("error") is None:
                    self._latency = self._clock() - sent

            conn.pending[rid] = (None, pong)
            try:
                await conn.send({"jsonrpc": "2.0", "method": "ping", "id": rid})
            except ConnectionLost:
                return

    async def _resubscribe(self, conn: Connection) -> None:
        topics = [t for t in self._topics.values() if t.established]
        results = await asyncio.gather(*(self._subscribe_topic(conn, t) for t in topics), return_exceptions=True)
        for topic, result in zip(topics, results, strict=True):
            if isinstance(result, (ConnectionLost, RequestTimeout)):
                raise result
            if isinstance(result, BaseException):
                log.warning("resubscribe %s %s failed: %s", topic.name, topic.params, result)
            elif result is not None:  # unsubscribed while its resubscribe was in flight
                await self._unsubscribe_channel(conn, result, topic)

    async def _subscribe_topic(self, conn: Connection, topic: Topic) -> str | None:
        """Subscribe ``topic`` on ``conn``; returns the echoed channel only if the topic died meanwhile
        (the caller then unsubscribes it)."""

        def on_reply(msg: dict[str, Any]) -> str | None:
            # Runs in the reader, so the route exists before the next frame (often a snapshot) is read.
            channel = parse_subscribed(topic, msg)
            if topic.dead:
                return channel
            topic.server_channel = channel
            routed = conn.routes.setdefault(channel, [])
            if topic not in routed:  # never routed twice, so never dispatched twice
                routed.append(topic)
            return None

        orphan: str | None = await conn.request("subscribe", {"channel": topic.name, **topic.params}, on_reply)
        return orphan

    async def _unsubscribe_channel(self, conn: Connection, channel: str, topic: Topic) -> None:
        conn.unroute(channel, topic)
        if conn.routes.get(channel) or conn.lost is not None:
            return  # still used by another topic, or the server forgot it with the socket
        try:
            await conn.request("unsubscribe", [channel])
        except WsError as exc:
            log.info("unsubscribe %s: %s", channel, exc)

    # ----- internals: frames the connection cannot use

    def _invalid(self, raw: object, why: str) -> None:
        self._invalid_frames += 1
        level = logging.WARNING if self._invalid_frames <= 20 else logging.DEBUG
        log.log(level, "invalid WebSocket frame (%s): %s", why, clip(raw))
