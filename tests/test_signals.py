"""SIGTERM, SIGHUP and SIGINT end the dashboard as ``q`` does: a real ``xtui`` in a real pty, its terminal given back
(main screen, mouse reporting off, cursor shown), its built-in exchange gone, the signal in the log, and a buy on
its way when the signal came logged with its transaction hash or "outcome unknown". Every wait has a deadline."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time
from pathlib import Path

import pytest

from tests.pty_xtui import xtui_in_pty
from tests.test_exchange_process import wait_until_gone
from tui.bench.screen_text import ScreenText
from tui.bench.terminal import children

DEADLINE_S = 30.0
ALT_SCREEN_ON, ALT_SCREEN_OFF = b"\x1b[?1049h", b"\x1b[?1049l"
MOUSE_ON, MOUSE_OFF = b"\x1b[?1000h", b"\x1b[?1000l"
CURSOR_HIDDEN, CURSOR_SHOWN = b"\x1b[?25l", b"\x1b[?25h"


class Dashboard:
    """``xtui`` in a pty, with everything it wrote to its terminal."""

    def __init__(self, home: Path, *args: str) -> None:
        self.home = home
        self.proc, self.master = xtui_in_pty(home, *args, size=(120, 30))
        self.out = b""
        self.screen = ScreenText(120, 30)  # a frame writes only the cells that changed: "0.001" typed is "1" last
        self.exchange: list[int] = []  # its built-in exchange, thawed and ended at close whatever the test did

    def read_until(self, text: bytes, deadline_s: float = DEADLINE_S) -> None:
        """Until ``text`` is on the screen, or was written in one piece (a notice that wraps, a sequence)."""
        deadline = time.monotonic() + deadline_s
        while text not in self.out and not any(text.decode() in line for line in self.screen.lines()):
            assert self.proc.poll() is None, self.out[-800:]
            assert time.monotonic() < deadline, f"{text!r} never came: {self.out[-800:]!r}"
            self.drain(0.1)

    def drain(self, wait_s: float) -> None:
        if select.select([self.master], [], [], wait_s)[0]:
            with contextlib.suppress(OSError):  # EIO once the process has closed its end
                data = os.read(self.master, 65536)
                self.out += data
                self.screen.feed(data)

    def wait_exit(self) -> int:
        deadline = time.monotonic() + DEADLINE_S
        while self.proc.poll() is None:  # its terminal kept drained while it ends
            assert time.monotonic() < deadline, "xtui did not end"
            self.drain(0.05)
        for _ in range(20):  # what it wrote last
            before = len(self.out)
            self.drain(0.01)
            if len(self.out) == before:
                break
        return self.proc.returncode

    def log(self) -> str:
        path = self.home / "xtui.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def find_exchange(self) -> int:
        self.exchange = children(self.proc.pid)
        assert len(self.exchange) == 1, f"not one built-in exchange under the dashboard: {self.exchange}"
        return self.exchange[0]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.master)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pid in self.exchange:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)  # a frozen exchange cannot read that its dashboard is gone


@pytest.fixture
def dashboard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setenv("XTUI_LOG_LEVEL", "debug")  # the log says when a signed action is sent
    made: list[Dashboard] = []

    def start(*args: str) -> Dashboard:
        d = Dashboard(tmp_path, *args)
        made.append(d)
        return d

    yield start
    for d in made:
        d.close()


def assert_terminal_given_back(out: bytes) -> None:
    """After the last time the dashboard took the terminal: the main screen back, the mouse off, the cursor shown."""
    assert ALT_SCREEN_ON in out, "the dashboard never took the screen"
    assert out.rfind(ALT_SCREEN_OFF) > out.rfind(ALT_SCREEN_ON), out[-400:]
    assert out.rfind(MOUSE_OFF) > out.rfind(MOUSE_ON), out[-400:]
    assert out.rfind(CURSOR_SHOWN) > out.rfind(CURSOR_HIDDEN), out[-400:]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
def test_a_signal_ends_the_dashboard_as_q_does(dashboard: object, sig: signal.Signals) -> None:
    """The dashboard up on its built-in exchange, then ``kill -SIG``: the terminal is given back, the exit status is
    128 + the signal's number, the exchange is gone, and the log says which signal ended it."""
    d = dashboard("--seed", "7")  # type: ignore[operator]
    d.read_until(b"spread")
    exchange = d.find_exchange()
    os.kill(d.proc.pid, sig)
    assert d.wait_exit() == 128 + sig
    assert_terminal_given_back(d.out)
    wait_until_gone(exchange)
    assert f"{sig.name} received: xtui ends as q does" in d.log()


