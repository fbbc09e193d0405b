"""The dashboard's built-in exchange is a process of its own (``tui.sim.process``): it serves, it stops with
the dashboard, it ends when the dashboard is killed -9, and a failed start says why in the exchange's words.
Real processes; every wait has a deadline."""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.pty_xtui import xtui_in_pty
from tests.waiting import until_sync
from tui.bench.terminal import children
from tui.sim.process import ExchangeProcess, ExchangeStartError

DEADLINE_S = 20.0


def gone(pid: int) -> bool:
    """No such process, or only its zombie left for whoever reaps it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def wait_until_gone(pid: int) -> float:
    start = time.monotonic()
    until_sync(lambda: gone(pid), f"process {pid} to end", DEADLINE_S)
    return time.monotonic() - start


def test_it_serves_says_its_seed_and_leaves_nothing_when_stopped() -> None:
    exchange = ExchangeProcess(seed=11)
    url = exchange.start()
    proc = exchange.proc
    assert proc is not None
    try:
        answer = httpx.post(url + "/info", json={"method": "ticker", "params": {"symbol": "BTC-PERP"}})
        assert answer.status_code == 200
        until_sync(lambda: exchange.seed is not None, "the seed, read off its stderr by a thread")
        assert exchange.seed == 11
    finally:
        exchange.stop()
    assert proc.returncode is not None  # reaped
    with pytest.raises(httpx.TransportError):
        httpx.post(url + "/info", json={"method": "ticker", "params": {"symbol": "BTC-PERP"}}, timeout=2)


PARENT = """
import sys, time
from tui.sim.process import ExchangeProcess
ex = ExchangeProcess()
ex.start()
print(ex.proc.pid, ex.url, flush=True)
time.sleep(60)
"""


def test_it_ends_when_the_dashboard_is_killed() -> None:
    """kill -9 of the process that started it: no goodbye, only the end of the pipe it watches."""
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child_pid, url = parent.stdout.readline().split()
        assert httpx.post(url + "/info", json={"method": "ping", "params": {}}).status_code in (200, 400)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(DEADLINE_S)
        took = wait_until_gone(int(child_pid))
        assert took < 10, took
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_a_failed_start_says_why() -> None:
    exchange = ExchangeProcess(mirror="http://127.0.0.1:9")  # nothing listens on port 9
    with pytest.raises(ExchangeStartError) as failed:
        exchange.start()
    assert "did not start" in str(failed.value) and "127.0.0.1:9" in str(failed.value)
    assert exchange.proc is None or exchange.proc.returncode is not None


def test_its_address_is_known_at_once_and_a_request_sent_before_it_serves_is_answered() -> None:
    """The dashboard makes the listening socket (``--fd``): it starts without waiting for the exchange, and
    its first requests wait in the socket's queue until the exchange serves them."""
    exchange = ExchangeProcess(seed=11)
    url = exchange.spawn()  # the process has only just been started: nothing of it has run yet
    try:
        answer = httpx.post(url + "/info", json={"method": "ticker", "params": {"symbol": "BTC-PERP"}}, timeout=20)
        assert answer.status_code == 200 and answer.json()
        assert exchange.wait_ready() == url
    finally:
        exchange.stop()


async def test_serving_waits_without_holding_the_loop_and_a_failed_start_says_why() -> None:
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticking = asyncio.create_task(tick())
    good, bad = ExchangeProcess(seed=11), ExchangeProcess(mirror="http://127.0.0.1:9")  # nothing listens on 9
    try:
        url = good.spawn()
        bad.spawn()
        assert await good.serving() == url
        with pytest.raises(ExchangeStartError) as failed:
            await bad.serving()
        assert "did not start" in str(failed.value) and "127.0.0.1:9" in str(failed.value)
        assert ticks > 0  # the loop ran while they started
    finally:
        ticking.cancel()
        good.stop()
        bad.stop()


def test_the_dashboard_ends_with_the_exchange_s_words_when_its_exchange_cannot_start(tmp_path: Path) -> None:
    """The dashboard starts before its exchange serves; an exchange that cannot start (here a paper copy of
    an exchange nobody runs) ends it with exit status 1 and one line on stderr, as before, and no traceback."""
    (tmp_path / "config.toml").write_text('[profiles.practice]\nmirror = "http://127.0.0.1:9/"\n')
    proc, master = xtui_in_pty(tmp_path, "--profile", "practice")
    out = b""
    try:
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: every end of the terminal is closed
                    break
                if not chunk:
                    break
                out += chunk
        assert proc.wait(DEADLINE_S) == 1
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = out.decode(errors="replace")
    assert "xtui: the local exchange did not start: " in text and "127.0.0.1:9" in text, text[-500:]
    assert "Traceback" not in text, text[-2000:]


@pytest.mark.parametrize(
    ("fd", "said"),
    [
        ("0", "--fd: must be > 0: '0'"),
        ("x", "--fd: not a whole number (ASCII digits only): 'x'"),
        ("987", "--fd: no open descriptor 987"),
    ],
)
def test_a_bad_descriptor_for_the_exchange_is_refused_by_name(fd: str, said: str) -> None:
    run = subprocess.run([sys.executable, "-m", "tui.sim", "--fd", fd], capture_output=True, text=True, timeout=30)
    assert run.returncode == 2 and said in run.stderr, run.stderr


def test_a_descriptor_that_is_no_socket_is_refused_by_name(tmp_path: Path) -> None:
    with (tmp_path / "file").open("w") as file:
        fd = file.fileno()
        run = subprocess.run(
            [sys.executable, "-m", "tui.sim", "--fd", str(fd)],
            capture_output=True,
            text=True,
            timeout=30,
            pass_fds=(fd,),
        )
    assert run.returncode == 1, run.stderr
    assert f"xtui sim: cannot listen on descriptor {fd}: " in run.stderr and "socket" in run.stderr, run.stderr


def test_told_to_stop_soon_it_ends_by_itself() -> None:
    """``stop_soon`` closes its lifeline and returns at once: the exchange ends on its own (the dashboard calls it
    as it begins to exit, so the exchange's ~0.2 s stop runs beside Textual's teardown; ``stop`` then only reaps)."""
    exchange = ExchangeProcess(seed=11)
    exchange.start()
    proc = exchange.proc
    assert proc is not None
    try:
        exchange.stop_soon()
        assert proc.poll() is None or proc.returncode == 0  # returned at once, nothing sent but the EOF
        wait_until_gone(proc.pid)
        assert proc.wait(DEADLINE_S) == 0
    finally:
        exchange.stop()


async def test_the_app_tells_its_exit_hooks_once_before_it_tears_down() -> None:
    from tests.conftest import QUIET_WS
    from tui.api.client import Client
    from tui.ui.app import make_app

    seen: list[bool] = []
    async with Client("http://127.0.0.1:9") as client:  # nobody serves: the app needs no data for this
        app = make_app(client, "ws://127.0.0.1:9/ws/", None, feed_options={"ws_options": QUIET_WS})
        app.on_exit.append(lambda: seen.append(app.is_running))
        async with app.run_test(size=(80, 24)):
            app.exit()
            app.exit()  # a second exit (a second q, say) calls nothing again
    assert seen == [True]


def test_q_ends_the_dashboard_and_its_exchange(tmp_path: Path) -> None:
    """A trader's quit, in a real pty: ``q`` ends xtui with status 0, and its built-in exchange is gone with it."""
    proc, master = xtui_in_pty(tmp_path, "--seed", "7", size=(120, 30))
    out = b""
    try:
        deadline = time.monotonic() + DEADLINE_S
        while b"spread" not in out:  # the dashboard is up, with the exchange's data
            assert time.monotonic() < deadline, out[-500:]
            if select.select([master], [], [], 0.1)[0]:
                out += os.read(master, 65536)
        exchange = children(proc.pid)
        assert exchange, "no built-in exchange under the dashboard"
        os.write(master, b"q")
        while proc.poll() is None:  # keep its terminal drained while it ends
            assert time.monotonic() < deadline + DEADLINE_S, "q did not end xtui"
            if select.select([master], [], [], 0.1)[0]:
                with contextlib.suppress(OSError):
                    os.read(master, 65536)
        assert proc.returncode == 0
        for child in exchange:
            wait_until_gone(child)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
