"""The dashboard's built-in exchange is a process of its own (``tui.sim.process``): it serves, it stops with
the dashboard, it ends when the dashboard is killed -9, and a failed start says why in the exchange's words.
Real processes; every wait has a deadline."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

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
    while not gone(pid):
        assert time.monotonic() - start < DEADLINE_S, f"process {pid} is still running"
        time.sleep(0.02)
    return time.monotonic() - start


def test_it_serves_says_its_seed_and_leaves_nothing_when_stopped() -> None:
    exchange = ExchangeProcess(seed=11)
    url = exchange.start()
    proc = exchange.proc
    assert proc is not None
    try:
        answer = httpx.post(url + "/info", json={"method": "ticker", "params": {"symbol": "BTC-PERP"}})
        assert answer.status_code == 200
        deadline = time.monotonic() + DEADLINE_S
        while exchange.seed is None and time.monotonic() < deadline:  # read off its stderr by a thread
            time.sleep(0.01)
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
