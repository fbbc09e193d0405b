"""The exchange writes each event's frame once for all its subscribers (``ws_transport``): the frames are the
ones the websockets library would write, a subscriber that reads nothing is closed as too slow instead of
growing the exchange's memory, and under another ASGI server the frames still arrive (through Starlette)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import socket
from typing import Any

import pytest
import uvicorn
from websockets.asyncio.client import connect
from websockets.frames import Frame, Opcode

from tests.conftest import ALICE_KEY
from tests.waiting import until
from tui.api import wire
from tui.api.client import Client
from tui.api.signing import Signer
from tui.bench.ws_reader import masked_text_frame, subscribe
from tui.sim.server import local_exchange, ws_hub
from tui.sim.server.local_exchange import LocalExchange
from tui.sim.server.ws_transport import text_frame

ALICE = Signer(ALICE_KEY)
SUBSCRIBE = {
    "jsonrpc": "2.0",
    "method": "subscribe",
    "id": "1",
    "params": {"channel": "orderbook", "symbol": "BTC-PERP"},
}


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65_535, 65_536, 200_000])
def test_a_built_frame_is_the_frame_websockets_writes(size: int) -> None:
    payload = b"x" * size  # each length encoding: 7 bits, 16 bits, 64 bits, and the edges between them
    assert text_frame(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[])


async def test_a_subscriber_that_reads_nothing_is_closed_as_too_slow(
    sim: LocalExchange, alice: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tried: a raw client with a tiny receive buffer subscribes to the book and stops reading while orders
    change the book. The exchange stops writing to it past its backlog limit, forgets its subscription, and the
    last thing on its socket is a close with 1013 and the reason."""
    monkeypatch.setattr(ws_hub, "MAX_BACKLOG_BYTES", 16 << 10)
    sock, received = await _book_subscriber_on_a_slow_link(sim)
    hub, loop = sim.hub, asyncio.get_running_loop()
    # the client reads nothing from here on; each order is a book update for it
    for i in range(2000):
        price = str(80000 + (i % 500) * 10)
        await alice.place_order([wire.order_item(1, "b", price, "0.001")])
        if not hub.subscribers.get(("orderbook", "BTC-PERP")):
            break

    else:
        raise AssertionError("a client that reads nothing was never let go")
    close: tuple[int, str] | None = None
    async with asyncio.timeout(15):
        while close is None:
            chunk = await loop.sock_recv(sock, 1 << 16)
            assert chunk, "the socket ended before a close frame"
            received += chunk
            close = _close_frame(received)
    sock.close()
    assert close == (1013, "too slow: the client does not read its frames")
    assert all(c.ip != "127.0.0.1" or not c.subs for c in hub.connections)


async def test_the_exchange_stops_while_a_subscriber_reads_nothing(sim: LocalExchange, alice: Client) -> None:
    """Tried: a raw client subscribes to the book and stops reading; orders fill the buffers on both ends (below
    the backlog limit), then the exchange stops. Its close cannot be written to that client: the stop waits
    ``STOP_GRACE_S``, then drops the connection, where it used to wait for ever."""
    sock, _ = await _book_subscriber_on_a_slow_link(sim)
    [conn] = sim.hub.connections
    assert conn.frames is not None
    for i in range(300):
        await alice.place_order([wire.order_item(1, "b", str(80000 + i * 10), "0.001")])
    assert conn.frames.transport.get_write_buffer_size() > 0  # frames wait for a client that does not read
    async with asyncio.timeout(local_exchange.STOP_GRACE_S + 5):
        await sim.stop()
    assert not sim.hub.connections
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(10):  # what was in flight, then the end: the socket is not left open
        with contextlib.suppress(ConnectionResetError):
            while await loop.sock_recv(sock, 1 << 16):
                pass
    sock.close()


