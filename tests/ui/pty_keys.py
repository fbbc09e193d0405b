"""A program in a real pty whose input the test writes in chunks of its choosing, as a terminal over SSH
delivers fast typing: what it draws is read and dropped on a thread, so it never blocks on a full pty."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Callable
from pathlib import Path

from tests.waiting import until_sync

DEADLINE_S = 30.0


class PtyProgram:
    def __init__(self, args: list[str], env: dict[str, str], size: tuple[int, int] = (160, 48)) -> None:
        master, slave = pty.openpty()
        cols, rows = size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.proc = subprocess.Popen(
            [sys.executable, *args], stdin=slave, stdout=slave, stderr=slave,
            env={**os.environ, "TERM": "xterm-256color", **env}, start_new_session=True, close_fds=True,
        )  # fmt: skip
        os.close(slave)
        self.master = master
        self.screen = bytearray()
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()  # close() ends the reader through it, at once
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                ready = select.select([self.master, self._wake_r], [], [])[0]
                if self._wake_r in ready:
                    return
                data = os.read(self.master, 65536)
                if not data:
                    return
                with self._lock:
                    self.screen += data
                    del self.screen[: max(0, len(self.screen) - (1 << 20))]
            except OSError:
                return

    def drawn(self) -> bytes:
        with self._lock:
            return bytes(self.screen)

    def write(self, chunk: str) -> None:
        """One write: the program reads it in one read (a pty hands a small write over whole)."""
        os.write(self.master, chunk.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(DEADLINE_S)
        # The reader ends before the pty is closed: the next pty opened takes the same descriptor number, and a
        # reader still selecting on it took that pty's output (seen: a later test's first frame lost, its screen
        # torn, on a busy machine).
        os.write(self._wake_w, b"x")
        self._reader.join(DEADLINE_S)
        for fd in (self.master, self._wake_r, self._wake_w):
            os.close(fd)


def wait_for(what: str, check: Callable[[], bool], deadline_s: float = DEADLINE_S) -> None:
    until_sync(check, what, deadline_s)


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []
