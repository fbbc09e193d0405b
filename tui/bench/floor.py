"""The framework's floor: a minimal Textual app's first frame in a real pty, measured as ``xtui``'s start is (from
launching the interpreter to the frame on the terminal), so the two compare in one ``xtui bench --only startup``."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time

__all__ = ["floor_to_first_frame"]

# a screen of one line, Textual's default driver and theme: what any Textual app pays before its first frame
MINIMAL_APP = """
from textual.app import App
from textual.widgets import Static

class Floor(App):
    def compose(self):
        yield Static("floor-ready")

Floor().run()
"""
READY = b"floor-ready"


def floor_to_first_frame(size: tuple[int, int] = (160, 48), timeout: float = 30.0) -> float:
    """Seconds from launching a minimal Textual app (interpreter start included) to its first frame."""
    cols, rows = size
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
    launched = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", MINIMAL_APP], stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
    )
    os.close(slave)
    seen = b""
    try:
        while READY not in seen:
            left = launched + timeout - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"the minimal Textual app drew nothing in {timeout:.0f} s")
            ready, _, _ = select.select([master], [], [], left)
            if ready:
                seen = seen[-64:] + os.read(master, 65536)
        return time.perf_counter() - launched
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
