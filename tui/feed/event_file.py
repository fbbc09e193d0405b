"""The event log kept on disk, per profile: ``events-<profile>.log`` in the data directory, one line per event
(``2026-11-26T19:05:01.123Z fill Bought 0.0500 BTC-PERP at 100,123.4 · taker · fee 1.25``), readable as text.

A thread of its own does all the file work, so the UI's loop never waits on a disk: it first reads back the end
of the file (at most ``TAIL_BYTES``, the last ``TAIL_LINES`` lines, each made one printable line) for the log
screen's earlier entries, then appends what it is handed. The file is rotated by size: past ``MAX_BYTES`` it
becomes ``.1`` (``.1`` becomes ``.2``; at most ``BACKUPS`` are kept). The file is only ever appended to, never
parsed: whatever it holds (a damaged line, binary junk, a directory or a link in its place) is at worst shown as
text or not read, and never stops the dashboard; what went wrong is in ``problem``.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from pathlib import Path

from tui.edges.regular_files import open_to_read, open_to_write
from tui.paths import profile_file

from .event_entries import LogEntry, one_line

__all__ = ["BACKUPS", "MAX_BYTES", "TAIL_BYTES", "TAIL_LINES", "EventFile", "event_log_path"]

log = logging.getLogger(__name__)
MAX_BYTES = 1 << 20  # a file this big is rotated
BACKUPS = 2  # rotated files kept beside the current one: three files, 3 MiB at most
TAIL_BYTES = 64 << 10  # read back at start, at most
TAIL_LINES = 200


def event_log_path(directory: Path, profile: str) -> Path:
    """``<directory>/events-<profile>.log``, the name made file-safe."""
    return profile_file(directory, "events", profile).with_suffix(".log")


def read_tail(path: Path, max_bytes: int = TAIL_BYTES, max_lines: int = TAIL_LINES) -> list[str]:
    """The last lines of ``path`` (at most ``max_bytes`` read), oldest first, each one printable line; [] when
    there is no such file. A line cut by the start of what was read is left out."""
    try:
        f = open_to_read(path, follow=False)
    except FileNotFoundError:
        return []
    with f:
        size = os.fstat(f.fileno()).st_size
        start = max(0, size - max_bytes)
        f.seek(start)
        data = f.read(max_bytes)
    lines = data.decode("utf-8", errors="replace").splitlines()
    if start and lines:
        lines = lines[1:]
    return [one_line(x) for x in lines[-max_lines:] if x.strip()]


class EventFile:
    """Appends the log's entries to ``path`` from a thread of its own; ``earlier`` is the file's end as it was."""

    def __init__(self, path: Path, max_bytes: int = MAX_BYTES, backups: int = BACKUPS) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.backups = backups
        self.earlier: list[str] = []  # read back by the thread before its first write
        self.problem = ""  # the last thing that went wrong with the file, for the log screen to say
        self.read = threading.Event()  # set once ``earlier`` is read (or could not be)
        self._queue: queue.SimpleQueue[list[str] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._written = threading.Condition()
        self._pending = 0  # batches handed over and not yet written

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="xtui-event-file", daemon=True)
            self._thread.start()

    def write(self, entries: list[LogEntry]) -> None:
        """Hand ``entries`` over to be appended; never waits on the disk."""
        if entries:
            with self._written:
                self._pending += 1
            self._queue.put([e.line() for e in entries])

    def flushed(self, timeout: float) -> bool:
        """Wait (not on the UI's loop) until what was handed over is written; True if it was in time."""
        with self._written:
            return self._written.wait_for(lambda: self._pending == 0, timeout)

    def close(self, timeout: float = 2.0) -> None:
        """Write what is handed over, then stop the thread (waiting at most ``timeout``)."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        try:
            self.earlier = read_tail(self.path)
        except (OSError, ValueError) as exc:
            self.problem = f"event log {self.path} not read back: {exc}"
            log.warning("%s", self.problem)
        self.read.set()
        while (lines := self._queue.get()) is not None:
            try:
                self._append("".join(f"{x}\n" for x in lines).encode("utf-8", errors="replace"))
            except OSError as exc:  # the entries stay on the log screen; only the file misses them
                self.problem = f"event log {self.path} not written: {exc}"
                log.warning("%s", self.problem)
            with self._written:
                self._pending -= 1
                self._written.notify_all()

    def _append(self, data: bytes) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            size = self.path.lstat().st_size
        except FileNotFoundError:
            size = 0
        if size and size + len(data) > self.max_bytes:
            self._rotate()
        with open_to_write(self.path, append=True, mode=0o600) as f:
            f.write(data)

    def _rotate(self) -> None:
        """``path`` becomes ``path.1``, ``.1`` becomes ``.2``...; the oldest beyond ``backups`` is dropped."""
        for n in range(self.backups, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{n}")
            newer = self.path.with_name(f"{self.path.name}.{n - 1}") if n > 1 else self.path
            if newer.exists() or newer.is_symlink():
                os.replace(newer, older)
