"""The terminal's output, written whole: every byte of every frame reaches the terminal, or the write fails loudly.

Textual's writer thread writes frames to ``sys.__stderr__``. With ``PYTHONUNBUFFERED`` set (``-u``; many
container images set it) that is a text wrapper straight over the file descriptor, which ignores how much of a
write went out: a frame written while the terminal is full (a slow SSH link) and cut short by a signal (a resize,
a child ending) loses the rest, silently. The screen is then left torn, and since xtui writes only what changed,
it stays torn (seen: a 20 KB frame cut at 4 KB, the order form half drawn and a typed digit landing on the
wrong row). A descriptor made non-blocking by another program sharing the terminal fails the same way, or ends
the writer thread with ``BlockingIOError``.

``terminal_out`` gives the writer thread a text stream over ``WholeWrites`` instead, which writes until the last
byte is out and waits for the terminal to take more when it is full.
"""

from __future__ import annotations

import io
import os
import select
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["WholeWrites", "terminal_out"]


class WholeWrites(io.RawIOBase):
    """Writes to the descriptor ``fd`` that return once every byte is out. The descriptor stays open."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    @property
    def name(self) -> int:
        return self._fd  # as a FileIO opened on a descriptor names itself

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: ReadableBuffer) -> int:
        view = memoryview(data).cast("B")
        total = len(view)
        while view:
            try:
                written = os.write(self._fd, view)  # a signal mid-write: what went out is counted, the rest follows
            except BlockingIOError:
                select.select([], [self._fd], [])  # a non-blocking descriptor, full: until it takes more
                continue
            view = view[written:]
        return total


def terminal_out(stream: TextIO | None) -> io.TextIOWrapper | None:
    """A text stream that writes what ``stream`` (the terminal) would, in its encoding and error handling, but
    whole; None for no stream."""
    if stream is None:
        return None
    return io.TextIOWrapper(WholeWrites(stream.fileno()), stream.encoding, stream.errors, write_through=True)
