"""A dashboard whose terminal goes away (an SSH link dropped, a closed pty that sends no SIGHUP) ends, and its
built-in exchange with it, instead of reading the end of its input for ever at most of a core.
A real ``xtui`` in a real pty; every wait has a deadline. The log says why it ended (the signal test's hang-up
reads that when the terminal's end is seen before the SIGHUP)."""

from __future__ import annotations

import os
import select
import time
from pathlib import Path

from tests.pty_xtui import xtui_in_pty
from tests.waiting import until_sync

DEADLINE_S = 30.0


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "stat").read_text().rsplit(")", 1)[1].split()[1] == str(pid):
                    out.append(int(entry.name))
            except (OSError, IndexError):
                continue
    return out


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_the_dashboard_and_its_exchange_end_when_the_terminal_goes_away(tmp_path: Path) -> None:
    proc, master = xtui_in_pty(tmp_path, "--seed", "7")
    try:
        seen, exchange = b"", []
        deadline = time.monotonic() + DEADLINE_S
        while b"live" not in seen or not exchange:  # drawn, and its exchange running
            assert time.monotonic() < deadline, "xtui did not come up"
            if select.select([master], [], [], 0.1)[0]:
                seen = seen[-64:] + os.read(master, 65536)
            exchange = children(proc.pid)
        os.close(master)  # the terminal goes away
        proc.wait(DEADLINE_S)
        until_sync(lambda: not any(running(pid) for pid in exchange), "the built-in exchange to end with the dashboard")
        assert "the terminal went away: xtui ends as q does" in (tmp_path / "xtui.log").read_text()  # the log says why
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
