"""Clock drift (the exchange's time minus this machine's), as the status bar shows it, from fresh stamps only.

A stamp read late (a frame handled after a stall, an answer that took long) is older than the moment it is read,
so ``stamp - now`` is only a lower bound of the drift: like the client's ``ServerClock``, the largest bound of the
last ``WINDOW_S`` wins, and a late one never drags the drift back. An answer is used only when it came back within
``FRESH_S`` of its request, and its HTTP ``Date`` (whole seconds) only while nothing at all has been measured. A
failed or missing answer measures nothing, so a disconnect leaves the last drift measured as it was (and forgets the
stamps: after it, the drift is measured afresh).
"""

from __future__ import annotations

from collections.abc import Callable

from tui.api.server_time import ServerClock, date_ms

from .state import FeedStatus

__all__ = ["FRESH_S", "SHOWN_CHANGE_MS", "WINDOW_S", "DriftMeter"]

FRESH_S = 0.5  # an answer slower than this says too little of when it was stamped
WINDOW_S = 30.0  # how long a stamp counts
SHOWN_CHANGE_MS = 250  # smaller changes do not redraw the status bar


class DriftMeter:
    """``status.clock_drift_ms`` from the exchange's stamps: ``wall`` (epoch seconds) is this machine's time,
    ``clock`` (monotonic seconds) ages the stamps; ``changed`` is called when the drift shown should change."""

    def __init__(
        self, status: FeedStatus, *, wall: Callable[[], float], clock: Callable[[], float], changed: Callable[[], None]
    ) -> None:
        self._status = status
        self._clock = clock
        self._changed = changed
        self._wall = wall
        self._bounds = ServerClock(self._wall_ms, window_s=WINDOW_S, monotonic=clock)  # fine stamps only

    def forget(self) -> None:
        """The connection was lost: the stamps before it say nothing of the clocks after it (one of them may have
        been set meanwhile). The drift shown stays until a fresh stamp measures it again."""
        self._bounds = ServerClock(self._wall_ms, window_s=WINDOW_S, monotonic=self._clock)

    def _wall_ms(self) -> int:
        return int(self._wall() * 1000)

    def stamped(self, server_ms: int, sent_s: float | None = None) -> None:
        """The exchange stamped ``server_ms`` on what is read now: a pushed frame (``sent_s`` None) or the answer
        to a request sent at ``sent_s`` (``clock`` time), which counts only if it came back fresh."""
        if sent_s is not None and self._clock() - sent_s > FRESH_S:
            return
        self._bounds.observe(server_ms)
        self._show(self._bounds.offset_ms)

    def dated(self, header: str | None, sent_s: float) -> None:
        """An answer's HTTP ``Date``, read as it arrives: only fresh, and only while no drift is known at all."""
        stamp = date_ms(header)
        if stamp is None or self._status.clock_drift_ms is not None or self._clock() - sent_s > FRESH_S:
            return
        self._show(stamp - self._wall_ms())

    def _show(self, drift: int | None) -> None:
        status = self._status
        if drift is None:  # every stamp aged out (nothing heard for a while): the last measure stands
            return
        old, status.clock_drift_ms = status.clock_drift_ms, drift
        if old is None or abs(drift - old) > SHOWN_CHANGE_MS:
            self._changed()
