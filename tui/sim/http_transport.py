"""The HTTP server's writes: an answer's head and body in one system call.

uvicorn writes a response's status line and headers when the app starts it, and its body when the app sends
it: two writes, and on an idle socket each is a system call (a third of the exchange's time per order went to
``socket.send`` under the fan-out bench, two thirds of that for HTTP). Here what a connection writes in one
turn of the loop is held and goes out at the start of the next, joined (``_JoinedWrites``): the answer to a
request in one ``send``, a turn later, which on loopback is microseconds.

A connection upgraded to WebSocket is handed the socket's own transport, whose writes the WebSocket protocol
joins its own way (``ws_transport``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["JoinedHttpProtocol"]


class _JoinedWrites:
    """Stands in for a connection's transport: what is written in one loop turn goes out at the next, joined."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self._held: list[bytes] = []
        self._loop = asyncio.get_running_loop()

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._held:
            self._loop.call_soon(self.release)
        self._held.append(bytes(data))

    def release(self) -> None:
        """Write what is held, now."""
        if self._held:
            data = b"".join(self._held)
            self._held.clear()
            if not self.transport.is_closing():
                self.transport.write(data)

    def close(self) -> None:
        self.release()  # the answer written just before a close goes out first
        self.transport.close()

    def abort(self) -> None:
        self._held.clear()
        self.transport.abort()

    def __getattr__(self, name: str) -> Any:  # is_closing, get_extra_info, pause_reading, set_protocol, ...
        return getattr(self.transport, name)


class JoinedHttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol (httptools) over a transport whose writes of one loop turn are joined."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(_JoinedWrites(transport))  # type: ignore[arg-type]

    def handle_websocket_upgrade(self) -> None:
        joined: _JoinedWrites = self.transport  # type: ignore[assignment]
        joined.release()
        self.transport = joined.transport  # the WebSocket protocol writes to the socket's transport itself
        super().handle_websocket_upgrade()
