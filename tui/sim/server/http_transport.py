"""The HTTP server's writes: an answer's head and body in one system call.

uvicorn writes a response's status line and headers when the app starts it, and its body when the app sends
it: two writes, and on an idle socket each is a system call (a third of the exchange's time per order went to
``socket.send`` under the fan-out bench, two thirds of that for HTTP). Here what a connection writes in one
turn of the loop is held and goes out at the start of the next, joined (``HeldWrites``): the answer to a
request in one ``send``, a turn later, which on loopback is microseconds.

A connection upgraded to WebSocket is handed the socket's own transport, whose writes the WebSocket protocol
joins its own way (``ws_transport``).
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .held_writes import HeldWrites

__all__ = ["JoinedHttpProtocol"]


class JoinedHttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol (httptools) over a transport whose writes of one loop turn are joined."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        loop = asyncio.get_running_loop()
        self._held = HeldWrites(transport, lambda held: loop.call_soon(held.release))
        super().connection_made(self._held)  # type: ignore[arg-type]

    def handle_websocket_upgrade(self) -> None:
        self._held.release()
        self.transport = self._held.transport  # the WebSocket protocol writes to the socket's transport itself
        super().handle_websocket_upgrade()
