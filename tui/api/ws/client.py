"""JSON-RPC WebSocket client (protocol-notes section 5): subscribe, unsubscribe, ping, post, reconnect.

A :class:`WsClient` owns one socket at a time. A background task connects and reads frames; a watchdog
(``liveness``) pings while the socket is quiet, calls it stale after ``stale_after`` s without a frame
and dead after ``idle_timeout`` s. When the socket drops or dies the client reconnects on a
``ReconnectSchedule`` (quick while the outage is young, backing off once it is old) and resubscribes
everything with the original channel and params.

Local subscriptions with the same channel and params share one server subscription, so the server never
holds a subscription twice and no notification is delivered twice. A subscriber joining a shared one
receives updates from then on, not a fresh snapshot (a reconnect does bring a fresh one to all).

Client-sent messages are limited to the interface's 2,000 a rolling minute (callers wait, nothing is
dropped) and the server subscriptions to 1,000 (beyond that :class:`SubscriptionLimitError`).

The client is here: its lifecycle, the reconnect loop, subscription sharing. The topics and handles are in
``topics``, one socket's request/reply matching and notification routing in ``connection``.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Coroutine
from types import TracebackType
from typing import Any, Literal, TypeVar

import msgspec

from ..errors import RequestTimeout
from .connection import Connection
from .lean_socket import HandshakeRefused, SocketClosed, open_socket
from .liveness import Liveness
from .protocol import (
    MAX_MESSAGES_PER_MINUTE,
    MAX_SUBSCRIPTIONS,
    Callback,
    ClientClosed,
    Clock,
    ConnectionLost,
    ConnState,
    MessageRateLimiter,
    ReconnectSchedule,
    Sleep,
    SubscriptionLimitError,
    WsError,
    WsStatus,
    clip,
    normalize_channel,
)
from .topics import Subscription, Topic

__all__ = ["WsClient"]

log = logging.getLogger("tui.api.ws")  # one log for the package
T = TypeVar("T")

REFUSING_CLOSE_CODES = (1008, 1013)  # policy violation (over a limit), try again later: back off


def _tell(callback: Callable[[T], object] | None, value: T, name: str) -> None:
    """``callback(value)`` when there is one: a caller's callback that fails is logged, and the client goes on."""
    if callback is not None:
        try:
            callback(value)
        except Exception:
            log.exception("%s callback failed", name)


