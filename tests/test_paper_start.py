"""``xtui --profile paper`` and ``xtui sim --mirror`` with a source that cannot be read (nothing listening, or a
server that accepts and never answers) end within 10 s with one line, whatever stdin and stdout are: a pipe and
/dev/null, or a real pty. It once spun a core for ten minutes with its exchange a zombie, and under a pty sat on
"○ connecting" with no error. Real processes; every wait has a deadline."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pty_xtui import xtui_in_pty
from tests.test_exchange_process import wait_until_gone
from tui.bench.terminal import children

WITHIN_S = 10.0


@contextlib.contextmanager
def silent_source() -> Iterator[str]:
    """A server on 127.0.0.1 that takes connections and never answers (its backlog accepts them for it)."""
    with socket.create_server(("127.0.0.1", 0), backlog=64) as sock:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


def nothing_listening() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def env_for(home: Path, source: str) -> dict[str, str]:
    return {**os.environ, "XTUI_MIRROR": source, "XTUI_DATA_DIR": str(home), "XTUI_LOG_DIR": str(home),
            "XTUI_CACHE_DIR": str(home / "cache"), "XTUI_CONFIG": str(home / "config.toml")}  # fmt: skip


def run_piped(args: list[str], env: dict[str, str]) -> tuple[int, str, str, float]:
    """``python -m tui ARGS`` with stdin /dev/null and stdout, stderr pipes: status, out, err, seconds taken."""
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "tui", *args],
        stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=WITHIN_S * 3,
    )  # fmt: skip
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode(), time.monotonic() - start


@pytest.mark.parametrize("kind", ["silent", "refused"])
def test_the_paper_profile_with_its_source_unreachable_ends_in_one_line(tmp_path: Path, kind: str) -> None:
    """``xtui --profile paper``, stdin /dev/null, stdout and stderr pipes, its source silent (or refusing): exit 1
    within 10 s, one line on stderr naming the source, nothing on stdout, the screen never taken."""
    with silent_source() if kind == "silent" else contextlib.nullcontext(nothing_listening()) as source:
        assert source is not None
        code, out, err, took = run_piped(["--profile", "paper"], env_for(tmp_path, source))
    assert code == 1 and took < WITHIN_S, (code, took, err[-300:])
    assert out == "" and err.count("\n") == 1 and err.startswith("xtui: ") and source in err, err[-500:]
    assert "\x1b[" not in err


def test_xtui_sim_mirror_with_a_silent_source_ends_in_one_line(tmp_path: Path) -> None:
    """``xtui sim --mirror URL`` with a silent source, stdin /dev/null: exit 1 within 10 s, one line naming it."""
    with silent_source() as source:
        code, out, err, took = run_piped(["sim", "--port", "0", "--mirror", source], env_for(tmp_path, source))
    assert code == 1 and took < WITHIN_S and out == "", (code, took, err)
    assert err == f"xtui sim: cannot mirror {source}: no answer in time\n" or (
        err.count("\n") == 1 and err.startswith(f"xtui sim: cannot mirror {source}: ")
    ), err


def test_the_paper_profile_in_a_pty_with_a_silent_source_ends_in_one_line(tmp_path: Path) -> None:
    """The same in a real pty: exit 1 within 10 s with the one line, the screen never taken, no exchange left."""
    with silent_source() as source:
        proc, master = xtui_in_pty(tmp_path, "--profile", "paper", env={"XTUI_MIRROR": source})
        out = b""
        start = time.monotonic()
        exchange: list[int] = []
        try:
            while proc.poll() is None:
                assert time.monotonic() - start < WITHIN_S, f"still running: {out[-300:]!r}"
                exchange = exchange or children(proc.pid)
                if select.select([master], [], [], 0.05)[0]:
                    with contextlib.suppress(OSError):
                        out += os.read(master, 65536)
            with contextlib.suppress(OSError):
                while select.select([master], [], [], 0.05)[0]:
                    chunk = os.read(master, 65536)
                    if not chunk:
                        break
                    out += chunk
        finally:
            os.close(master)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 1
    text = out.decode(errors="replace")
    assert b"\x1b[?1049h" not in out and text.strip().startswith("xtui: ") and source in text, text
    for pid in exchange:
        wait_until_gone(pid)


@pytest.mark.parametrize("where", ["input", "error"])
def test_the_dashboard_without_a_terminal_says_so_in_one_line(tmp_path: Path, where: str) -> None:
    """``xtui --seed 7`` with stdin /dev/null, or with stdin a pty but stderr (where it draws) a pipe: exit 1 at
    once with one line, instead of spinning a core on the end of its input, or drawing frames into a file."""
    env = env_for(tmp_path, "")
    env.pop("XTUI_MIRROR")  # the local profile, its own market
    start = time.monotonic()
    master, slave = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tui", "--seed", "7"],
            stdin=subprocess.DEVNULL if where == "input" else slave, capture_output=True, env=env, timeout=30,
        )  # fmt: skip
    finally:
        os.close(slave)
        os.close(master)
    code, out, err, took = done.returncode, done.stdout.decode(), done.stderr.decode(), time.monotonic() - start
    assert code == 1 and took < WITHIN_S and out == "", (code, took, err[-300:])
    assert err == (
        f"xtui: the dashboard needs a terminal, and its standard {where} is not one "
        "(from a script: `xtui info`, `xtui export`, `xtui doctor`)\n"
    ), err[-300:]