def test_a_hang_up_with_the_terminal_gone_ends_it_and_its_exchange(dashboard: object) -> None:
    """An SSH link dropped: the terminal closes, then SIGHUP. The dashboard ends (nothing left to restore) with
    128 + 1, its exchange with it, and the log says why."""
    d = dashboard("--seed", "7")  # type: ignore[operator]
    d.read_until(b"spread")
    exchange = d.find_exchange()
    os.close(d.master)
    os.kill(d.proc.pid, signal.SIGHUP)
    assert d.proc.wait(DEADLINE_S) in (128 + signal.SIGHUP, 1)  # the signal, or the terminal gone: whichever first
    wait_until_gone(exchange)
    assert "SIGHUP received" in d.log() or "terminal went away" in d.log()


def test_q_still_ends_with_status_zero_and_no_note(dashboard: object, tmp_path: Path) -> None:
    """``q`` with nothing in flight: status 0, the terminal given back, no last-session note left."""
    d = dashboard("--seed", "7")  # type: ignore[operator]
    d.read_until(b"spread")
    os.write(d.master, b"q")
    assert d.wait_exit() == 0
    assert_terminal_given_back(d.out)
    assert not list(tmp_path.glob("last-session-*.json"))


def send_a_buy_to_a_frozen_exchange(d: Dashboard, exchange: int) -> None:
    """b, 0.001 (BTC, in the size field the form focuses), the exchange frozen, Enter: a buy on its way."""
    os.write(d.master, b"b")
    d.read_until(b"Submit")
    os.write(d.master, b"0.001")
    d.read_until(b"0.001")
    os.kill(exchange, signal.SIGSTOP)
    os.write(d.master, b"\r")
    deadline = time.monotonic() + DEADLINE_S
    while "sending placeOrder" not in d.log():  # a debug line of tui.api.in_flight
        assert time.monotonic() < deadline, "the buy was not sent"
        d.drain(0.05)


def test_sigterm_while_a_buy_is_on_its_way_logs_it(dashboard: object, tmp_path: Path) -> None:
    """The built-in exchange frozen (SIGSTOP), a buy sent (b, Enter), SIGTERM to the dashboard, then the exchange
    thawed: the buy fills, and the log names it with its transaction hash; no note is left, since its outcome is
    known."""
    d = dashboard("--seed", "7")  # type: ignore[operator]
    d.read_until(b"spread")
    exchange = d.find_exchange()
    send_a_buy_to_a_frozen_exchange(d, exchange)
    os.kill(d.proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + DEADLINE_S
    while "SIGTERM received" not in d.log():  # the buy still unanswered when the signal is handled
        assert time.monotonic() < deadline, "the signal was not handled"
        d.drain(0.05)
    os.kill(exchange, signal.SIGCONT)
    assert d.wait_exit() == 128 + signal.SIGTERM
    said = [line for line in d.log().splitlines() if "tui.ui" in line or "in_flight" in line]
    assert any("in flight as xtui ended (SIGTERM): placeOrder" in line and ": tx 0x" in line for line in said), said
    assert not list(tmp_path.glob("last-session-*.json"))


@pytest.mark.long
def test_sigterm_with_the_exchange_frozen_leaves_a_note_the_next_start_shows(dashboard: object, tmp_path: Path) -> None:
    """The built-in exchange frozen, a buy sent, SIGTERM: the exit waits its few seconds, logs the buy as "outcome
    unknown" and leaves a note; the next start of the profile says so and shows the open orders."""
    d = dashboard("--seed", "7")  # type: ignore[operator]
    d.read_until(b"spread")
    exchange = d.find_exchange()
    send_a_buy_to_a_frozen_exchange(d, exchange)
    os.kill(d.proc.pid, signal.SIGTERM)
    assert d.wait_exit() == 128 + signal.SIGTERM
    assert_terminal_given_back(d.out)
    log = d.log()
    assert "in flight as xtui ended (SIGTERM): placeOrder" in log and "outcome unknown" in log, log[-2000:]
    [note] = tmp_path.glob("last-session-*.json")
    wait_until_gone(exchange)
    again = dashboard("--seed", "7")  # type: ignore[operator]
    again.read_until(b"unknown:")  # one word: the notice wraps where its time string puts it
    assert not note.exists()