class WsClient:
    """JSON-RPC WebSocket client with keepalive, reconnect, resubscribe and the interface's limits.

    ``sleep`` and ``clock`` are used by the reconnect schedule and the message-rate limiter (inject them
    in tests); ``wall_clock`` (epoch seconds) stamps ``status.last_message_at``; the ping interval, the stale
    and idle timeouts run on the event loop's own time.
    """

    def __init__(
        self,
        url: str,
        *,
        ping_interval: float = 3.0,
        stale_after: float | None = None,
        idle_timeout: float = 8.0,
        request_timeout: float = 10.0,
        open_timeout: float = 10.0,
        quick_reconnect: tuple[float, float] = (0.25, 0.5),
        quick_for: float = 60.0,
        backoff_min: float = 1.0,
        backoff_max: float = 30.0,
        backoff_jitter: float = 0.5,
        max_subscriptions: int = MAX_SUBSCRIPTIONS,
        max_messages_per_minute: int = MAX_MESSAGES_PER_MINUTE,
        rng: random.Random | None = None,
        sleep: Sleep = asyncio.sleep,
        clock: Clock = time.monotonic,
        wall_clock: Clock = time.time,
        on_state: Callable[[ConnState], object] | None = None,
        on_server_time: Callable[[int], object] | None = None,
    ) -> None:
        """Liveness: a ping after ``ping_interval`` s of quiet (and again every ``ping_interval`` s while it
        lasts), ``stale`` after ``stale_after`` s without any frame (default 5/8 of ``idle_timeout``), dead
        and replaced after ``idle_timeout`` s. Reconnects: ``quick_reconnect`` waits for ``quick_for`` s of an
        outage, then ``backoff_min`` doubling to ``backoff_max`` (see ``ReconnectSchedule``).

        ``on_state`` is called on every state change; ``on_server_time(ms)`` with the exchange's time of
        every pong that carries one (a lower bound of the exchange's clock when it arrives).
        """
        self.url = url
        self._ping_interval = ping_interval
        self._idle_timeout = idle_timeout
        self._stale_after = stale_after if stale_after is not None else idle_timeout * 5 / 8
        self._request_timeout = request_timeout
        self._open_timeout = open_timeout
        self._rng = rng or random.Random()
        self._schedule = ReconnectSchedule(
            quick=quick_reconnect,
            quick_for=quick_for,
            backoff_min=backoff_min,
            backoff_max=backoff_max,
            jitter=backoff_jitter,
            rng=self._rng,
            clock=clock,
        )
        self._max_subscriptions = max_subscriptions
        self._limiter = MessageRateLimiter(max_messages_per_minute, 60.0, clock=clock, sleep=sleep)
        self._sleep = sleep
        self._clock = clock
        self._wall_clock = wall_clock
        self._on_state = on_state
        self._on_server_time = on_server_time
        self._state = ConnState.CLOSED
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._conn: Connection | None = None
        self._liveness: Liveness | None = None
        self._silent_since: float | None = None  # loop time of the last frame of the socket lost last
        self._last_gap: float | None = None
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
        watch = self._liveness
        return WsStatus(
            self._state,
            self._reconnects,
            self._last_message_at,
            self._latency,
            self._invalid_frames,
            len(self._topics),
            watch.quiet_s if watch is not None else None,
            self._last_gap,
        )

    def suspect(self) -> None:
        """Outside evidence that the socket may be dead (the exchange's /info calls timing out): ping it
        now and replace it unless it answers within the ping interval."""
        if self._liveness is not None:
            self._liveness.suspect()

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
                        self._spawn(todo[0].unsubscribe_channel(todo[1], todo[2]))
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
                await conn.subscribe_topic(topic)
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
            await todo[0].unsubscribe_channel(todo[1], todo[2])

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
        _tell(self._on_state, state, "on_state")

    def _check_open(self) -> None:
        if self._closing:
            raise ClientClosed("WebSocket client is closed")
        if self._task is None:
            raise WsError("WebSocket client not started: call start() first")

    async def _live_conn(self) -> Connection:
        while True:
            self._check_open()
            conn = self._conn
            if self._state in (ConnState.LIVE, ConnState.STALE) and conn is not None and conn.lost is None:
                return conn
            await self._changed.wait()

    def _detach(self, sub: Subscription) -> tuple[Connection, str, Topic] | None:
        """Take ``sub`` off its topic; if it was the last handle of a live topic, drop the topic and
        return what to unsubscribe on the server."""
        topic = sub.topic
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
        while True:
            refused = False
            try:
                ws = await open_socket(self.url, open_timeout=self._open_timeout, close_timeout=2.0, max_size=2**24)
            except asyncio.CancelledError:
                raise
            except HandshakeRefused as exc:
                refused = 400 <= exc.status < 500  # up, and says no: back off
                log.warning("WebSocket connect to %s refused: %s", self.url, exc)
            except Exception as exc:
                log.warning("WebSocket connect to %s failed: %s", self.url, exc)
            else:
                try:
                    conn = Connection(
                        ws, limiter=self._limiter, request_timeout=self._request_timeout, on_invalid=self._invalid
                    )
                    if await self._serve(conn):
                        self._schedule.lost()
                    refused = ws.close_code in REFUSING_CLOSE_CODES
                except Exception:
                    log.exception("WebSocket connection to %s failed", self.url)
            self._set_state(ConnState.RECONNECTING if self._ever_live else ConnState.CONNECTING)
            await self._sleep(self._schedule.next_delay(refused=refused))

    async def _serve(self, conn: Connection) -> bool:
        """Run one connection until it ends; True if it went live."""
        self._conn = conn
        watch = self._liveness = Liveness(
            conn,
            ping_interval=self._ping_interval,
            stale_after=self._stale_after,
            dead_after=self._idle_timeout,
            on_stale=self._stale,
            on_pong=self._pong,
        )
        reader = asyncio.create_task(self._read_loop(conn, watch))
        watchdog = asyncio.create_task(watch.run())
        went_live = False
        try:
            if self._ever_live:
                await self._resubscribe(conn)
            if conn.lost is not None:
                return False
            if self._ever_live:
                self._reconnects += 1
                if self._silent_since is not None:
                    self._last_gap = asyncio.get_running_loop().time() - self._silent_since
            self._ever_live = went_live = True
            self._set_state(ConnState.STALE if watch.stale else ConnState.LIVE)
            await asyncio.wait((reader, watchdog), return_when=asyncio.FIRST_COMPLETED)
            return True
        except (ConnectionLost, RequestTimeout) as exc:
            log.warning("WebSocket %s lost while resubscribing: %s", self.url, exc)
            return went_live
        finally:
            tasks = (reader, watchdog)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            conn.fail(self._lost_error())
            if went_live or self._silent_since is None:
                self._silent_since = watch.last_frame
            self._conn = self._liveness = None
            for topic in self._topics.values():
                topic.server_channel = None
            if conn.idle:  # a half-open socket would not answer a close handshake
                conn.ws.abort()
            else:
                try:
                    await conn.ws.close()
                except BaseException as exc:  # failed or cancelled half way: nothing is left open behind us
                    conn.ws.abort()
                    if not isinstance(exc, Exception):
                        raise

    def _stale(self, stale: bool) -> None:
        """The watchdog's verdict on a quiet socket (only a live socket goes stale and back)."""
        if stale and self._state is ConnState.LIVE:
            self._set_state(ConnState.STALE)
        elif not stale and self._state is ConnState.STALE:
            self._set_state(ConnState.LIVE)

    def _pong(self, latency: float, server_ms: int | None) -> None:
        self._latency = latency
        if server_ms is not None:
            _tell(self._on_server_time, server_ms, "on_server_time")

    def _lost_error(self) -> ConnectionLost:
        if self._closing:
            return ClientClosed("WebSocket client is closed")
        return ConnectionLost("WebSocket disconnected")

    async def _read_loop(self, conn: Connection, watch: Liveness) -> None:
        try:
            while True:
                raw = await conn.ws.recv()
                watch.heard()
                self._last_message_at = self._wall_clock()
                try:
                    conn.on_frame(raw)
                except Exception:
                    self._invalid_frames += 1
                    log.exception("WebSocket frame not handled: %s", clip(raw))
        except SocketClosed as exc:
            log.info("WebSocket %s closed: %s", self.url, exc)
        finally:
            conn.fail(self._lost_error())

    async def _resubscribe(self, conn: Connection) -> None:
        topics = [t for t in self._topics.values() if t.established]
        results = await asyncio.gather(*(conn.subscribe_topic(t) for t in topics), return_exceptions=True)
        for topic, result in zip(topics, results, strict=True):
            if isinstance(result, (ConnectionLost, RequestTimeout)):
                raise result
            if isinstance(result, BaseException):
                log.warning("resubscribe %s %s failed: %s", topic.name, topic.params, result)
            elif result is not None:  # unsubscribed while its resubscribe was in flight
                await conn.unsubscribe_channel(result, topic)

    # ----- internals: frames the connection cannot use

    def _invalid(self, raw: object, why: str) -> None:
        self._invalid_frames += 1
        level = logging.WARNING if self._invalid_frames <= 20 else logging.DEBUG
        log.log(level, "invalid WebSocket frame (%s): %s", why, clip(raw))
