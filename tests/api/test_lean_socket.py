"""The feed's own WebSocket (``tui.api.ws.lean_socket``) against real servers on loopback.

websockets' server is the independent implementation it must interoperate with (sizes at every length
encoding, binary, close codes both ways). A raw asyncio server sends what RFC 6455 forbids, byte by byte, to
see each refused with its close code and nothing taken for a message. A small CONNECT proxy carries the
websockets path that a proxy in the environment selects.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import struct
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from tui.api.ws.lean_socket import HandshakeRefused, SocketClosed, open_socket

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OPEN: dict[str, Any] = {"open_timeout": 5.0, "close_timeout": 1.0, "max_size": 2**20}


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


# ---- against websockets' server


async def _echo(ws: ServerConnection) -> None:
    async for message in ws:
        if message == "close 1013":
            await ws.close(1013, "try again later")
            return
        if message == "binary":
            await ws.send(b"\x00\xffbytes")
            continue
        await ws.send(message)


@pytest.fixture
async def echo_url() -> AsyncIterator[str]:
    async with serve(_echo, "127.0.0.1", 0, max_size=2**22) as server:
        port = server.sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}/ws/"


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 300_000])
async def test_a_text_message_of_every_length_encoding_goes_and_comes_back(echo_url: str, size: int) -> None:
    sock = await open_socket(echo_url, **OPEN)
    text = ("é" * size)[: max(0, size // 2)] + "x" * (size - size // 2)
    await sock.send_text(text.encode())
    assert await sock.recv() == text
    await sock.close()


async def test_binary_comes_as_bytes_and_the_servers_close_code_is_kept(echo_url: str) -> None:
    sock = await open_socket(echo_url, **OPEN)
    await sock.send_text(b"binary")
    assert await sock.recv() == b"\x00\xffbytes"
    await sock.send_text(b"close 1013")
    with pytest.raises(SocketClosed) as closed:
        await sock.recv()
    assert closed.value.code == sock.close_code == 1013
    with pytest.raises(SocketClosed):  # and stays closed
        await sock.send_text(b"more")
    await sock.close()


async def test_our_close_is_answered_and_seen_by_the_server() -> None:
    seen: asyncio.Queue[int | None] = asyncio.Queue()

    async def handler(ws: ServerConnection) -> None:
        async for _ in ws:
            pass
        seen.put_nowait(ws.close_code)

    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        sock = await open_socket(f"ws://127.0.0.1:{port}", **OPEN)
        await sock.send_text(b"hello")
        await sock.close()
        async with asyncio.timeout(5):
            assert await seen.get() == 1000


async def test_a_refused_upgrade_says_its_status() -> None:
    def refuse(connection: ServerConnection, _request: Request) -> Response:
        return connection.respond(429, "slow down\n")

    async with serve(_echo, "127.0.0.1", 0, process_request=refuse) as server:
        port = server.sockets[0].getsockname()[1]
        with pytest.raises(HandshakeRefused) as refused:
            await open_socket(f"ws://127.0.0.1:{port}/ws/", **OPEN)
    assert refused.value.status == 429


# ---- against a raw server that says what it is told


def accept_for(request: bytes) -> str:
    key = next(
        line.split(b":", 1)[1].strip()
        for line in request.split(b"\r\n")
        if line.lower().startswith(b"sec-websocket-key")
    )
    return base64.b64encode(hashlib.sha1(key + GUID).digest()).decode()


def upgrade(request: bytes, *, extra: str = "", accept: str | None = None) -> bytes:
    return (
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Accept: {accept if accept is not None else accept_for(request)}\r\n{extra}\r\n"
    ).encode()


def frame(op: int, payload: bytes = b"", *, fin: bool = True, rsv: int = 0, mask: bytes | None = None) -> bytes:
    """A server frame, as the RFC allows it or not."""
    n = len(payload)
    b1 = 0x80 if mask is not None else 0
    if n < 126:
        head = bytes((0x80 * fin | rsv | op, b1 | n))
    elif n < 1 << 16:
        head = bytes((0x80 * fin | rsv | op, b1 | 126)) + struct.pack("!H", n)
    else:
        head = bytes((0x80 * fin | rsv | op, b1 | 127)) + struct.pack("!Q", n)
    if mask is not None:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        head += mask
    return head + payload


async def read_client_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One frame from the client: it must be masked."""
    b0, b1 = await reader.readexactly(2)
    assert b1 & 0x80, "a client frame must be masked"
    n = b1 & 0x7F
    if n == 126:
        (n,) = struct.unpack("!H", await reader.readexactly(2))
    elif n == 127:
        (n,) = struct.unpack("!Q", await reader.readexactly(8))
    mask = await reader.readexactly(4)
    data = await reader.readexactly(n)
    return b0 & 0x0F, bytes(b ^ mask[i % 4] for i, b in enumerate(data))


