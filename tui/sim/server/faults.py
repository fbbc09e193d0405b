"""Faults on the wire (``xtui sim --faults``): an ASGI layer in front of the exchange.

HTTP: each POST to /exchange, /info or /explorer waits its drawn latency before it is handled; a drawn /info
timeout is held unanswered for ``INFO_HANG_MS`` (or until the client gives up), then answered 504 saying it was
an injected fault. Refusals of /exchange actions and partial fills are decided where actions are applied
(``LocalExchange``): they need the parsed action.

WebSocket: the hub writes through ASGI ``send`` here (the frames extension is hidden from it), so each frame can
be held: subscription pushes by the feed latency, answers to requests by the acknowledgement latency, each
stream in its own order. A connection is closed with 1012 and a reason naming the fault ``ws_drop_every_s``
after it opened. A peer that lets more than ``MAX_HELD_FRAMES`` pile up is closed as too slow, as the hub does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from typing import Any

import msgspec
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .fault_dice import FaultDice, Waits
from .ws_transport import FRAMES_EXTENSION

__all__ = ["INFO_HANG_MS", "FaultyWire", "fault_message"]

log = logging.getLogger(__name__)
INFO_HANG_MS = 30_000  # past the timeout of every client we know (the SDKs' and xtui's are 10 s or less)
MAX_HELD_FRAMES = 10_000
DELAYED_PATHS = frozenset({"/exchange", "/info", "/explorer"})
_SUBSCRIPTION = '"method":"subscription"'


def fault_message(what: str) -> str:
    """Every injected fault says so, so that nobody takes it for the exchange's own behaviour."""
    return f"injected fault (xtui sim --faults): {what}"


class FaultyWire:
    """ASGI middleware injecting the plan's wire faults into ``app``."""

    def __init__(self, app: ASGIApp, dice: FaultDice, waits: Waits) -> None:
        self.app = app
        self.dice = dice
        self.waits = waits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] in DELAYED_PATHS:
            if scope["path"] == "/info" and self.dice.info_timeout():
                await self._hang(receive, send)
                return
            delay = self.dice.http_ms()
            if delay:
                await self.waits.until(self.waits.now_ms() + delay)
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket" and self._touches_websocket():
            extensions = {k: v for k, v in scope.get("extensions", {}).items() if k != FRAMES_EXTENSION}
            wire = _HeldFrames(send, self.dice, self.waits)
            try:
                await self.app({**scope, "extensions": extensions}, receive, wire.send)
            finally:
                wire.stop()
        else:
            await self.app(scope, receive, send)

    def _touches_websocket(self) -> bool:
        plan = self.dice.plan
        return bool(plan.ws_feed or plan.ws_ack or plan.ws_drop_every_s)

    async def _hang(self, receive: Receive, send: Send) -> None:
        """Hold the request past any client's timeout; a client still there then gets a 504 that says why."""
        gone = asyncio.ensure_future(_disconnected(receive))
        hang = asyncio.ensure_future(self.waits.until(self.waits.now_ms() + INFO_HANG_MS))
        try:
            await asyncio.wait({gone, hang}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (gone, hang):
                task.cancel()
        if gone.done() and not gone.cancelled():
            return
        body = msgspec.json.encode(
            {"type": "error", "message": fault_message(f"/info timed out: held {INFO_HANG_MS // 1000} s unanswered")}
        )
        headers = [(b"content-length", str(len(body)).encode()), (b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 504, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


class _HeldFrames:
    """A WebSocket connection's sends, held by the drawn latencies (pushes and answers apart, each in order),
    and its drop after ``ws_drop_every_s``."""

    def __init__(self, send: Send, dice: FaultDice, waits: Waits) -> None:
        self._send = send
        self.dice = dice
        self.waits = waits
        self._streams = {"feed": _Stream(), "ack": _Stream()}
        self._tasks: list[asyncio.Task[None]] = []
        self.closed = False

    async def send(self, message: Message) -> None:
        if self.closed:
            return  # dropped by a fault: what the app still writes goes nowhere, as on a dead socket
        kind = message["type"]
        if kind == "websocket.accept":
            await self._send(message)
            every = self.dice.plan.ws_drop_every_s
            if every:
                self._tasks.append(asyncio.create_task(self._drop_after(every * 1000)))
            return
        if kind == "websocket.send":
            text = message.get("text")
            feed = isinstance(text, str) and _SUBSCRIPTION in text[:64]
            stream = self._streams["feed" if feed else "ack"]
            delay = self.dice.ws_feed_ms() if feed else self.dice.ws_ack_ms()
            if not delay and not stream.frames:
                await self._send(message)
                return
            if len(stream.frames) >= MAX_HELD_FRAMES:
                await self._close(1013, "too slow: the client does not read its frames")
                return
            due = max(self.waits.now_ms() + delay, stream.last_due)
            stream.last_due = due
            stream.frames.append((due, message))
            if stream.pump is None or stream.pump.done():
                stream.pump = asyncio.create_task(self._pump(stream))
                self._tasks.append(stream.pump)
            return
        if kind == "websocket.close":  # the hub's own close goes after what it sent before
            for stream in self._streams.values():
                if stream.pump is not None:
                    await asyncio.wait({stream.pump})
        await self._send(message)

    async def _pump(self, stream: _Stream) -> None:
        while stream.frames and not self.closed:
            due, message = stream.frames[0]
            await self.waits.until(due)
            if self.closed:  # dropped meanwhile: the frame dies with the connection
                return
            stream.frames.popleft()
            try:
                await self._send(message)
            except Exception:  # the peer is gone: the hub's reader sees the disconnect and ends the connection
                log.debug("a held frame found its connection gone", exc_info=True)
                return

    async def _drop_after(self, ms: int) -> None:
        await self.waits.until(self.waits.now_ms() + ms)
        await self._close(1012, fault_message(f"connection dropped {ms // 1000} s after it opened")[:120])

    async def _close(self, code: int, reason: str) -> None:
        self.closed = True
        with contextlib.suppress(Exception):  # already gone: nothing to close
            await self._send({"type": "websocket.close", "code": code, "reason": reason})

    def stop(self) -> None:
        self.closed = True
        for task in self._tasks:
            task.cancel()


class _Stream:
    __slots__ = ("frames", "last_due", "pump")

    def __init__(self) -> None:
        self.frames: deque[tuple[float, Any]] = deque()
        self.last_due = 0.0
        self.pump: asyncio.Task[None] | None = None
