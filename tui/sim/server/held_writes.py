"""A connection's transport whose writes are held, then go out joined in one system call.

On an idle socket every ``transport.write`` is a ``send``. The local exchange's HTTP answers (head, then body:
``http_transport``) and its WebSocket frames (an event fanned out to many subscribers: ``ws_transport``) are
written in bursts, so each protocol holds a burst and releases it at once: HTTP at the loop's next turn, the
WebSocket a millisecond after its first frame, with one timer for every connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

__all__ = ["HeldWrites"]


class HeldWrites:
    """Stands in for ``transport``: writes are held until ``release`` sends them joined. ``schedule`` is called
    with this object when a write is held and nothing was (it arranges the release); ``released``, if given,
    is told after each release how many bytes the peer has yet to read. A close sends what is held first, an
    abort drops it."""

    def __init__(
        self,
        transport: asyncio.Transport,
        schedule: Callable[[HeldWrites], object],
        released: Callable[[int], None] | None = None,
    ) -> None:
        self.transport = transport
        self._held: list[bytes] = []
        self._schedule = schedule
        self._released = released

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.hold(data if type(data) is bytes else bytes(data))

    def hold(self, data: bytes) -> None:
        """``write`` for bytes (the WebSocket hub's frames: its hot path)."""
        if not self._held:
            self._schedule(self)
        self._held.append(data)

    def release(self) -> None:
        """Write what is held, now."""
        if self._held:
            data = b"".join(self._held)
            self._held.clear()
            if not self.transport.is_closing():
                self.transport.write(data)
                if self._released is not None:
                    self._released(self.transport.get_write_buffer_size())

    def close(self) -> None:
        self.release()  # what was written just before a close (an answer, a close frame) goes out first
        self.transport.close()

    def abort(self) -> None:
        self._held.clear()
        self.transport.abort()

    def is_closing(self) -> bool:
        return self.transport.is_closing()

    def __getattr__(self, name: str) -> Any:  # get_extra_info, pause_reading, set_protocol, ...
        return getattr(self.transport, name)