class RawServer:
    """What a raw server heard: the handshake's request, then the client's frames (unmasked)."""

    def __init__(self) -> None:
        self.request = b""
        self.client_frames: list[tuple[int, bytes]] = []


async def talk(
    *chunks: bytes, bytewise: bool = False, drop: bool = False, max_size: int = 2**20
) -> tuple[list[object], RawServer]:
    """Open a socket to a raw server that sends ``chunks`` after the upgrade (then drops the connection, with
    ``drop``); read until the socket closes."""
    raw = RawServer()
    heard_all = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = await reader.readuntil(b"\r\n\r\n")
        raw.request = request
        writer.write(upgrade(request))
        for chunk in chunks:
            if bytewise:
                for i in range(len(chunk)):
                    writer.write(chunk[i : i + 1])
                    await writer.drain()
            else:
                writer.write(chunk)
        await writer.drain()
        if drop:
            writer.transport.abort()
        try:
            while not drop:
                raw.client_frames.append(await read_client_frame(reader))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
            heard_all.set()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    got: list[object] = []
    async with server:
        sock = await open_socket(
            f"ws://127.0.0.1:{port}/ws/?a=b", open_timeout=5.0, close_timeout=1.0, max_size=max_size
        )
        try:
            async with asyncio.timeout(5):
                while True:
                    got.append(await sock.recv())
        except SocketClosed as exc:
            got.append(exc)
        await sock.close()
        async with asyncio.timeout(5):
            await heard_all.wait()  # the server has read all the client said, up to its end of the connection
    return got, raw


def closed_with(raw: RawServer) -> int | None:
    """The code of the close frame the client sent, if it sent one."""
    for op, payload in raw.client_frames:
        if op == 0x8:
            return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
    return None


async def test_the_handshake_is_a_get_that_asks_to_upgrade_with_a_fresh_key() -> None:
    _, raw = await talk(frame(0x8, struct.pack("!H", 1000)))
    lines = raw.request.decode().split("\r\n")
    assert lines[0] == "GET /ws/?a=b HTTP/1.1"
    fields = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
    assert fields["upgrade"] == "websocket"
    assert fields["connection"] == "Upgrade"
    assert fields["sec-websocket-version"] == "13"
    assert len(base64.b64decode(fields["sec-websocket-key"])) == 16
    assert "sec-websocket-extensions" not in fields  # nothing offered: no compressed frame can come


async def test_messages_split_in_fragments_and_bytes_with_a_ping_between_are_put_together() -> None:
    got, raw = await talk(
        frame(0x1, "ré".encode()[:2], fin=False),  # a UTF-8 character cut between two frames
        frame(0x9, b"are you there"),
        frame(0x0, "ré".encode()[2:] + b"sum", fin=False),
        frame(0x0, b"e", fin=True),
        frame(0x1, b"x" * 70_000),  # a 64-bit length
        frame(0x8, struct.pack("!H", 1001) + b"going away"),
        bytewise=True,
    )
    assert got[:2] == ["résume", "x" * 70_000]
    assert isinstance(got[2], SocketClosed)
    assert got[2].code == 1001
    assert (0xA, b"are you there") in raw.client_frames  # the ping answered with its own payload
    assert closed_with(raw) == 1001  # the close echoed


