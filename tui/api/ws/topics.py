"""Subscription bookkeeping: the server subscriptions (topics) and the local handles that share them."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Protocol

from .protocol import Callback, SubscriptionError, clip

__all__ = ["Subscription", "Topic", "parse_subscribed"]


class _Owner(Protocol):
    """What a handle needs of its client (``WsClient``): to be unsubscribed."""

    async def unsubscribe(self, sub: Subscription) -> None: ...


class Topic:
    """One server subscription (channel + params) and the local handles on it."""

    __slots__ = ("dead", "established", "handles", "key", "name", "params", "server_channel", "settled")

    def __init__(self, name: str, params: dict[str, Any], key: tuple[str, bytes]) -> None:
        self.name = name
        self.params = params
        self.key = key
        self.server_channel: str | None = None
        self.handles: list[Subscription] = []
        self.established = False  # acknowledged once; resubscribed after a reconnect
        self.dead = False  # unsubscribed or failed; never routed again
        self.settled = asyncio.Event()  # the first subscribe finished, either way


class Subscription:
    """A local subscription handle: a callback on one channel with its params."""

    __slots__ = ("_client", "callback", "topic")

    def __init__(self, client: _Owner, topic: Topic, callback: Callback) -> None:
        self._client = client
        self.topic = topic
        self.callback = callback

    @property
    def name(self) -> str:
        """The channel name sent (aliases normalised)."""
        return self.topic.name

    @property
    def params(self) -> Mapping[str, Any]:
        """The channel params sent next to ``channel``."""
        return self.topic.params

    @property
    def channel(self) -> str | None:
        """The server channel echoed on the current connection; None while disconnected."""
        return self.topic.server_channel

    @property
    def active(self) -> bool:
        """False once unsubscribed or the client closed."""
        return not self.topic.dead and self in self.topic.handles

    async def unsubscribe(self) -> None:
        """Stop receiving; same as ``client.unsubscribe(self)``."""
        await self._client.unsubscribe(self)


def parse_subscribed(topic: Topic, msg: dict[str, Any]) -> str:
    """The server channel a subscribe reply echoes for ``topic``; raise ``SubscriptionError`` if refused."""
    err = msg.get("error")
    if err is not None:
        if isinstance(err, dict):
            code = err.get("code")
            reason = str(err.get("message", err))
            raise SubscriptionError(topic.name, topic.params, reason, code if isinstance(code, int) else None)
        raise SubscriptionError(topic.name, topic.params, str(err))
    result = msg.get("result")
    if not isinstance(result, dict):
        raise SubscriptionError(topic.name, topic.params, f"malformed reply {clip(result)}")
    status = result.get("status")
    if status in ("failed", "error") or (status is None and result.get("error")):
        raise SubscriptionError(topic.name, topic.params, str(result.get("error") or status))
    channels = result.get("channels")
    if status not in (None, "subscribed") or not (
        isinstance(channels, list) and channels and isinstance(channels[0], str)
    ):
        raise SubscriptionError(topic.name, topic.params, f"malformed reply {clip(result)}")
    return channels[0]
