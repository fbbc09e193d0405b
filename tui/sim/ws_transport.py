"""The WebSocket server's writes: one ``send`` a connection per turn of the event loop, and frames built once.

Fanning an event out to 50 subscribers, the exchange spent over 40% of its time in ``socket.send``: uvicorn
writes every frame to its transport at once, and an empty transport buffer makes each write a system call.
Here a connection's writes within one turn of the loop are joined and go out together at the end of it, so a
burst of frames (a block's events, a subscription's pictures) costs one system call, and no frame waits
longer than the turn it was written in.

Fanning out, the exchange also spent a third of its time sending each subscriber its copy through Starlette,
uvicorn and websockets, which frame the same text again for every one. A server frame is the same bytes for
every subscriber (unmasked, no compression), so the hub builds it once (``text_frame``) and writes it
through ``FRAMES_EXTENSION``: the protocol, which the ASGI scope carries under that name.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

__all__ = ["FRAMES_EXTENSION", "CoalescingWebSocketProtocol", "text_frame"]

_FIN_TEXT = 0x81  # FIN bit and the text opcode
FLUSH_AFTER_S = 0.001  # a connection's frames wait this long to go out together
FRAMES_EXTENSION = "xtui.frames"  # the ASGI scope's extension through which whole frames are written


def text_frame(payload: bytes) -> bytes:
    """One whole server-to-client text frame (FIN, unmasked) carrying ``payload``."""
    size = len(payload)
    if size < 126:
        head = bytes((_FIN_TEXT, size))
    elif size < 1 << 16:
        head = bytes((_FIN_TEXT, 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((_FIN_TEXT, 127)) + size.to_bytes(8, "big")
    return head + payload


class _CoalescingTransport:
    """Stands in for the connection's transport: ``write`` collects, the end of the loop turn sends."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self._transport = transport
        self._pending: list[bytes] = []
        self._pending_bytes = 0
        self._loop = asyncio.get_running_loop()

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._pending:
            self._loop.call_later(FLUSH_AFTER_S, self._flush)
        self._pending.append(bytes(data))
        self._pending_bytes += len(data)

    def backlog(self) -> int:
        """Bytes written and not yet taken by the peer's socket: this turn's and the transport's buffer."""
        return self._pending_bytes + self._transport.get_write_buffer_size()

    def _flush(self) -> None:
        if self._pending:
            data = b"".join(self._pending)
            self._pending.clear()
            self._pending_bytes = 0
            if not self._transport.is_closing():
                self._transport.write(data)

    def close(self) -> None:
        self._flush()  # a close frame written just before goes out first
        self._transport.close()

    def abort(self) -> None:
        self._pending.clear()
        self._transport.abort()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def __getattr__(self, name: str) -> Any:  # get_extra_info, pause_reading, ...
        return getattr(self._transport, name)


class CoalescingWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol over a transport whose writes are joined per loop turn."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._frames_out = _CoalescingTransport(transport)
        super().connection_made(self._frames_out)  # type: ignore[arg-type]

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        if self.handshake_initiated and not self.close_sent:  # accepted: the app may write frames through us
            extensions: dict[str, Any] = self.scope["extensions"]
            extensions[FRAMES_EXTENSION] = self

    def write_frame(self, frame: bytes) -> int | None:
        """Write a whole frame (from ``text_frame``) and return the backlog: the bytes written to this connection
        that its peer has not read yet. None, writing nothing, once the connection is closing."""
        out = self._frames_out
        if self.close_sent or self.conn.state is not State.OPEN or out.is_closing():
            return None
        out.write(frame)
        return out.backlog()
