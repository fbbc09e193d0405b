"""The built-in exchange in a process of its own: what ``xtui`` starts when a profile has no URL.

In the dashboard's own process the synthetic market and the matching engine competed with the UI for the
interpreter lock (that contention was most of an order's Enter-to-acknowledged time), and their imports were
part of start-up. In a child process, the exchange starts while the dashboard's modules load, on the other core,
and never takes a frame from the UI.

Its address is known before it starts: the dashboard makes the listening socket and hands it down (``--fd``),
so the dashboard starts at once, and its first requests wait in the socket's queue until the exchange serves
(``serving`` tells when, or why it did not).

It lives and dies with the dashboard: it is stopped when the dashboard ends, and it watches its standard input,
a pipe only the dashboard holds, so that it also ends when the dashboard is killed (``--exit-with-stdin``). Its
standard error (the market's seed, a mirror's source going quiet) goes to the log, never onto the screen.

It runs as ``python -m tui.sim`` (``tui.sim.__main__``): the exchange without the rest of ``xtui``'s command
line to import first. Here only the standard library and ``tui.logs`` (loaded by the command line already) are
imported: the point is to start it before anything heavy loads.
"""

from __future__ import annotations

import logging
import os
import selectors
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from decimal import Decimal
from typing import IO, NoReturn

from tui.logs import LEVELS

__all__ = ["ExchangeProcess", "ExchangeStartError"]

log = logging.getLogger(__name__)
STOP_S = 5.0  # how long a stopping exchange has before it is killed
LISTEN_BACKLOG = 128  # connections that may wait for it while it starts


class ExchangeStartError(RuntimeError):
    """The local exchange did not start, or is not running."""


class ExchangeProcess:
    """``xtui sim`` on a free loopback port, in a child process that ends with this one."""

    def __init__(
        self,
        *,
        network: str = "testnet",
        seed: int | None = None,
        mirror: str | None = None,
        mirror_max_move_pct: Decimal | None = None,
        market: bool = True,
    ) -> None:
        args = ["--network", network, "--exit-with-stdin"]
        if seed is not None:
            args += ["--seed", str(seed)]
        if mirror is not None:
            args += ["--mirror", mirror]
            if mirror_max_move_pct is not None:
                args += ["--mirror-max-move-pct", format(mirror_max_move_pct, "f")]
        if not market:
            args.append("--quiet-market")
        self.args = [sys.executable, "-m", "tui.sim", *args]
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""
        self.seed: int | None = None  # the market's seed, as the exchange said it (None for a mirror)
        self._said: deque[str] = deque(maxlen=20)  # its last lines on standard error, for a failed start
        self._reader: threading.Thread | None = None
        self._spawned_at: float | None = None
        self._serves = False  # it said where it listens: its first line is read, the next wait returns at once

    def spawn(self) -> str:
        """Start the process and return its base URL at once: requests sent there wait until it serves
        (``serving``, ``wait_ready``: until then)."""
        level = logging.getLevelName(logging.getLogger().getEffectiveLevel()).lower()  # the dashboard's
        self._spawned_at = time.monotonic()
        with socket.create_server(("127.0.0.1", 0), backlog=LISTEN_BACKLOG) as listening:
            fd = listening.fileno()
            self.proc = subprocess.Popen(
                [*self.args, "--fd", str(fd), "--log-level", level if level in LEVELS else "info"],
                stdin=subprocess.PIPE,  # the lifeline: closed when this process ends, however it ends
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(fd,),
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                start_new_session=True,  # the terminal's signals (Ctrl-C, Ctrl-Z) are the dashboard's to handle
            )
            # the child holds the only copy from here: if it ends, connections are refused, not left waiting
            self.url = f"http://127.0.0.1:{listening.getsockname()[1]}"
        self._reader = threading.Thread(target=self._read_stderr, name="xtui-exchange-stderr", daemon=True)
        self._reader.start()
        return self.url

    @property
    def age_s(self) -> float:
        """Seconds since ``spawn`` (0 before)."""
        return 0.0 if self._spawned_at is None else time.monotonic() - self._spawned_at

    def wait_ready(self, timeout: float = 20.0) -> str:
        """Wait until it serves and return its base URL; ``ExchangeStartError`` (with what it said) if not."""
        proc, out = self._started()
        if self._serves:
            return self.url
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(out, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    self._late()
                line = out.readline()
                if line.startswith(b"listening on ") or not line:
                    return self._served(proc, line)

    async def serving(self, timeout: float = 20.0) -> str:
        """``wait_ready`` without holding the event loop it is awaited on."""
        import asyncio  # here: the dashboard spawns this exchange before it loads asyncio (~25 ms, with ssl)

        proc, out = self._started()
        if self._serves:
            return self.url
        loop = asyncio.get_running_loop()
        fd = out.fileno()
        said: asyncio.Future[bytes] = loop.create_future()
        got = bytearray()

        def readable() -> None:
            chunk = os.read(fd, 4096)
            got.extend(chunk)
            if (b"\n" in got or not chunk) and not said.done():
                said.set_result(bytes(got).partition(b"\n")[0])

        loop.add_reader(fd, readable)
        try:
            async with asyncio.timeout(timeout):
                line = await said
        except TimeoutError:
            self._late()
        finally:
            loop.remove_reader(fd)
        return self._served(proc, line)

    def _started(self) -> tuple[subprocess.Popen[bytes], IO[bytes]]:
        """The process and the pipe of its standard output, where it says when it serves."""
        if self.proc is None or self.proc.stdout is None:
            raise ExchangeStartError("the local exchange was not started")
        return self.proc, self.proc.stdout

    def _late(self) -> NoReturn:
        self.stop()
        raise ExchangeStartError("the local exchange did not start in time")

    def _served(self, proc: subprocess.Popen[bytes], line: bytes) -> str:
        """Its first line on standard output: where it serves, or nothing, when it ended before serving."""
        if line.startswith(b"listening on "):
            self.url = line.decode(errors="replace").split()[-1]
            self._serves = True
            return self.url
        proc.wait()
        if self._reader is not None:
            self._reader.join(1.0)
        said = " ".join(self._said) or f"it exited with status {proc.returncode}"
        raise ExchangeStartError(f"the local exchange did not start: {said}")

    def start(self, timeout: float = 20.0) -> str:
        """``spawn`` and ``wait_ready``."""
        self.spawn()
        return self.wait_ready(timeout)

    def stop_soon(self) -> None:
        """Tell it to stop and return at once: its stdin closes, as when this process ends. ``stop`` waits."""
        if self.proc is not None and self.proc.stdin is not None:
            self.proc.stdin.close()

    def stop(self) -> None:
        """Stop it (SIGTERM, then SIGKILL after ``STOP_S``) and reap it; nothing is left behind."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(STOP_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        if self._reader is not None:
            self._reader.join(1.0)

    def _read_stderr(self) -> None:
        proc = self.proc
        if proc is None or proc.stderr is None:
            return
        for raw in proc.stderr:
            line = raw.decode(errors="replace").strip()
            if not line:
                continue
            self._said.append(line)
            if line.startswith("market seed "):
                word = line.split()[2]
                self.seed = int(word) if word.isdigit() else None
            log.info("local exchange: %s", line)
        proc.stderr.close()

    def __enter__(self) -> ExchangeProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
