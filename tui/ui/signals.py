"""SIGTERM, SIGHUP and SIGINT end the dashboard as ``q`` does, and no action in flight goes unrecorded.

A signal stops the TWAPs and the trailing stops (each says what it leaves: its last stop stays), gives the signed
actions on their way a moment to be answered, and ends the app through its own exit, so Textual's teardown restores
the terminal and the built-in exchange is told to stop. Whatever way the dashboard ends, ``SessionEnd.record`` logs
every action that was in flight at that moment with its transaction hash or "outcome unknown"; an unknown one leaves
a note in the profile's data directory, which the next start of that profile shows beside its open orders
(``tui.ui.last_session``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from pathlib import Path
from typing import TYPE_CHECKING

from tui.api.in_flight import InFlight, SentAction
from tui.ui.last_session import note_path, write_note

if TYPE_CHECKING:
    from tui.ui.app import XtuiApp

__all__ = ["ENDING_SIGNALS", "SessionEnd"]

log = logging.getLogger(__name__)
ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, name))
SETTLE_S = 5.0  # how long actions in flight may take to be answered before the exit goes on without them
STOP_S = 5.0  # how long the TWAPs and the feed may take to stop


class SessionEnd:
    """How one dashboard session ends: the signal handlers, and the record of what was in flight."""

    def __init__(self, app: XtuiApp, note: Path) -> None:
        self.app = app
        self.note = note  # the profile's last-session note, written when an outcome stays unknown
        self.signal: signal.Signals | None = None
        self.in_flight: dict[int, SentAction] = {}  # what was on its way when the end began
        self._task: asyncio.Task[None] | None = None
        self._installed: list[signal.Signals] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def return_code(self) -> int:
        """0 after ``q``; 128 + the signal's number after a signal, as a shell reports a process it ended."""
        return 0 if self.signal is None else 128 + int(self.signal)

    def install(self) -> None:
        """Handle the ending signals on the running loop, and note what is in flight when the app exits."""
        loop = self._loop = asyncio.get_running_loop()
        for sig in ENDING_SIGNALS:
            with contextlib.suppress(NotImplementedError):  # a loop without signal handlers (Windows)
                loop.add_signal_handler(sig, self._received, sig)
                self._installed.append(sig)
        self.app.on_exit.append(self._exiting)
        self.app.on_switch.append(self._switched)

    def _switched(self) -> None:
        """Another account shown: an outcome left unknown now is that profile's, and its next start says so."""
        self.note = note_path(self.app.session.profile)

    def uninstall(self) -> None:
        """Give the signals back to Python's defaults, but a hang-up: the session is ending, and one now (the SSH
        link dropped, after the terminal went) would cut short the teardown that stops the built-in exchange."""
        for sig in self._installed:
            if self._loop is not None and not self._loop.is_closed():
                self._loop.remove_signal_handler(sig)
        self._installed.clear()
        if hasattr(signal, "SIGHUP"):
            signal.signal(signal.SIGHUP, signal.SIG_IGN)

    def _received(self, sig: signal.Signals) -> None:
        if self._task is not None:  # a second signal: no more waiting
            log.warning("%s received again: ending now", sig.name)
            self._task.cancel()
            self._exit_app()
            return
        self.signal = sig
        log.warning("%s received: xtui ends as q does", sig.name)
        self._note_in_flight(self.app.client.in_flight)  # what was on its way as the signal came
        self._task = asyncio.get_running_loop().create_task(self._end())

    async def _end(self) -> None:
        app = self.app
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STOP_S):
                    await app.stop_tools()
            self._note_in_flight(app.client.in_flight)
            await InFlight.settle(self.in_flight.values(), SETTLE_S)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STOP_S):
                    await app.feed.stop()
        finally:
            self._exit_app()

    def _exit_app(self) -> None:
        if not self.app.is_running:
            return
        self.app.exit(return_code=self.return_code)

    def _exiting(self) -> None:
        """The app begins to exit (``q``, a signal, the terminal gone): what is on its way now was in flight."""
        self._note_in_flight(self.app.client.in_flight)

    def _note_in_flight(self, registry: InFlight) -> None:
        for entry in registry.open():
            self.in_flight.setdefault(entry.number, entry)

    def record(self) -> None:
        """Log each action that was in flight as the session ended, and leave a note if any outcome is unknown."""
        self.uninstall()
        how = self.signal.name if self.signal is not None else "exit"
        entries = list(self.in_flight.values())
        for entry in entries:
            level = logging.INFO if entry.known else logging.WARNING
            log.log(level, "in flight as xtui ended (%s): %s: %s", how, entry.describe(), entry.outcome)
        unknown = [e for e in entries if not e.known]
        if unknown:
            try:
                write_note(self.note, how, [f"{e.describe()}: {e.outcome}" for e in unknown])
            except OSError as exc:
                log.error("could not leave the last-session note %s: %s", self.note, exc)
