"""A lean WebSocket subscriber for the fan-out figure: it subscribes, then counts the exchange's frames.

A client library's reader (parsing, UTF-8 checks, a task switch per message) costs more per frame than the
exchange spends sending it, so 50 such readers in the bench's process measured the readers. This one only
walks the frame headers of what arrives (server frames are unmasked), like the lean HTTP writer that measures
the exchange's order rate.
"""

from __future__ import annotations

import asyncio
import base64
import os

__all__ = ["FrameCounter", "masked_text_frame", "subscribe"]


class FrameCounter(asyncio.Protocol):
    """Counts whole WebSocket frames after the opening handshake."""

    def __init__(self) -> None:
        self.frames = 0
        self._buf = bytearray()
        self._upgraded = False
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        buf = self._buf
        buf += data
        if not self._upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buf.startswith(b"HTTP/1.1 101"):
                self.opened.set_exception(RuntimeError(f"no WebSocket upgrade: {bytes(buf[:80])!r}"))
                return
            del buf[: end + 4]
            self._upgraded = True
            self.opened.set_result(None)
        i, n = 0, len(buf)
        while n - i >= 2:
            length, head = buf[i + 1] & 0x7F, 2
            if length == 126:
                if n - i < 4:
                    break
                length, head = int.from_bytes(buf[i + 2 : i + 4], "big"), 4
            elif length == 127:
                if n - i < 10:
                    break
                length, head = int.from_bytes(buf[i + 2 : i + 10], "big"), 10
            if n - i < head + length:
                break
            self.frames += 1
            i += head + length
        del buf[:i]

    def send_text(self, text: str) -> None:
        assert self.transport is not None
        self.transport.write(masked_text_frame(text))


def masked_text_frame(text: str) -> bytes:
    """One masked text frame carrying ``text`` (under 64 KiB), as a client must send it."""
    payload = text.encode()
    mask = os.urandom(4)
    size = len(payload)
    head = bytes([0x81, 0x80 | size]) if size < 126 else bytes([0x81, 0x80 | 126]) + size.to_bytes(2, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def subscribe(host: str, port: int, path: str, request: str, replies: int = 2) -> FrameCounter:
    """A counter connected to ``path`` that has sent ``request`` and received its first ``replies`` frames
    (the answer and the snapshot), so that what it counts from now on is the fan-out."""
    loop = asyncio.get_running_loop()
    _, counter = await loop.create_connection(FrameCounter, host, port)
    key = base64.b64encode(os.urandom(16)).decode()
    assert counter.transport is not None
    counter.transport.write(
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    await asyncio.wait_for(counter.opened, 10)
    counter.send_text(request)
    for _ in range(1000):
        if counter.frames >= replies:
            break
        await asyncio.sleep(0.01)
    else:
        raise RuntimeError(f"no answer to {request[:60]}")
    counter.frames = 0
    return counter
