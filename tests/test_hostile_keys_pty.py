"""The reported row, as a user does it: a real ``xtui`` in a real pty, the scale form (S), "²" typed into its Orders
field, Enter. Before, the dashboard exited (ValueError in ``scale_plan``), its exchange with it; now the form says
what is wrong and the dashboard is still running and answering keys (the field fixed, it goes on to the next
problem). Every wait has a deadline."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import time
from pathlib import Path

from tests.pty_xtui import xtui_in_pty
from tui.bench.screen_text import ScreenText

DEADLINE_S = 30.0
SIZE = (140, 40)
_ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\x1b\][^\x07]*\x07")


class Screen:
    """What the pty has shown so far, escape sequences taken out (a line's words can be drawn in parts)."""

    def __init__(self, master: int, proc: subprocess.Popen[bytes]) -> None:
        self.master = master
        self.proc = proc
        self.raw = b""
        self.screen = ScreenText(*SIZE)  # a frame writes only the cells that changed: words are read off the screen

    def read(self) -> None:
        if select.select([self.master], [], [], 0.1)[0]:
            try:
                data = os.read(self.master, 1 << 16)
                self.raw += data
                self.screen.feed(data)
            except OSError:  # EIO: the other end of the pty is closed
                raise AssertionError(f"xtui ended (exit code {self.proc.wait(DEADLINE_S)})") from None

    def text(self) -> str:
        return _ESCAPES.sub(b"", self.raw).decode(errors="replace")

    def until(self, *words: str, what: str) -> None:
        deadline = time.monotonic() + DEADLINE_S
        while not all(w in self.text() or any(w in line for line in self.screen.lines()) for w in words):
            shown = "\n".join(self.screen.lines())
            assert time.monotonic() < deadline, f"no {what} on the screen:\n{shown}"
            self.read()

    def send(self, data: bytes) -> None:
        os.write(self.master, data)


def test_a_superscript_in_the_scale_forms_orders_field_is_refused_and_xtui_runs_on(tmp_path: Path) -> None:
    proc, master = xtui_in_pty(tmp_path, "--seed", "7", size=SIZE)
    screen = Screen(master, proc)
    try:
        screen.until("live", what="the dashboard")
        # S, then shift+tab in the same read: the form opens on its size field and the shift+tab waits for it (keys
        # in order), then goes back to Orders, its text selected so that typing replaces it
        screen.send(b"S\x1b[Z")
        screen.until("Scale order", "Orders", what="the scale form")
        screen.raw = b""
        screen.send("²".encode() + b"\r")
        screen.until("Orders: the number of orders is a whole number", "not '²'", what="the refusal of ²")
        assert proc.poll() is None, "xtui ended"
        screen.raw = b""
        screen.send(b"\x15")  # ctrl+u clears the field: its placeholder shows
        screen.until("2 to 50 ", what="the cleared field")
        screen.raw = b""
        screen.send(b"3\r")  # the form answers, now about the empty size
        screen.until("size is required", what="the next refusal")
        assert proc.poll() is None, "xtui ended"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: the dashboard and the exchange it started
        proc.wait(DEADLINE_S)
        os.close(master)
