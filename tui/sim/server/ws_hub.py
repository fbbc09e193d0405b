"""The WebSocket side of the local exchange: JSON-RPC subscribe, unsubscribe, ping and post (protocol-notes 5).

Channels and their keys are in ``ws_channels``. Each event is encoded and framed once, and the same frame is
written to every subscriber (``ws_transport``); a subscriber that cannot keep up (``MAX_BACKLOG_BYTES`` written
and not read) is disconnected rather than allowed to grow memory without bound. Under an ASGI server other
than the exchange's own, frames go through a queue per connection and Starlette's ``send_text``.

First pictures. The SDKs (Python and TypeScript) register a subscription only after they have handled the
subscribe reply, so a picture sent right behind the reply reaches them before they listen and is lost.
Each subscription's first picture (``pictures``) is therefore sent, freshly built each time:

- right behind the reply, for clients that route a channel as soon as they read its reply (xtui's own);
- again when the client sends its next frame: an SDK sends it only after ``subscribe`` has returned,
  that is after registering, so this copy reaches a client that subscribes one channel after another;
- again ``REPEAT_AFTER_S`` after the reply, for a client that goes quiet after its last subscribe or
  subscribes to several channels at once.

A picture is the current state or an empty batch, so a client that keeps every copy counts nothing twice.

Hostile clients. A binary frame, a frame that is not JSON-RPC or an unknown method is answered with an error
frame and the connection goes on; a frame over ``MAX_FRAME_BYTES`` is closed with 1009; past the per-address
message limit each message is refused with a 429 error frame, and ``REFUSALS_BEFORE_CLOSE`` of them close the
connection with 1008 and the reason; connections and subscriptions past their limits are refused (the
subscriptions of a connection are given back when it ends).

Requests over the socket (``post``) answer with the HTTP body in ``result.data``; a refused action, a bad
query or a rate limit is a JSON-RPC ``error`` (codes in ``PostError``), which the SDKs raise.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect

from .http_posts import internal_error
from .ratelimit import RateLimiter
from .ws_channels import ALL_SYMBOLS, Key, SubscribeError, subscription_key
from .ws_transport import FRAMES_EXTENSION, text_frame

log = logging.getLogger(__name__)
_encoder = msgspec.json.Encoder(decimal_format="number")


def _text(message: Any) -> str:
    """A JSON-RPC message as the text of one frame."""
    return _encoder.encode(message).decode()


QUEUE_FRAMES = 4_096  # frames queued for a connection written through Starlette
MAX_BACKLOG_BYTES = 4 << 20  # written to a connection and not read by its peer: past this it is too slow
REPEAT_AFTER_S = (0.25, 1.0)  # a subscription's picture goes again this long after the reply
MAX_FRAME_BYTES = 1 << 20  # an inbound frame past this is closed with 1009 (a 50-order post is ~15 KB)
REFUSALS_BEFORE_CLOSE = 50  # messages refused for the rate limit, on one connection, before it is closed
CLOSE_WAIT_S = 5.0  # how long a connection being closed has to take its last frames


@dataclass(frozen=True, slots=True)
class Close:
    """Queued after a connection's last frame: the writer closes the socket with this code and reason."""

    code: int
    reason: str


class PostError(Exception):
    """A ``post`` the exchange does not carry out, answered as a JSON-RPC error.

    Codes: 400 a malformed request or a query the exchange cannot answer; 422 an action the exchange
    refuses (``data`` holds the refused envelope); 429 and 418 the rate limits, as over HTTP.
    """

    BAD_REQUEST = 400
    REFUSED = 422

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data

    def error(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": str(self)}
        if self.data is not None:
            err["data"] = self.data
        return err


Post = Callable[[dict[str, Any], str], Awaitable[Any]]


class FrameWriter(Protocol):
    """The exchange's WebSocket protocol, as the hub writes whole frames through it (``ws_transport``)."""

    def write_frame(self, frame: bytes) -> bool: ...
    def limit_backlog(self, most: int, too_slow: Callable[[], None]) -> None: ...


@dataclass(eq=False)
class Connection:
    ws: WebSocket
    ip: str
    frames: FrameWriter | None = None  # None under another ASGI server: the queue and Starlette's send
    queue: asyncio.Queue[str | Close] = field(default_factory=lambda: asyncio.Queue(QUEUE_FRAMES))
    queued: int = 0  # frames in the queue or being sent from it: written frames must wait behind them
    subs: dict[str, Key] = field(default_factory=dict)  # server channel -> key
    names: dict[Key, tuple[str, ...]] = field(default_factory=dict)  # key -> its server channels (publish's way)
    overflowed: bool = False
    repeats: dict[str, list[asyncio.TimerHandle]] = field(default_factory=dict)  # channel -> timed re-sends
    at_next_frame: set[str] = field(default_factory=set)  # channels whose picture goes at the next frame
    refused: int = 0  # messages refused for the rate limit

    def index(self, key: Key) -> None:
        """Bring ``names`` up to date for ``key`` after ``subs`` changed."""
        names = tuple(n for n, k in self.subs.items() if k == key)
        if names:
            self.names[key] = names
        else:
            self.names.pop(key, None)


class Hub:
    """Routes engine events to subscribed connections."""

    def __init__(
        self,
        limiter: RateLimiter,
        resolve_symbol: Callable[[Any], str | None],
        instrument_id: Callable[[str], int],
        snapshot: Callable[[str, str], Any],
        now_ms: Callable[[], int],
        post: Post | None = None,
        network: str = "testnet",
    ) -> None:
        self.limiter = limiter
        self.resolve_symbol = resolve_symbol
        self.instrument_id = instrument_id
        self.snapshot = snapshot
        self.now_ms = now_ms
        self.post = post
        self.network = network
        self.repeat_after_s = REPEAT_AFTER_S  # tests set their own
        self.subscribers: dict[Key, set[Connection]] = defaultdict(set)
        self.connections: set[Connection] = set()
        self.delivered = 0

    def wanted(self, channel: str, key: str) -> bool:
        """Whether anyone listens, so the engine can skip building payloads nobody reads."""
        return bool(self.subscribers.get((channel, key))) or (
            channel in ALL_SYMBOLS and bool(self.subscribers.get((channel, "all")))
        )

    def publish(self, channel: str, key: str, payload: Any) -> None:
        """Queue one notification to every subscriber of (channel, key), and of (channel, "all")."""
        keys = [(channel, key), (channel, "all")] if channel in ALL_SYMBOLS and key != "all" else [(channel, key)]
        # server channel -> the frame's text and its bytes: encoded and framed once, however many receive it
        frames: dict[str, tuple[str, bytes]] = {}
        written = 0
        for k in keys:
            for conn in list(self.subscribers.get(k, ())):
                for server_channel in conn.names.get(k, ()):
                    built = frames.get(server_channel)
                    if built is None:
                        text = _notification(server_channel, payload)
                        built = frames[server_channel] = (text, text_frame(text.encode()))
                    writer = conn.frames
                    if writer is not None and not conn.queued and not conn.overflowed:
                        written += writer.write_frame(built[1])  # _send's first case, inlined: the hot path
                    else:
                        self._send(conn, *built)
        self.delivered += written

    def _send(self, conn: Connection, text: str, frame: bytes | None = None) -> None:
        """Send ``text`` (``frame``: the same, framed already) to ``conn``: written at once where the protocol
        allows and nothing is queued before it, else queued for the writer."""
        if conn.overflowed:
            return
        if conn.frames is not None and not conn.queued:
            # not written: the connection is closing, and its reader is ending it
            if conn.frames.write_frame(frame if frame is not None else text_frame(text.encode())):
                self.delivered += 1
            return
        try:
            conn.queue.put_nowait(text)
            conn.queued += 1
            self.delivered += 1
        except asyncio.QueueFull:
            self._too_slow(conn)

    def _too_slow(self, conn: Connection) -> None:
        log.warning("ws %s cannot keep up; disconnecting", conn.ip)
        self._close(conn, Close(1013, "too slow: the client does not read its frames"))

    def _close(self, conn: Connection, close: Close) -> None:
        """Send nothing more but what is queued, then close with ``close`` (room is made for it if need be)."""
        conn.overflowed = True
        self._drop(conn)
        if conn.queue.full():
            conn.queue.get_nowait()
        conn.queue.put_nowait(close)

    def _drop(self, conn: Connection) -> None:
        for key in conn.subs.values():
            self.subscribers[key].discard(conn)
            if not self.subscribers[key]:
                del self.subscribers[key]
        for name in list(conn.repeats):
            self._end_repeats(conn, name)

    async def serve(self, ws: WebSocket) -> None:
        ip = ws.client.host if ws.client else "?"
        refusal = self.limiter.ws_connect(ip)
        await ws.accept()
        if refusal:
            await ws.send_text(json.dumps({"jsonrpc": "2.0", "error": {"code": 429, "message": refusal}}))
            await ws.close(code=1008, reason=refusal[:120])
            return  # never counted, so nothing to give back
        conn = Connection(ws, ip, frames=ws.scope.get("extensions", {}).get(FRAMES_EXTENSION))
        if conn.frames is not None:  # checked as each millisecond's frames go out
            conn.frames.limit_backlog(MAX_BACKLOG_BYTES, lambda: self._too_slow(conn))
        self.connections.add(conn)
        writer = asyncio.create_task(self._writer(conn))
        try:
            while not conn.overflowed:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                self._pictures_at_next_frame(conn)
                if text is None:  # JSON-RPC travels in text frames; say so and go on
                    reply: dict[str, Any] | None = _error(None, -32600, "binary frame: send JSON-RPC as text")
                else:
                    reply = await self._handled(conn, text)
                if reply is not None:
                    self._send(conn, _text(reply))
            if conn.overflowed:  # the queued frames, then the close; a client that reads nothing gets no longer
                await asyncio.wait({writer}, timeout=CLOSE_WAIT_S)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self._drop(conn)
            self.connections.discard(conn)
            self.limiter.ws_disconnect(ip, len(conn.subs))
            writer.cancel()

    async def _writer(self, conn: Connection) -> None:
        try:
            while True:
                frame = await conn.queue.get()
                if isinstance(frame, Close):
                    log.info("ws %s closed by the exchange: %s", conn.ip, frame.reason)
                    await conn.ws.close(code=frame.code, reason=frame.reason)
                    return
                await conn.ws.send_text(frame)  # JSON-RPC frames are text frames
                conn.queued -= 1
        except (WebSocketDisconnect, RuntimeError, asyncio.CancelledError):
            return
        except Exception:  # a dead socket; the reader notices and cleans up
            log.debug("ws writer stopped", exc_info=True)

    async def _handled(self, conn: Connection, text: str) -> dict[str, Any] | None:
        """``_handle``, with the last resort: a bug is logged and answered as a JSON-RPC internal error, and the
        connection goes on."""
        try:
            return await self._handle(conn, text)
        except Exception as exc:
            log.exception("ws %s: a %d-character frame failed", conn.ip, len(text))
            return _error(_id_of(text), -32603, internal_error("the WebSocket", exc)["message"])

    async def _handle(self, conn: Connection, text: str) -> dict[str, Any] | None:
        refusal = self.limiter.ws_message(conn.ip)
        try:
            msg = json.loads(text)
        except (ValueError, RecursionError):
            return _error(None, -32700, "parse error: the frame is not JSON")
        if not isinstance(msg, dict):
            return _error(None, -32600, "invalid request: expected a JSON object")
        rid = msg.get("id")
        if refusal:
            conn.refused += 1
            if conn.refused >= REFUSALS_BEFORE_CLOSE:
                self._send(conn, _text(_error(rid, 429, refusal)))
                self._close(conn, Close(1008, f"flood: {refusal}"[:120]))
                return None
            return _error(rid, 429, refusal)
        method = msg.get("method")
        params = msg.get("params")
        if method == "ping":
            return _result(rid, {"pong": True, "timestamp": self.now_ms(), "network": self.network})
        if method == "subscribe":
            if not isinstance(params, dict):
                return _error(rid, -32602, "params: expected an object with a channel")
            return self._subscribe(conn, rid, params)
        if method == "unsubscribe":
            return self._unsubscribe(conn, rid, params)
        if method == "post" and self.post is not None:
            if not isinstance(params, dict):
                return _error(rid, -32602, "params: expected {type, payload}")
            try:
                return _result(rid, await self.post(params, conn.ip))
            except PostError as exc:
                return {"jsonrpc": "2.0", "id": rid, "error": exc.error()}
        return _error(rid, -32601, f"unknown method {method!r}")

    def _subscribe(self, conn: Connection, rid: Any, params: dict[str, Any]) -> dict[str, Any] | None:
        """Reply (queued here, so that the picture follows it), send the first picture, plan its repeats."""
        try:
            key, name = subscription_key(params, self.resolve_symbol, self.instrument_id)
        except SubscribeError as exc:
            return _result(rid, {"status": "error", "error": str(exc), "channels": []})
        if name not in conn.subs:
            refusal = self.limiter.ws_subscribe(conn.ip)
            if refusal:
                return _result(rid, {"status": "error", "error": refusal, "channels": []})
        conn.subs[name] = key
        conn.index(key)
        self.subscribers[key].add(conn)
        self._send(conn, _text(_result(rid, {"status": "subscribed", "channels": [name]})))
        self._send_picture(conn, name)
        self._end_repeats(conn, name)
        loop = asyncio.get_running_loop()
        conn.repeats[name] = [loop.call_later(d, self._send_picture, conn, name) for d in self.repeat_after_s]
        conn.at_next_frame.add(name)
        return None

    def _unsubscribe(self, conn: Connection, rid: Any, params: Any) -> dict[str, Any]:
        names = params if isinstance(params, list) else params.get("channels") if isinstance(params, dict) else None
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return _error(rid, -32602, "params: expected an array of channel names")
        gone = []
        for name in names:
            key = conn.subs.pop(name, None)
            if key is not None:
                conn.index(key)
                gone.append(name)
                self._end_repeats(conn, name)
                if key not in conn.names:  # no other channel of this connection holds the key
                    self.subscribers[key].discard(conn)
                    if not self.subscribers[key]:
                        del self.subscribers[key]
        self.limiter.ws_unsubscribe(conn.ip, len(gone))
        return _result(rid, {"status": "unsubscribed", "channels": gone})

    def _send_picture(self, conn: Connection, name: str) -> None:
        """The subscription's picture as it is now (nothing once unsubscribed or dropped)."""
        key = conn.subs.get(name)
        if key is not None and not conn.overflowed:
            self._send(conn, _notification(name, self.snapshot(*key)))

    def _pictures_at_next_frame(self, conn: Connection) -> None:
        names, conn.at_next_frame = conn.at_next_frame, set()
        for name in sorted(names):
            self._send_picture(conn, name)

    def _end_repeats(self, conn: Connection, name: str) -> None:
        for timer in conn.repeats.pop(name, ()):
            timer.cancel()
        conn.at_next_frame.discard(name)


def _id_of(text: str) -> Any:
    """The id of a frame that was read once already (None if it has none), for the answer to a failure."""
    msg = json.loads(text)
    return msg.get("id") if isinstance(msg, dict) else None


def _notification(channel: str, data: Any) -> str:
    return _text({"jsonrpc": "2.0", "method": "subscription", "params": {"channel": channel, "data": data}})


def _result(rid: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def _error(rid: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}
