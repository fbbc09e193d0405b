"""The WebSocket protocol's vocabulary: limits, states, errors, channel aliases, backoff, the message limiter.

Kept apart so that ``client``, ``topics`` and ``connection`` hold only the connection logic.
"""

from __future__ import annotations

import asyncio
import enum
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgspec

from ..errors import ClientError, TransportError
from ..limits import Window

__all__ = [
    "CHANNEL_ALIASES",
    "MAX_MESSAGES_PER_MINUTE",
    "MAX_SUBSCRIPTIONS",
    "Callback",
    "ClientClosed",
    "Clock",
    "ConnState",
    "ConnectionLost",
    "Hook",
    "MessageRateLimiter",
    "ReconnectSchedule",
    "RpcError",
    "Sleep",
    "SubscriptionError",
    "SubscriptionLimitError",
    "WsError",
    "WsStatus",
    "backoff_delay",
    "clip",
    "normalize_channel",
    "result_of",
]

MAX_SUBSCRIPTIONS = 1_000
MAX_MESSAGES_PER_MINUTE = 2_000

# Older or alternative channel names (protocol-notes 5.3) → the current ones.
CHANNEL_ALIASES: Mapping[str, str] = {
    "positions": "position",
    "trade": "trades",
    "agents": "agent",
    "accountSummary": "account_summary",
    "accountOrderUpdates": "orders",
    "order": "orders",
}

Callback = Callable[[Any], object]
Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]
Hook = Callable[[dict[str, Any]], Any]  # reads a reply: its value, or raises


class ConnState(enum.StrEnum):
    """Connection state as the status bar shows it."""

    CONNECTING = "connecting"  # never live yet
    LIVE = "live"  # connected and (re)subscribed
    STALE = "stale"  # connected, but nothing heard for a while: maybe dead
    RECONNECTING = "reconnecting"  # was live, socket lost, trying again
    CLOSED = "closed"  # not started, or closed by the owner


class WsError(ClientError):
    """Base of the errors only the WebSocket client raises (a request's timeout is ``RequestTimeout``)."""


class ConnectionLost(WsError, TransportError):
    """The socket dropped while a request was pending (or before it could be sent)."""


class ClientClosed(ConnectionLost):
    """The client was closed by its owner."""


class RpcError(WsError):
    """A JSON-RPC ``error`` object in a reply."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"JSON-RPC Error {code}: {message}")
        self.code = code
        self.message = message
        self.data = data


class SubscriptionError(WsError):
    """The server rejected a subscribe request, or its reply could not be understood."""

    def __init__(self, channel: str, params: Mapping[str, Any], reason: str, code: int | None = None) -> None:
        super().__init__(f"subscribe {channel} {dict(params)} rejected: {reason}")
        self.channel = channel
        self.params = dict(params)
        self.reason = reason
        self.code = code


class SubscriptionLimitError(WsError):
    """Subscribing would exceed the interface's subscription limit; nothing was sent."""


class WsStatus(msgspec.Struct, frozen=True):
    """A snapshot of the connection for the UI: state, reconnects, last message (epoch seconds)."""

    state: ConnState
    reconnects: int
    last_message_at: float | None
    latency: float | None  # seconds from the last answered ping to its reply
    invalid_frames: int
    subscriptions: int  # server subscriptions held (distinct channel + params)
    quiet_s: float | None = None  # seconds since the last frame of the socket in use (None: no socket)
    last_gap_s: float | None = None  # the last outage: from the old socket's last frame to live again


