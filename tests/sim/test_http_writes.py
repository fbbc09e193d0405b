"""The local exchange's HTTP layer over real loopback sockets: answers go out whole, in one write each
(``tui.sim.server.http_transport``: keep-alive answers, an answer followed by the server's close, an upgrade to
WebSocket on a connection whose writes are joined), and the POST routes answered without Starlette's router
(``tui.sim.server.http_posts``) still answer what it answered: 405 to another method, 404 elsewhere, a body sent in
chunks read whole."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from websockets.asyncio.client import connect

from tui.sim.server.http_transport import JoinedHttpProtocol
from tui.sim.server.local_exchange import LocalExchange

TICKER = b'{"method":"ticker","params":{"symbol":"BTC-PERP"}}'


def _request(body: bytes, close: bool = False) -> bytes:
    head = b"POST /info HTTP/1.1\r\nHost: sim\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
    return head + (b"Connection: close\r\n" if close else b"") + b"\r\n" + body


async def _answer(reader: asyncio.StreamReader) -> tuple[bytes, Any]:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length"))
    return head, json.loads(await reader.readexactly(length))


def _server_connection(sim: LocalExchange) -> JoinedHttpProtocol:
    server = sim._server  # private: the exchange's one connection, whose writes these tests count
    assert server is not None
    (protocol,) = server.server_state.connections
    assert isinstance(protocol, JoinedHttpProtocol)
    return protocol


async def test_each_keep_alive_answer_is_one_write_of_head_and_body(sim: LocalExchange) -> None:
    host, port = sim.url.split("//")[1].rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(_request(TICKER))
        await _answer(reader)
        socket_transport = _server_connection(sim).transport.transport  # type: ignore[attr-defined]
        writes: list[bytes] = []
        real_write = socket_transport.write
        socket_transport.write = lambda data: (writes.append(bytes(data)), real_write(data))[1]
        for _ in range(3):
            writer.write(_request(TICKER))
            head, body = await _answer(reader)
            assert head.startswith(b"HTTP/1.1 200") and body[0]["symbol"] == "BTC-PERP"
        assert len(writes) == 3  # uvicorn alone writes the head, then the body: six
        assert all(w.startswith(b"HTTP/1.1 200") and w.endswith(b"}]") for w in writes)
    finally:
        writer.close()


async def test_an_answer_the_server_closes_after_arrives_whole(sim: LocalExchange) -> None:
    host, port = sim.url.split("//")[1].rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(_request(TICKER, close=True))
    everything = await asyncio.wait_for(reader.read(), 10)  # to the server's close
    head, _, body = everything.partition(b"\r\n\r\n")
    assert b"connection: close" in head.lower()
    assert json.loads(body)[0]["symbol"] == "BTC-PERP"
    writer.close()


async def test_a_bad_request_is_answered_whole_before_the_close(sim: LocalExchange) -> None:
    host, port = sim.url.split("//")[1].rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(b"NOT HTTP AT ALL\r\n\r\n")
    everything = await asyncio.wait_for(reader.read(), 10)
    assert everything.startswith(b"HTTP/1.1 400") and everything.endswith(b"Invalid HTTP request received.")
    writer.close()


async def test_a_websocket_upgrade_after_joined_writes_still_carries_frames(sim: LocalExchange) -> None:
    url = sim.url.replace("http", "ws") + "/ws/"
    async with connect(url, ping_interval=None) as ws:
        await ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert reply["id"] == 1 and reply["result"]["pong"] is True


async def test_another_method_on_a_post_route_is_405_and_an_unknown_path_404(sim: LocalExchange) -> None:
    """Tried: GET and PUT on /exchange, /info and /explorer, and a POST to a path the exchange does not have."""
    async with httpx.AsyncClient(base_url=sim.url) as h:
        for path in ("/exchange", "/info", "/explorer"):
            for method in ("GET", "PUT"):
                r = await h.request(method, path)
                assert (r.status_code, r.headers["allow"], r.text) == (405, "POST", "Method Not Allowed")
                assert r.headers["x-hotstuff-network"] == sim.config.network
        r = await h.post("/nope", content=TICKER)
        assert r.status_code == 404 and r.headers["x-hotstuff-network"] == sim.config.network


async def test_a_body_sent_in_chunks_is_read_whole(sim: LocalExchange) -> None:
    host, port = sim.url.split("//")[1].rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(b"POST /info HTTP/1.1\r\nHost: sim\r\nTransfer-Encoding: chunked\r\n\r\n")
        for part in (TICKER[:10], TICKER[10:30], TICKER[30:]):
            writer.write(b"%x\r\n%s\r\n" % (len(part), part))
            await writer.drain()
            await asyncio.sleep(0.01)  # each chunk in a read of its own
        writer.write(b"0\r\n\r\n")
        head, body = await _answer(reader)
        assert head.startswith(b"HTTP/1.1 200") and body[0]["symbol"] == "BTC-PERP"
        assert b"content-type: application/json" in head.lower()
    finally:
        writer.close()
