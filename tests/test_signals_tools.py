"""A signal with a chase running in a real ``xtui`` (a pty, its built-in exchange): SIGTERM ends it as ``q`` does,
and the chase is stopped on the way out, its order withdrawn and its end logged. Every wait has a deadline."""

from __future__ import annotations

import os
import signal
import time

from tests.test_signals import DEADLINE_S, Dashboard, assert_terminal_given_back, dashboard

__all__ = ["dashboard"]  # the fixture, shared with test_signals


def until_logged(d: Dashboard, text: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while text not in d.log():
        assert time.monotonic() < deadline, f"{text!r} never logged: {d.log()[-1500:]}"
        d.drain(0.05)


def test_sigterm_with_a_chase_running_withdraws_its_order(dashboard: object) -> None:
    """O, n, 0.001, Enter: a chase bids at the best bid; SIGTERM: exit status 128 + 15, the terminal given back, and
    the log says the chase was cancelled as xtui quit with nothing left that may still rest."""
    d = dashboard("--seed", "7")  # type: ignore[operator]
    d.read_until(b"spread")
    os.write(d.master, b"O")
    d.read_until(b"Chase and OCO")
    os.write(d.master, b"n")
    d.read_until(b"Enter: start the chase")
    os.write(d.master, b"0.001")
    d.read_until(b"0.001")
    os.write(d.master, b"\r")
    until_logged(d, "chase 1: moved: order 1: buy 0.001 at")
    os.kill(d.proc.pid, signal.SIGTERM)
    assert d.wait_exit() == 128 + signal.SIGTERM
    assert_terminal_given_back(d.out)
    log = d.log()
    assert "chase 1: cancelled: xtui quit: withdrawing its order" in log, log[-1500:]
    assert "chase 1: cancelled: xtui quit: 0 of 0.001 BTC-PERP" in log and "may still rest" not in log, log[-1500:]