def normalize_channel(channel: str, params: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Return the current channel name for ``channel`` (aliases of section 5.3) and its params.

    ``position`` takes ``user`` and ``address`` with the same value; either one fills in the other.
    """
    name = CHANNEL_ALIASES.get(channel, channel)
    out = dict(params)
    if name == "position":
        who = out.get("user", out.get("address"))
        if who is not None:
            out.setdefault("user", who)
            out.setdefault("address", who)
    return name, out


def backoff_delay(attempt: int, *, minimum: float, maximum: float, jitter: float, rng: random.Random) -> float:
    """Delay before reconnect attempt ``attempt`` (0-based): ``minimum`` doubling up to ``maximum``,
    less a random fraction of up to ``jitter`` of it."""
    base = min(maximum, minimum * 2.0 ** min(attempt, 64))
    return base * (1.0 - jitter * rng.random())


class ReconnectSchedule:
    """The waits between reconnect attempts: quick while an outage is young, backing off once it is old.

    The schedule (defaults): the first attempt after a loss at once or within 0.25 s; then every 0.25-0.5 s
    until the outage is a minute old, so the socket is live again within a second of the server's return
    for 2-4 refused connects a second (a SYN each); then 1, 2, 4, 8, 16, 30, 30 ... s, each less up to
    half. Every wait is jittered, so clients that lost the same server do not come back in lockstep. A
    server that answers but refuses the upgrade (a 4xx: over a limit, banned) is up and says no, so its
    refusals go straight to the slow steps: retrying it quickly would be a storm.
    """

    def __init__(
        self,
        *,
        quick: tuple[float, float] = (0.25, 0.5),
        quick_for: float = 60.0,
        backoff_min: float = 1.0,
        backoff_max: float = 30.0,
        jitter: float = 0.5,
        rng: random.Random,
        clock: Clock,
    ) -> None:
        """``quick`` is capped at ``backoff_max``, so a small cap (tests) keeps every wait small."""
        top = min(quick[1], backoff_max)
        self.quick = (min(quick[0], top), top)
        self.quick_for = quick_for
        self._slow = (backoff_min, backoff_max, jitter)
        self._rng = rng
        self._clock = clock
        self._since = clock()
        self._attempts = 0
        self._slow_attempts = 0

    def lost(self) -> None:
        """An outage begins now (the socket went down after being live)."""
        self._since = self._clock()
        self._attempts = self._slow_attempts = 0

    def next_delay(self, *, refused: bool = False) -> float:
        """Seconds to wait before the next attempt; ``refused``: the server answered the last one with a 4xx."""
        first, self._attempts = self._attempts == 0, self._attempts + 1
        young = self._clock() - self._since < self.quick_for
        if young and not refused:
            low, high = self.quick
            return self._rng.uniform(0.0, low) if first else self._rng.uniform(low, high)
        minimum, maximum, jitter = self._slow
        attempt, self._slow_attempts = self._slow_attempts, self._slow_attempts + 1
        return backoff_delay(attempt, minimum=minimum, maximum=maximum, jitter=jitter, rng=self._rng)


class MessageRateLimiter:
    """At most ``limit`` messages in any rolling ``window`` seconds: callers beyond it wait, in order."""

    def __init__(
        self, limit: int, window: float = 60.0, *, clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep
    ) -> None:
        self._window = Window(limit, window)
        self._clock = clock
        self._sleep = sleep
        self._lock = asyncio.Lock()  # first come, first sent

    async def acquire(self) -> None:
        """Wait until one more message fits in the window, and count it."""
        async with self._lock:
            while (wait := self._window.wait_for_slot(self._clock())) > 0:
                await self._sleep(wait)
            self._window.add(self._clock())

    def used(self) -> int:
        """Messages counted in the current window."""
        return self._window.used(self._clock())


def result_of(msg: dict[str, Any]) -> Any:
    """The ``result`` of a reply, or raise the JSON-RPC error it carries."""
    err = msg.get("error")
    if err is not None:
        if isinstance(err, dict):
            code = err.get("code")
            raise RpcError(code if isinstance(code, int) else -1, str(err.get("message", "")), err.get("data"))
        raise RpcError(-1, str(err))
    if "result" not in msg:
        raise WsError(f"malformed reply: {clip(msg)}")
    return msg["result"]


def clip(value: object, n: int = 200) -> str:
    """``repr(value)``, cut to ``n`` characters for a log line or an error message."""
    text = repr(value)
    return text if len(text) <= n else text[:n] + "…"
