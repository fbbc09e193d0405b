"""One socket's JSON-RPC session: request ids, replies matched to their requests, notifications routed to topics."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import msgspec

from ..errors import RequestTimeout
from .lean_socket import Socket, SocketClosed
from .protocol import ConnectionLost, Hook, MessageRateLimiter, WsError, clip, result_of
from .topics import Topic, parse_subscribed

__all__ = ["Connection"]

# Numbers with a fraction arrive as Decimal: positions, fills and balances stay exact; panes draw floats.
_decode_exact = msgspec.json.Decoder(float_hook=Decimal).decode
log = logging.getLogger("tui.api.ws")  # one log for the package


class Connection:
    """Per-socket state: request ids, pending replies, routes from server channel to topics.

    ``limiter`` is the client's, shared by its sockets; ``on_invalid(raw, why)`` counts and logs a frame
    the session cannot use.
    """

    def __init__(
        self,
        ws: Socket,
        *,
        limiter: MessageRateLimiter,
        request_timeout: float,
        on_invalid: Callable[[object, str], None],
    ) -> None:
        self.ws = ws
        self._ids = itertools.count(1)
        self._limiter = limiter
        self._request_timeout = request_timeout
        self._on_invalid = on_invalid
        self.pending: dict[str, tuple[asyncio.Future[Any] | None, Hook]] = {}
        self.routes: dict[str, list[Topic]] = {}
        self.lost: ConnectionLost | None = None
        self.idle = False

    def next_id(self) -> str:
        return str(next(self._ids))

    def fail(self, exc: ConnectionLost) -> None:
        if self.lost is None:
            self.lost = exc
        for fut, _ in self.pending.values():
            if fut is not None and not fut.done():
                fut.set_exception(type(exc)(str(exc)))
        self.pending.clear()

    def unroute(self, channel: str, topic: Topic) -> None:
        topics = self.routes.get(channel)
        if topics is not None and topic in topics:
            topics.remove(topic)
            if not topics:
                del self.routes[channel]

    # ----- requests

    async def request(self, method: str, params: Any, hook: Hook = result_of) -> Any:
        rid = self.next_id()
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[rid] = (fut, hook)
        try:
            await self.send({"jsonrpc": "2.0", "method": method, "params": params, "id": rid})
            try:
                async with asyncio.timeout(self._request_timeout):
                    return await fut
            except TimeoutError:
                raise RequestTimeout(f"no reply to {method} (id {rid}) in {self._request_timeout} s") from None
        finally:
            self.pending.pop(rid, None)
            if fut.done() and not fut.cancelled():
                fut.exception()  # failed by a dropped socket while we waited to send: already reported

    async def send(self, msg: dict[str, Any]) -> None:
        await self._limiter.acquire()
        if self.lost is not None:
            raise type(self.lost)(str(self.lost))
        try:
            await self.ws.send_text(msgspec.json.encode(msg))
        except SocketClosed as exc:
            raise ConnectionLost(f"WebSocket disconnected: {exc}") from exc

    async def subscribe_topic(self, topic: Topic) -> str | None:
        """Subscribe ``topic`` here; returns the echoed channel only if the topic died meanwhile (the
        caller then unsubscribes it)."""

        def on_reply(msg: dict[str, Any]) -> str | None:
            # Runs in the reader, so the route exists before the next frame (often a snapshot) is read.
            channel = parse_subscribed(topic, msg)
            if topic.dead:
                return channel
            topic.server_channel = channel
            routed = self.routes.setdefault(channel, [])
            if topic not in routed:  # never routed twice, so never dispatched twice
                routed.append(topic)
            return None

        orphan: str | None = await self.request("subscribe", {"channel": topic.name, **topic.params}, on_reply)
        return orphan

    async def unsubscribe_channel(self, channel: str, topic: Topic) -> None:
        """End ``topic``'s route; unsubscribe ``channel`` on the server when no other topic uses it."""
        self.unroute(channel, topic)
        if self.routes.get(channel) or self.lost is not None:
            return  # still used by another topic, or the server forgot it with the socket
        try:
            await self.request("unsubscribe", [channel])
        except WsError as exc:
            log.info("unsubscribe %s: %s", channel, exc)

    # ----- frames

    def on_frame(self, raw: str | bytes) -> None:
        try:
            msg = _decode_exact(raw)
        except msgspec.DecodeError:
            return self._on_invalid(raw, "not JSON")
        if not isinstance(msg, dict):
            return self._on_invalid(raw, "not an object")
        method = msg.get("method")
        if method is None and "id" in msg:
            return self._on_reply(msg)
        if method in ("subscription", "event"):
            params = msg.get("params")
            if not isinstance(params, dict) or not isinstance(params.get("channel"), str) or "data" not in params:
                return self._on_invalid(raw, "bad notification")
            for topic in list(self.routes.get(params["channel"], ())):
                for sub in list(topic.handles):
                    try:
                        sub.callback(params["data"])
                    except Exception:
                        log.exception("subscription callback for %s failed", params["channel"])
            return None
        return self._on_invalid(raw, "unknown message")

    def _on_reply(self, msg: dict[str, Any]) -> None:
        rid = msg["id"]
        if isinstance(rid, int) and not isinstance(rid, bool):
            rid = str(rid)
        entry = self.pending.pop(rid, None) if isinstance(rid, str) else None
        if entry is None:
            log.debug("reply to no pending request: %s", clip(msg))
            return
        fut, hook = entry
        if "result" not in msg and "error" not in msg:
            self._on_invalid(msg, "reply without result or error")
        try:
            value = hook(msg)
        except Exception as exc:
            if fut is not None and not fut.done():
                fut.set_exception(exc)
            return
        if fut is not None and not fut.done():
            fut.set_result(value)
