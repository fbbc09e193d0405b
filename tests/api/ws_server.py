"""A small real JSON-RPC WebSocket server speaking protocol-notes section 5, for the client's tests.

It echoes ``<channel>@<param>`` server channels (``#<connection>`` appended with ``tag_connections``),
keeps each connection's subscriptions as a multiset (a client that subscribed twice would receive every
notification twice), pushes notifications on demand and can drop connections.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed


class RpcServer:
    def __init__(self, *, tag_connections: bool = False) -> None:
        self.tag_connections = tag_connections
        self.received: asyncio.Queue[tuple[int, dict[str, Any]]] = asyncio.Queue()
        self.connected: asyncio.Queue[int] = asyncio.Queue()
        self.conns: dict[int, ServerConnection] = {}
        self.subs: dict[int, list[str]] = {}
        self.reject_status: set[str] = set()  # channels refused with status "failed"
        self.reject_rpc: set[str] = set()  # channels refused with a JSON-RPC error object
        self.answer_pings = True
        self.hold_posts = False
        self.snapshot_on_subscribe = False  # push a snapshot right behind the subscribe reply
        self._count = 0
        self._server: Server | None = None

    async def __aenter__(self) -> RpcServer:
        self._server = await serve(self._handle, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"ws://127.0.0.1:{port}/ws/"

    async def next_message(self, method: str | None = None) -> tuple[int, dict[str, Any]]:
        """The next client message (of ``method`` if given), skipping pings unless asked for."""
        while True:
            async with asyncio.timeout(5):  # a safety net against a hung test, not a wait for time
                conn, msg = await self.received.get()
            if (method is None and msg.get("method") != "ping") or msg.get("method") == method:
                return conn, msg

    async def push(self, channel: str, data: Any, *, method: str = "subscription") -> int:
        """Send a notification on ``channel`` to every subscription holding it; returns how many."""
        frame = json.dumps({"jsonrpc": "2.0", "method": method, "params": {"channel": channel, "data": data}})
        sent = 0
        for n, ws in list(self.conns.items()):
            for _ in range(self.subs[n].count(channel)):
                await ws.send(frame)
                sent += 1
        return sent

    async def send_raw(self, frame: str | bytes) -> None:
        for ws in list(self.conns.values()):
            await ws.send(frame)

    def drop(self) -> None:
        """Abort every connection, as a network failure would."""
        for ws in list(self.conns.values()):
            ws.transport.abort()

    async def _handle(self, ws: ServerConnection) -> None:
        self._count += 1
        n = self._count
        self.conns[n] = ws
        self.subs[n] = []
        self.connected.put_nowait(n)
        try:
            async for raw in ws:
                msg = json.loads(raw)
                self.received.put_nowait((n, msg))
                reply = self._answer(n, msg)
                if reply is not None:
                    await ws.send(json.dumps({"jsonrpc": "2.0", "id": msg["id"], **reply}))
                if self.snapshot_on_subscribe and msg.get("method") == "subscribe" and "result" in (reply or {}):
                    await self.push(reply["result"]["channels"][0], {"update_type": "snapshot"})
        except ConnectionClosed:
            pass
        finally:
            del self.conns[n]

    def _answer(self, n: int, msg: dict[str, Any]) -> dict[str, Any] | None:
        method = msg.get("method")
        if method == "subscribe":
            params = dict(msg["params"])
            channel = params.pop("channel")
            if channel in self.reject_status:
                return {"result": {"status": "failed", "error": f"unknown channel {channel}"}}
            if channel in self.reject_rpc:
                return {"error": {"code": -32602, "message": "invalid params"}}
            name = channel + "".join(f"@{v}" for v in dict.fromkeys(params.values()))
            if self.tag_connections:
                name += f"#{n}"
            self.subs[n].append(name)
            return {"result": {"status": "subscribed", "channels": [name]}}
        if method == "unsubscribe":
            for name in msg["params"]:
                self.subs[n].remove(name)
            return {"result": {"status": "unsubscribed", "channels": msg["params"]}}
        if method == "ping":
            return {"result": {"pong": True, "timestamp": int(time.time() * 1000)}} if self.answer_pings else None
        if method == "post":
            return None if self.hold_posts else {"result": {"data": {"echo": msg["params"]["payload"]}}}
        return {"error": {"code": -32601, "message": "method not found"}}