@pytest.mark.parametrize(
    ("chunks", "code", "why"),
    [
        ((frame(0x1, b"hidden", mask=b"abcd"),), 1002, "a masked frame from the server"),
        ((frame(0x1, b"x", rsv=0x40),), 1002, "a reserved bit with no extension agreed"),
        ((frame(0x9, b"p" * 126),), 1002, "a ping longer than 125 bytes"),
        ((frame(0x9, b"p", fin=False),), 1002, "a ping split in fragments"),
        ((frame(0x3, b"?"),), 1002, "an unknown data opcode"),
        ((frame(0xB, b"?"),), 1002, "an unknown control opcode"),
        ((frame(0x0, b"orphan"),), 1002, "a continuation with no message begun"),
        ((frame(0x1, b"a", fin=False), frame(0x1, b"b")), 1002, "a new message inside another"),
        ((frame(0x1, b"\xff\xfe not utf-8"),), 1007, "text that is not UTF-8"),
        ((frame(0x1, b"y" * 2048),), 1009, "a message over max_size"),
        ((frame(0x1, b"y" * 1000, fin=False), frame(0x0, b"y" * 1100)), 1009, "fragments adding up past max_size"),
        ((frame(0x8, b"\x03"),), 1002, "a close with a one-byte body"),
        ((frame(0x8, struct.pack("!H", 999)),), 1002, "a close code no server may send"),
        ((frame(0x8, struct.pack("!H", 1000) + b"\xff"),), 1007, "a close reason that is not UTF-8"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
async def test_what_rfc_6455_forbids_ends_the_socket_with_its_close_code(
    chunks: tuple[bytes, ...], code: int, why: str
) -> None:
    got, raw = await talk(*chunks, frame(0x1, b"never read"), max_size=2000)
    assert len(got) == 1, why  # nothing taken for a message, not even the good frame behind
    assert isinstance(got[0], SocketClosed)
    assert got[0].code is None  # the server sent no valid close: it broke the protocol
    assert closed_with(raw) == code, why


async def test_a_connection_dropped_in_the_middle_of_a_frame_ends_the_socket() -> None:
    got, _ = await talk(frame(0x1, b"whole"), frame(0x1, b"cut short")[:5], drop=True)
    assert got[0] == "whole"
    assert isinstance(got[1], SocketClosed)
    assert got[1].code is None


@pytest.mark.parametrize(
    ("answer", "error", "why"),
    [
        (b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n", HandshakeRefused, "refused"),
        (b"SSH-2.0-OpenSSH\r\n\r\n", OSError, "not HTTP"),
        (b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n\r\n", OSError, "no Upgrade"),
        (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", OSError, "no Connection: Upgrade"),
        (None, OSError, "a wrong accept"),
        (b"extension", OSError, "an extension not offered"),
        (b"HTTP/1.1 101 OK\r\n" + b"X-Pad: " + b"p" * 70_000 + b"\r\n\r\n", OSError, "a head over 64 KiB"),
        (b"HTTP/1.1 101 Switching", OSError, "the connection closed inside the head"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
async def test_a_bad_answer_to_the_handshake_is_an_error_and_leaves_nothing_open(
    answer: bytes | None, error: type[Exception], why: str
) -> None:
    closed = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = await reader.readuntil(b"\r\n\r\n")
        if answer is None:
            writer.write(upgrade(request, accept=base64.b64encode(os.urandom(20)).decode()))
        elif answer == b"extension":
            writer.write(upgrade(request, extra="Sec-WebSocket-Extensions: permessage-deflate\r\n"))
        else:
            writer.write(answer)
        await writer.drain()
        if answer is not None and answer.endswith(b"Switching"):
            writer.close()
        await reader.read()  # until the client has gone
        closed.set()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        with pytest.raises(error):
            await open_socket(f"ws://127.0.0.1:{port}/", **OPEN)
        async with asyncio.timeout(5):
            await closed.wait()  # the client's end of the connection is closed, not left behind


async def test_a_server_that_never_answers_the_handshake_times_out() -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # a frozen exchange: the connection is accepted, nothing is said

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        with pytest.raises(TimeoutError):
            await open_socket(f"ws://127.0.0.1:{port}/", open_timeout=0.2, close_timeout=0.2, max_size=100)


async def test_close_gives_up_on_a_server_that_does_not_answer_it() -> None:
    answered = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(upgrade(await reader.readuntil(b"\r\n\r\n")))
        await writer.drain()
        op, _ = await read_client_frame(reader)
        assert op == 0x8
        answered.set()
        await reader.read()  # never answers the close

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        sock = await open_socket(f"ws://127.0.0.1:{port}/", open_timeout=5.0, close_timeout=0.2, max_size=100)
        await sock.close()
        assert answered.is_set()
        with pytest.raises(SocketClosed):
            await sock.recv()


async def test_every_frame_we_send_is_masked_and_reads_back_at_each_length_encoding() -> None:
    sizes = [0, 125, 126, 65535, 65536]
    got: list[tuple[int, bytes]] = []
    done = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(upgrade(await reader.readuntil(b"\r\n\r\n")))
        for _ in sizes:
            got.append(await read_client_frame(reader))  # asserts the mask bit
        done.set()
        await reader.read()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        sock = await open_socket(f"ws://127.0.0.1:{port}/", open_timeout=5.0, close_timeout=0.2, max_size=100)
        for n in sizes:
            await sock.send_text(bytes(i % 256 for i in range(n)))
        async with asyncio.timeout(5):
            await done.wait()
        sock.abort()
    assert [op for op, _ in got] == [0x1] * len(sizes)
    assert [len(data) for _, data in got] == sizes
    assert got[2][1] == bytes(range(126))


# ---- through a proxy named in the environment: websockets carries it


async def test_a_proxy_in_the_environment_is_used(echo_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    tunnels: list[bytes] = []

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        tunnels.append(head.split(b"\r\n", 1)[0])
        host, port = head.split()[1].decode().rsplit(":", 1)
        up_reader, up_writer = await asyncio.open_connection(host, int(port))
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    server = await asyncio.start_server(proxy, "127.0.0.1", 0)
    proxy_port = server.sockets[0].getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy_port}")
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{proxy_port}")
    async with server:
        sock = await open_socket(echo_url, **OPEN)
        await sock.send_text(b"through the tunnel")
        assert await sock.recv() == "through the tunnel"
        await sock.send_text(b"close 1013")
        with pytest.raises(SocketClosed) as closed:
            await sock.recv()
        assert closed.value.code == sock.close_code == 1013
        await sock.close()
    assert tunnels and tunnels[0].startswith(b"CONNECT 127.0.0.1:")


async def test_a_read_cancelled_inside_a_frame_ends_reading_and_close_does_not_wait_on_the_torn_stream() -> None:
    heard: asyncio.Queue[tuple[int, bytes]] = asyncio.Queue()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(upgrade(await reader.readuntil(b"\r\n\r\n")))
        # the head and the first bytes, which would read as the head of a 4 KB frame: the rest never comes
        writer.write(frame(0x2, b"\x81\x7e\x10\x00 and more")[:6])
        await writer.drain()
        heard.put_nowait(await read_client_frame(reader))
        await reader.read()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        sock = await open_socket(f"ws://127.0.0.1:{port}/", open_timeout=5.0, close_timeout=30.0, max_size=2**20)
        reading = asyncio.create_task(sock.recv())
        # private: whether the read is inside a frame shows only in the bytes the socket's reader holds
        buffered = sock._reader._buffer  # type: ignore[attr-defined]
        async with asyncio.timeout(5):  # a safety net: loopback brings the bytes at once
            while len(buffered) != 4:  # the frame's head read, the 4 bytes after it waiting: the read is inside it
                await asyncio.sleep(0)
        assert not reading.done()
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
        async with asyncio.timeout(5):  # not the 30 s close timeout: no answer is looked for in a torn stream
            await sock.close()
            assert await heard.get() == (0x8, struct.pack("!H", 1000))
        with pytest.raises(SocketClosed):
            await sock.recv()
