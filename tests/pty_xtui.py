"""``xtui`` as a user runs it, in a real pty: for the tests that watch the process, its terminal and its
built-in exchange (a dropped terminal, a failed start)."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path


def xtui_in_pty(
    home: Path, *args: str, size: tuple[int, int] = (120, 30), env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """``python -m tui ARGS`` in a new pty of ``size`` (columns, rows), with ``home`` for its data, its log, its
    cache and its config (``home/config.toml``), and ``env`` besides; the process and the pty's master end, which
    the caller closes."""
    env = {**os.environ, **(env or {}), "TERM": "xterm-256color", "XTUI_DATA_DIR": str(home), "XTUI_LOG_DIR": str(home),
           "XTUI_CACHE_DIR": str(home / "cache"), "XTUI_CONFIG": str(home / "config.toml")}  # fmt: skip
    master, slave = pty.openpty()
    cols, rows = size
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui", *args],
        stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, close_fds=True,
    )  # fmt: skip
    os.close(slave)
    return proc, master
