"""A lean WebSocket client (RFC 6455) on asyncio streams: the opening handshake, frames both ways, the closing one.

The feed used websockets, and with it what websockets imports for its proxy support and its version (urllib.request,
http.client, email, importlib.metadata): ~3.5 MB of the dashboard's memory. What the exchange's feed needs is
small: one GET that upgrades, text frames in and out, pings answered, a close. No extension is offered, so no
frame is compressed, and none is accepted. A client that must go through a proxy (``HTTPS_PROXY`` and the like)
gets websockets' own connection instead, behind the same calls (``open_socket``), as ``tui.api.h1`` leaves proxies
to httpx.

Whatever the exchange sends that RFC 6455 forbids (a masked frame, a reserved bit, a control frame split or
longer than 125 bytes, a continuation out of place, text that is not UTF-8, a message over ``max_size``) ends
the connection with the close code the RFC gives; ``recv`` then raises :class:`SocketClosed`.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import socket
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from ..reach import proxy_in_environment, verifying_context

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

__all__ = ["HandshakeRefused", "LeanSocket", "Socket", "SocketClosed", "open_socket"]

_ACCEPT_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 section 1.3
_MAX_HEAD = 64 * 1024  # the server's answer to the handshake
_CONT, _TEXT, _BINARY, _CLOSE, _PING, _PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
_DEFAULT_PORTS = {"ws": 80, "wss": 443}
_AGENT = "xtui"
# Codes a close frame may carry (RFC 6455 section 7.4): 1005, 1006 and 1015 are never sent.
_SENDABLE = frozenset({1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014})


class SocketClosed(Exception):
    """The socket is closed: by the exchange (``code`` is the one it sent), by us, or by the network (``code`` None)."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class HandshakeRefused(Exception):
    """The server answered the opening handshake with ``status``, not 101 Switching Protocols."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class Socket(Protocol):
    """What the feed's client calls of a socket, one of ours or websockets' (through a proxy)."""

    @property
    def close_code(self) -> int | None: ...

    async def recv(self) -> str | bytes: ...

    async def send_text(self, data: bytes) -> None: ...

    async def close(self) -> None: ...

    def abort(self) -> None: ...


async def open_socket(url: str, *, open_timeout: float, close_timeout: float, max_size: int) -> Socket:
    """A socket to ``url`` (ws:// or wss://), open within ``open_timeout`` s; :class:`HandshakeRefused` if the
    server answers the upgrade with another status, ``OSError`` or ``TimeoutError`` if it cannot be reached."""
    if proxy_in_environment():
        return await _ViaWebsockets.open(url, open_timeout=open_timeout, close_timeout=close_timeout, max_size=max_size)
    parts = urlsplit(url)
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"{url!r} is not a ws:// or wss:// URL")
    host, port = parts.hostname, parts.port or _DEFAULT_PORTS[parts.scheme]
    context = verifying_context() if parts.scheme == "wss" else None
    key = base64.b64encode(os.urandom(16))
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    head = (
        f"GET {target} HTTP/1.1\r\nHost: {parts.netloc.rpartition('@')[2]}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key.decode()}\r\nSec-WebSocket-Version: 13\r\n"
        f"User-Agent: {_AGENT}\r\n\r\n"
    )
    writer: asyncio.StreamWriter | None = None
    try:
        async with asyncio.timeout(open_timeout):
            reader, writer = await asyncio.open_connection(
                host, port, ssl=context, server_hostname=host if context else None, limit=_MAX_HEAD
            )
            sock = writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            writer.write(head.encode("latin-1"))
            answer = await reader.readuntil(b"\r\n\r\n")
        _check_answer(answer, key)
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
        if writer is not None:  # it is: the answer is read after the connection
            writer.transport.abort()
        raise OSError(f"WebSocket handshake with {host}:{port} failed: {exc}") from None
    except BaseException:
        if writer is not None:
            writer.transport.abort()
        raise
    return LeanSocket(reader, writer, max_size=max_size, close_timeout=close_timeout)


def _check_answer(answer: bytes, key: bytes) -> None:
    lines = answer.decode("latin-1").split("\r\n")
    status_line = lines[0].split(" ", 2)
    if len(status_line) < 2 or not status_line[0].startswith("HTTP/1.") or not status_line[1].isdigit():
        raise OSError(f"not an HTTP answer to the WebSocket handshake: {lines[0][:80]!r}")
    status = int(status_line[1])
    if status != 101:
        raise HandshakeRefused(f"server rejected WebSocket connection: HTTP {status}", status)
    fields: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if colon:
            fields[name.strip().lower()] = value.strip()
    expected = base64.b64encode(hashlib.sha1(key + _ACCEPT_GUID, usedforsecurity=False).digest()).decode()
    if fields.get("upgrade", "").lower() != "websocket":
        raise OSError("the WebSocket handshake's answer does not upgrade to websocket")
    if "upgrade" not in fields.get("connection", "").lower():
        raise OSError("the WebSocket handshake's answer has no Connection: Upgrade")
    if fields.get("sec-websocket-accept") != expected:
        raise OSError("the WebSocket handshake's answer has a wrong Sec-WebSocket-Accept")
    if fields.get("sec-websocket-extensions") or fields.get("sec-websocket-protocol"):
        raise OSError("the server chose an extension or subprotocol that was not offered")


class _Failed(Exception):
    """The server broke RFC 6455: the connection ends with ``code``."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code


class LeanSocket:
    """One open WebSocket. ``recv`` is called by one reader at a time; ``send_text`` from anywhere on the loop
    (each frame is one write, so frames never interleave); ``close`` once the reader has stopped."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, max_size: int, close_timeout: float
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._max_size = max_size
        self._close_timeout = close_timeout
        self._closed: SocketClosed | None = None
        self._close_sent = False
        self._torn = False  # a read was cancelled part way: the bytes that follow cannot be parsed
        self.close_code: int | None = None  # the code of the exchange's close frame, once one came

    async def recv(self) -> str | bytes:
        """The next message (text as str), control frames answered on the way; :class:`SocketClosed` at its end.
        Cancelled, it ends the reading: a frame may have been read in part."""
        if self._torn and self._closed is None:
            self._closed = SocketClosed("a read was cancelled part way", None)
        try:
            return await self._message()
        except asyncio.CancelledError:
            self._torn = True
            raise

    async def _message(self) -> str | bytes:
        parts: list[bytes] = []
        size = 0
        opcode = None
        while True:
            if self._closed is not None:
                raise self._closed
            try:
                fin, op, payload = await self._frame(size)
            except _Failed as failed:
                self._fail(failed.code, str(failed))
                continue
            except (asyncio.IncompleteReadError, OSError) as exc:
                self._end(f"connection lost: {exc or type(exc).__name__}", None)
                continue
            if op >= _CLOSE:
                self._control(op, payload)
                continue
            if (op == _CONT) != (opcode is not None):
                self._fail(1002, "continuation frame out of place" if op == _CONT else "new message inside another")
                continue
            opcode = op if opcode is None else opcode
            parts.append(payload)
            size += len(payload)
            if fin:
                data = parts[0] if len(parts) == 1 else b"".join(parts)
                if opcode == _BINARY:
                    return data
                try:
                    return data.decode()
                except UnicodeDecodeError:
                    self._fail(1007, "text frame that is not UTF-8")

    async def _frame(self, size_so_far: int) -> tuple[bool, int, bytes]:
        read = self._reader.readexactly
        b0, b1 = await read(2)
        fin, op, length = bool(b0 & 0x80), b0 & 0x0F, b1 & 0x7F
        if b0 & 0x70:
            raise _Failed(1002, "reserved bits set, no extension agreed")
        if b1 & 0x80:
            raise _Failed(1002, "masked frame from the server")
        if op >= _CLOSE:
            if op not in (_CLOSE, _PING, _PONG):
                raise _Failed(1002, f"unknown control opcode {op}")
            if not fin or length > 125:
                raise _Failed(1002, "control frame split or longer than 125 bytes")
        elif op not in (_CONT, _TEXT, _BINARY):
            raise _Failed(1002, f"unknown data opcode {op}")
        if length == 126:
            length = int.from_bytes(await read(2), "big")
        elif length == 127:
            length = int.from_bytes(await read(8), "big")
        if size_so_far + length > self._max_size:
            raise _Failed(1009, f"message over {self._max_size} bytes")
        return fin, op, await read(length) if length else b""

    def _control(self, op: int, payload: bytes) -> None:
        if op == _PING:
            self._write(_PONG, payload)
        elif op == _CLOSE:
            code, reason = 1005, ""
            if len(payload) == 1:
                return self._fail(1002, "close frame with a one-byte body")
            if payload:
                code = int.from_bytes(payload[:2], "big")
                try:
                    reason = payload[2:].decode()
                except UnicodeDecodeError:
                    return self._fail(1007, "close reason that is not UTF-8")
                if code not in _SENDABLE and not 3000 <= code < 5000:
                    return self._fail(1002, f"close code {code} is not one a server may send")
            self.close_code = code
            if not self._close_sent:  # echo it, then the exchange closes the TCP connection
                self._write(_CLOSE, payload[:2])
            self._end(f"closed by the server: {code} {reason}".rstrip(), code)
        return None

    def _fail(self, code: int, reason: str) -> None:
        """The server broke the protocol: say why in a close frame, then drop the connection."""
        if not self._close_sent:
            self._write(_CLOSE, code.to_bytes(2, "big") + reason.encode()[:123])
        self._end(f"protocol error ({code}): {reason}", None)

    def _end(self, message: str, code: int | None) -> None:
        if self._closed is None:
            self._closed = SocketClosed(message, code)
        self._writer.close()

    def _write(self, op: int, payload: bytes) -> None:
        if self._close_sent or self._writer.is_closing():
            return
        self._close_sent = op == _CLOSE
        self._writer.write(_frame(op, payload))

    async def send_text(self, data: bytes) -> None:
        """Send ``data`` (UTF-8) as one text frame; :class:`SocketClosed` if the socket is closing or closed."""
        if self._closed is not None:
            raise SocketClosed(str(self._closed), self._closed.code)
        if self._close_sent or self._writer.is_closing():
            raise SocketClosed("the socket is closing")
        self._writer.write(_frame(_TEXT, data))
        try:
            await self._writer.drain()
        except (OSError, RuntimeError) as exc:
            raise SocketClosed(f"connection lost while sending: {exc}") from None

    async def close(self) -> None:
        """The closing handshake: a close frame (1000), the exchange's answer awaited for ``close_timeout`` s,
        then the TCP connection closed (aborted if the exchange does not answer)."""
        if self._closed is None:
            self._write(_CLOSE, (1000).to_bytes(2, "big"))
            try:
                async with asyncio.timeout(self._close_timeout):
                    while self._closed is None and not self._torn:  # the answer cannot be found in a torn stream
                        await self.recv()
            except (SocketClosed, TimeoutError):
                pass
            if self._closed is None:
                self._closed = SocketClosed("closed by the client", None)
        writer = self._writer
        writer.close()
        try:
            async with asyncio.timeout(self._close_timeout):
                await writer.wait_closed()
        except (OSError, TimeoutError):
            writer.transport.abort()

    def abort(self) -> None:
        """Drop the connection at once (a half-open socket would not answer a close frame)."""
        if self._closed is None:
            self._closed = SocketClosed("aborted by the client", None)
        self._writer.transport.abort()


def _frame(op: int, payload: bytes) -> bytes:
    """One final client frame: masked, as RFC 6455 requires of a client."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | op, 0x80 | n))
    elif n < 1 << 16:
        head = bytes((0x80 | op, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | op, 0x80 | 127)) + n.to_bytes(8, "big")
    mask = os.urandom(4)
    if not n:
        return head + mask
    key = (mask * (n // 4 + 1))[:n]  # XOR of two big integers: one C loop, not one per byte
    return head + mask + (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")


class _ViaWebsockets:
    """websockets' connection behind the calls of :class:`Socket`, for a proxy (which websockets reads from the
    environment, as httpx does for the HTTP side)."""

    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws

    @classmethod
    async def open(cls, url: str, *, open_timeout: float, close_timeout: float, max_size: int) -> _ViaWebsockets:
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidStatus

        try:
            ws = await connect(
                url,
                ping_interval=None,  # JSON-RPC pings instead, as the SDKs do
                ping_timeout=None,
                open_timeout=open_timeout,
                close_timeout=close_timeout,
                max_size=max_size,
                compression=None,  # as our own socket: what the feed sends is small and frequent
            )
        except InvalidStatus as exc:
            status = exc.response.status_code
            raise HandshakeRefused(f"server rejected WebSocket connection: HTTP {status}", status) from None
        return cls(ws)

    @property
    def close_code(self) -> int | None:
        return self._ws.close_code

    async def recv(self) -> str | bytes:
        from websockets.exceptions import ConnectionClosed

        try:
            return await self._ws.recv()
        except ConnectionClosed as exc:
            raise SocketClosed(str(exc), self._ws.close_code) from None

    async def send_text(self, data: bytes) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            await self._ws.send(data, text=True)
        except ConnectionClosed as exc:
            raise SocketClosed(str(exc), self._ws.close_code) from None

    async def close(self) -> None:
        await self._ws.close()

    def abort(self) -> None:
        self._ws.transport.abort()
