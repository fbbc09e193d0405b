"""The WebSocket side of the local exchange: JSON-RPC subscribe, unsubscribe, ping (protocol-notes 5).

A subscription is keyed by (channel, key): the instrument symbol for market channels, the lower-case
user address for account channels, ``"<instrument_id>:<chart_type>:<resolution>"`` for the chart and
``""`` for blocks and transactions. The server echoes ``<channel>@<param>`` as the channel name.
Each event is encoded once and queued to every subscriber; a subscriber that cannot keep up is
disconnected rather than allowed to grow memory without bound.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect

from .ratelimit import RateLimiter

log = logging.getLogger(__name__)
_encode = msgspec.json.Encoder(decimal_format="number").encode

ALIASES = {
    "trade": "trades",
    "positions": "position",
    "agents": "agent",
    "accountSummary": "account_summary",
    "accountOrderUpdates": "orders",
    "order": "orders",
    "fundingPayments": "funding_payments",
}
MARKET = {"ticker", "mids", "bbo", "orderbook", "trades"}
ACCOUNT = {"orders", "position", "fills", "funding_payments", "account_summary", "agent"}
GLOBAL = {"blocks", "transactions", "index"}
CHANNELS = MARKET | ACCOUNT | GLOBAL | {"chart"}
QUEUE_FRAMES = 4_096

Key = tuple[str, str]


class SubscribeError(ValueError):
    pass


def subscription_key(
    params: dict[str, Any], resolve_symbol: Callable[[Any], str | None], instrument_id: Callable[[str], int]
) -> tuple[Key, str]:
    """(channel, key) and the echoed server channel name for subscribe ``params``."""
    raw = params.get("channel")
    if not isinstance(raw, str):
        raise SubscribeError("params.channel: missing or not a string")
    channel = ALIASES.get(raw, raw)
    if channel not in CHANNELS:
        raise SubscribeError(f"unknown channel {raw!r}")
    if channel in MARKET:
        sym = params.get("symbol", params.get("instrument_id", params.get("instrumentId")))
        symbol = resolve_symbol(sym)
        if symbol is None and not (channel in ("ticker", "mids", "bbo") and sym == "all"):
            raise SubscribeError(f"params.symbol: unknown instrument {sym!r}")
        key = symbol or "all"
        return (channel, key), f"{channel}@{key}"
    if channel in ACCOUNT:
        user = params.get("user", params.get("address"))
        if not isinstance(user, str) or not user.startswith("0x") or len(user) != 42:
            raise SubscribeError("params.user: expected an address")
        return (channel, user.lower()), f"{channel}@{user}"
    if channel == "chart":
        ident = params.get("instrument_id", params.get("symbol"))
        symbol = resolve_symbol(ident)
        chart_type = params.get("chart_type", "ltp")
        resolution = str(params.get("resolution", "1"))
        if symbol is None:
            raise SubscribeError(f"params.instrument_id: unknown instrument {ident!r}")
        if chart_type not in ("mark", "index", "ltp"):
            raise SubscribeError("params.chart_type: must be mark, index or ltp")
        if resolution not in ("1", "5", "15", "30", "60", "240", "1D", "1W"):
            raise SubscribeError("params.resolution: must be 1, 5, 15, 30, 60, 240, 1D or 1W")
        # the engine keys candles by instrument id; the echoed name keeps the readable symbol
        return (
            channel,
            f"{instrument_id(symbol)}:{chart_type}:{resolution}",
        ), f"chart@{symbol}:{chart_type}:{resolution}"
    return (channel, ""), channel


@dataclass(eq=False)
class Connection:
    ws: WebSocket
    ip: str
    queue: asyncio.Queue[bytes | None] = field(default_factory=lambda: asyncio.Queue(QUEUE_FRAMES))
    subs: dict[str, Key] = field(default_factory=dict)  # server channel -> key
    overflowed: bool = False


class Hub:
    """Routes engine events to subscribed connections."""

    def __init__(
        self,
        limiter: RateLimiter,
        resolve_symbol: Callable[[Any], str | None],
        instrument_id: Callable[[str], int],
        snapshot: Callable[[str, str], Any],
        now_ms: Callable[[], int],
        post: Callable[[dict[str, Any], str], Any] | None = None,
    ) -> None:
        self.limiter = limiter
        self.resolve_symbol = resolve_symbol
        self.instrument_id = instrument_id
        self.snapshot = snapshot
        self.now_ms = now_ms
        self.post = post
        self.subscribers: dict[Key, set[Connection]] = defaultdict(set)
        self.connections: set[Connection] = set()
        self.delivered = 0

    def wanted(self, channel: str, key: str) -> bool:
        """Whether anyone listens, so the engine can skip building payloads nobody reads."""
        return bool(self.subscribers.get((channel, key)))

    def publish(self, channel: str, key: str, payload: Any) -> None:
        """Queue one notification to every subscriber of (channel, key)."""
        subs = self.subscribers.get((channel, key))
        if not subs:
            return
        for conn in list(subs):
            for server_channel, k in conn.subs.items():
                if k == (channel, key):
                    frame = _encode(
                        {
                            "jsonrpc": "2.0",
                            "method": "subscription",
                            "params": {"channel": server_channel, "data": payload},
                        }
                    )
                    self._send(conn, frame)

    def _send(self, conn: Connection, frame: bytes) -> None:
        try:
            conn.queue.put_nowait(frame)
            self.delivered += 1
        except asyncio.QueueFull:
            if not conn.overflowed:
                conn.overflowed = True
                log.warning("ws %s cannot keep up; disconnecting", conn.ip)
                self._drop(conn)
                conn.queue.get_nowait()
                conn.queue.put_nowait(None)

    def _drop(self, conn: Connection) -> None:
        for key in conn.subs.values():
            self.subscribers[key].discard(conn)
            if not self.subscribers[key]:
                del self.subscribers[key]

    async def serve(self, ws: WebSocket) -> None:
        ip = ws.client.host if ws.client else "?"
        refusal = self.limiter.ws_connect(ip)
        await ws.accept()
        if refusal:
            await ws.send_text(json.dumps({"jsonrpc": "2.0", "error": {"code": 429, "message": refusal}}))
            await ws.close(code=1008, reason=refusal[:120])
            return  # never counted, so nothing to give back
        conn = Connection(ws, ip)
        self.connections.add(conn)
        writer = asyncio.create_task(self._writer(conn))
        try:
            while True:
                text = await ws.receive_text()
                reply = await self._handle(conn, text)
                if reply is not None:
                    self._send(conn, _encode(reply))
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
                if frame is None:
                    await conn.ws.close(code=1013, reason="too slow")
                    return
                await conn.ws.send_text(frame.decode())  # JSON-RPC frames are text frames
        except (WebSocketDisconnect, RuntimeError, asyncio.CancelledError):
            return
        except Exception:  # a dead socket; the reader notices and cleans up
            log.debug("ws writer stopped", exc_info=True)

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
            return _error(rid, 429, refusal)
        method = msg.get("method")
        params = msg.get("params")
        if method == "ping":
            return {"jsonrpc": "2.0", "id": rid, "result": {"pong": True, "timestamp": self.now_ms()}}
        if method == "subscribe":
            if not isinstance(params, dict):
                return _error(rid, -32602, "params: expected an object with a channel")
            return self._subscribe(conn, rid, params)
        if method == "unsubscribe":
            names = (
                params
                if isinstance(params, list)
                else (params or {}).get("channels")
                if isinstance(params, dict)
                else None
            )
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                return _error(rid, -32602, "params: expected an array of channel names")
            gone = []
            for name in names:
                key = conn.subs.pop(name, None)
                if key is not None:
                    gone.append(name)
                    if not any(k == key for k in conn.subs.values()):
                        self.subscribers[key].discard(conn)
                        if not self.subscribers[key]:
                            del self.subscribers[key]
            self.limiter.ws_unsubscribe(conn.ip, len(gone))
            return {"jsonrpc": "2.0", "id": rid, "result": {"status": "unsubscribed", "channels": gone}}
        if method == "post" and self.post is not None:
            if not isinstance(params, dict):
                return _error(rid, -32602, "params: expected {type, payload}")
            return {"jsonrpc": "2.0", "id": rid, "result": await self.post(params, conn.ip)}
        return _error(rid, -32601, f"unknown method {method!r}")

    def _subscribe(self, conn: Connection, rid: Any, params: dict[str, Any]) -> dict[str, Any] | None:
        """Reply (queued here, so that the snapshot follows it) and send the first payload, if any."""
        try:
            key, name = subscription_key(params, self.resolve_symbol, self.instrument_id)
        except SubscribeError as exc:
            return {"jsonrpc": "2.0", "id": rid, "result": {"status": "error", "error": str(exc), "channels": []}}
        if name not in conn.subs:
            refusal = self.limiter.ws_subscribe(conn.ip)
            if refusal:
                return {"jsonrpc": "2.0", "id": rid, "result": {"status": "error", "error": refusal, "channels": []}}
        conn.subs[name] = key
        self.subscribers[key].add(conn)
        reply = {"jsonrpc": "2.0", "id": rid, "result": {"status": "subscribed", "channels": [name]}}
        self._send(conn, _encode(reply))
        first = self.snapshot(*key)
        if first is not None:
            self._send(
                conn,
                _encode({"jsonrpc": "2.0", "method": "subscription", "params": {"channel": name, "data": first}}),
            )
        return None


def _error(rid: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}
