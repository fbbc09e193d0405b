"""The WebSocket server's writes: one ``send`` a connection per millisecond, and frames built once.

Fanning an event out to 50 subscribers, the exchange spent over 40% of its time in ``socket.send``: uvicorn
writes every frame to its transport at once, and an empty transport buffer makes each write a system call.
Here a connection's writes are held (``HeldWrites``) and go out together ``FLUSH_AFTER_S`` after the first, so a
burst of frames (a block's events, a subscription's pictures, the orders of a millisecond) costs one system
call, and no frame waits longer than that. One timer serves every connection of a loop (``_Flusher``): a
timer a connection kept a heap of 50 timers busy. (It was tried before and taken out when the suite stalled
at -n 4; that stall was the exchange's stop waiting with no bound on a peer that read nothing, since fixed.)

Fanning out, the exchange also spent a third of its time sending each subscriber its copy through Starlette,
uvicorn and websockets, which frame the same text again for every one. A server frame is the same bytes for
every subscriber (unmasked, no compression), so the hub builds it once (``text_frame``) and writes it
through ``FRAMES_EXTENSION``: the protocol, which the ASGI scope carries under that name. A peer that does
not read is found as the frames go out (``limit_backlog``)."""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .held_writes import HeldWrites

__all__ = ["FRAMES_EXTENSION", "CoalescingWebSocketProtocol", "text_frame"]

log = logging.getLogger(__name__)

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


class _Flusher:
    """One timer for every connection of a loop: ``FLUSH_AFTER_S`` after the first write, each connection
    written to since sends what it has."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._due: list[HeldWrites] = []

    def add(self, transport: HeldWrites) -> None:
        if not self._due:
            self._loop.call_later(FLUSH_AFTER_S, self._flush_all)
        self._due.append(transport)

    def _flush_all(self) -> None:
        due, self._due = self._due, []
        for transport in due:
            try:
                transport.release()
            except Exception:  # one connection's trouble must not leave the others' frames unsent
                log.exception("writing to a WebSocket connection")


_flushers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Flusher] = weakref.WeakKeyDictionary()


def _flusher() -> _Flusher:
    loop = asyncio.get_running_loop()
    flusher = _flushers.get(loop)
    if flusher is None:
        flusher = _flushers[loop] = _Flusher(loop)
    return flusher


class CoalescingWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol over a transport whose writes are held (``HeldWrites``) until ``_Flusher``
    releases them."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._frames_out = HeldWrites(transport, _flusher().add, self._flushed)
        self._backlog_limit: tuple[int, Callable[[], None]] | None = None
        super().connection_made(self._frames_out)  # type: ignore[arg-type]

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        if self.handshake_initiated and not self.close_sent:  # accepted: the app may write frames through us
            extensions: dict[str, Any] = self.scope["extensions"]
            extensions[FRAMES_EXTENSION] = self

    def write_frame(self, frame: bytes) -> bool:
        """Write a whole frame (from ``text_frame``); False, writing nothing, once the connection is closing."""
        if self.close_sent or self.disconnected:  # a close was sent (or answered), or the socket is gone
            return False
        self._frames_out.hold(frame)
        return True

    def limit_backlog(self, most: int, too_slow: Callable[[], None]) -> None:
        """Call ``too_slow`` (once) when, after a flush, the peer has more than ``most`` bytes still to read."""
        self._backlog_limit = (most, too_slow)

    def _flushed(self, backlog: int) -> None:
        if self._backlog_limit is not None and backlog > self._backlog_limit[0]:
            too_slow, self._backlog_limit = self._backlog_limit[1], None
            too_slow()
