"""Every byte of a frame reaches the terminal (``tui.ui.render.terminal_out``).

Seen in the suite on a busy machine: with ``PYTHONUNBUFFERED`` set, a 20 KB frame was cut at 4 KB, and the order
form stayed half drawn with a typed digit on the wrong row. ``sys.__stderr__`` is then a text wrapper straight over
the descriptor: a write the terminal is too full to take whole, cut short by a signal, loses its end silently.

Each test runs a writer in its own process on a real pty, as the dashboard writes to its terminal: the pty is left
full (nothing is read past the first bytes) so the write is blocked inside the kernel when the signals come, and
only then is the rest read. No timing is involved: a write of 200 KB cannot fit a pty's buffer."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from textual.app import App

from tui.ui.render.lean_output import LeanDriver
from tui.ui.render.terminal_out import WholeWrites

ROOT = str(Path(__file__).resolve().parents[2])
SIZE = 200_000  # 25,000 numbered lines: what arrives is checked line by line
WRITER = """
import fcntl, os, signal, sys
signal.signal(signal.SIGWINCH, lambda *_: None)  # as Textual's driver does: a resize interrupts a blocked write
how = sys.argv[1]
if how.endswith("nonblocking"):
    fd = sys.__stderr__.fileno()
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
if how.startswith("whole"):
    from tui.ui.render.terminal_out import terminal_out
    out = terminal_out(sys.__stderr__)
else:
    out = sys.__stderr__
out.write("".join(f"{i:07d}\\n" for i in range(25_000)))
out.write("END\\n")
out.flush()
"""


def received(how: str, signals: int) -> bytes:
    """What a writer of SIZE bytes in one write delivers to its pty when ``signals`` SIGWINCH reach it while the
    pty is full; PYTHONUNBUFFERED is set, as in a container."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": ROOT}
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, how], stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
    )
    os.close(slave)
    try:
        got = bytearray()
        while len(got) < 1000:  # the write has begun; left unread, the pty fills and the write blocks
            select.select([master], [], [])
            got += os.read(master, 1000 - len(got))
        for _ in range(signals):
            proc.send_signal(signal.SIGWINCH)
        while b"END" not in got:
            select.select([master], [], [])
            try:
                got += os.read(master, 65536)
            except OSError:  # the writer is gone: its end of the pty is closed
                break
        proc.wait(30)
        return bytes(got).replace(b"\r\n", b"\n")
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)


def lines_in_order(data: bytes) -> int:
    """How many of the numbered lines arrived, whole and in order, from the first."""
    expected = 0
    for line in data.split(b"\n"):
        if line != b"%07d" % expected:
            break
        expected += 1
    return expected


def test_the_plain_unbuffered_stream_loses_the_end_of_a_write_a_signal_cuts() -> None:
    """The harness sees the fault: through ``sys.__stderr__`` unbuffered, the write stops at the first signal."""
    assert lines_in_order(received("plain", signals=3)) < 25_000


@pytest.mark.parametrize("signals", [0, 1, 20])
def test_every_byte_reaches_the_terminal_whatever_signals_come(signals: int) -> None:
    data = received("whole", signals)
    assert lines_in_order(data) == 25_000, data[-200:]


def test_a_non_blocking_terminal_is_waited_for_not_given_up_on() -> None:
    """Another program sharing the terminal may make it non-blocking: a plain write then stops where the pty was
    full, silently; the whole write waits for it to take more."""
    assert lines_in_order(received("plain-nonblocking", signals=0)) < 25_000
    data = received("whole-nonblocking", signals=5)
    assert lines_in_order(data) == 25_000, data[-200:]


async def test_the_dashboard_s_driver_writes_through_it() -> None:
    """The file Textual's writer thread is given (``LinuxDriver._file``) is the whole-writing one, on the same
    descriptor and in the same encoding as ``sys.__stderr__``."""
    driver = LeanDriver(App())
    out = driver._file  # private: the file Textual's writer thread is given, which the docstring names
    assert out is not None and isinstance(out.buffer, WholeWrites)
    assert out.fileno() == sys.__stderr__.fileno() and out.encoding == sys.__stderr__.encoding