async def _book_subscriber_on_a_slow_link(sim: LocalExchange) -> tuple[socket.socket, bytearray]:
    """A raw WebSocket client subscribed to the BTC-PERP book, with small kernel buffers on both ends (the
    exchange's end would otherwise grow to megabytes); the socket and what it has read (the upgrade answer)."""
    host, port = sim.url.split("//", 1)[1].rsplit(":", 1)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    loop = asyncio.get_running_loop()
    await loop.sock_connect(sock, (host, int(port)))
    key = base64.b64encode(os.urandom(16)).decode()
    head = f"GET /ws/ HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    await loop.sock_sendall(sock, f"{head}Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    received = bytearray()
    async with asyncio.timeout(10):
        while b"\r\n\r\n" not in received:
            received += await loop.sock_recv(sock, 4096)
    assert received.startswith(b"HTTP/1.1 101")
    await loop.sock_sendall(sock, masked_text_frame(json.dumps(SUBSCRIBE)))
    await until(lambda: sim.hub.subscribers.get(("orderbook", "BTC-PERP")), "the subscription")
    [conn] = sim.hub.connections
    assert conn.frames is not None
    conn.frames.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)
    return sock, received


def _close_frame(data: bytearray) -> tuple[int, str] | None:
    """The code and reason of the close frame in ``data`` (the upgrade answer, then server frames), if any."""
    i = data.find(b"\r\n\r\n") + 4
    while i >= 4 and len(data) - i >= 2:
        opcode, length, head = data[i] & 0x0F, data[i + 1] & 0x7F, 2
        if length == 126:
            length, head = int.from_bytes(data[i + 2 : i + 4], "big"), 4
        elif length == 127:
            length, head = int.from_bytes(data[i + 2 : i + 10], "big"), 10
        if len(data) - i < head + length:
            return None
        if opcode == 8:
            body = data[i + head : i + head + length]
            return int.from_bytes(body[:2], "big"), body[2:].decode()
        i += head + length
    return None


async def test_under_another_asgi_server_the_frames_go_through_starlette(sim: LocalExchange, alice: Client) -> None:
    """The exchange's app under uvicorn's own WebSocket protocol (no frame extension): subscribing and the
    book's updates still work, through each connection's queue."""
    config = uvicorn.Config(sim.app, host="127.0.0.1", port=0, log_level="warning", log_config=None, lifespan="off")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        await until(lambda: server.started, "uvicorn to start")
        port = server.servers[0].sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}/ws/") as ws:
            await ws.send(json.dumps(SUBSCRIBE))
            kinds: list[Any] = []
            async with asyncio.timeout(10):
                while "snapshot" not in kinds:
                    kinds.append(_kind(json.loads(await ws.recv())))
                await alice.place_order([wire.order_item(1, "b", "90000", "0.5")])
                while "update" not in kinds:
                    kinds.append(_kind(json.loads(await ws.recv())))
            assert kinds[0] == "reply"
    finally:
        server.should_exit = True
        await task


def _kind(message: dict[str, Any]) -> str:
    if "result" in message:
        return "reply"
    return str(message["params"]["data"].get("update_type"))


async def test_one_connection_failing_its_flush_leaves_the_others_frames_going_out(
    sim: LocalExchange, alice: Client, caplog: pytest.LogCaptureFixture
) -> None:
    """Tried: two subscribers share the one flush timer, and the check after whichever flush comes first raises.
    The error is logged, and the other connection's frame, written in the same millisecond, still goes out."""
    sim.hub.repeat_after_s = ()  # the subscriptions' pictures are not sent again: each counts the update alone
    host, port = sim.url.split("//", 1)[1].rsplit(":", 1)
    counters = [await subscribe(host, int(port), "/ws/", json.dumps(SUBSCRIBE)) for _ in range(2)]
    failed: list[str] = []

    def fails_once() -> None:
        if not failed:
            failed.append("the first flush's check")
            raise RuntimeError("a connection's own trouble")

    for conn in sim.hub.connections:
        assert conn.frames is not None
        conn.frames.limit_backlog(-1, fails_once)  # any backlog, even none, is "too much": the check runs
    await alice.place_order([wire.order_item(1, "b", "80000", "0.001")])
    await until(lambda: sum(c.frames for c in counters) >= 2, "a frame on each connection")
    assert [c.frames for c in counters] == [1, 1] and failed
    assert "writing to a WebSocket connection" in caplog.text
    for counter in counters:
        assert counter.transport is not None
        counter.transport.close()
