"""When the panes may draw: on change, as long as the terminal's byte budget and the link allow it.

A pane used to redraw on a fixed tick (100 ms) after news coalesced for 75 ms: a tick waited up to two of
those before it was on screen, busy or not. Now news is drawn at once, and what limits the redraws is what
they cost: the bytes written to the terminal. ``BytePacer`` is a token bucket of ``rate`` bytes a second
(up to ``burst`` saved up): a redraw may start while the bucket is not empty, and when it is, the next one
waits until it has filled back; news that comes meanwhile is drawn together with it (coalesced by bytes,
not by time). A quiet market is drawn within a frame; a busy one as often as the budget pays for.

The link has the last word: when the driver still holds writes the terminal has not taken (the pty write
blocks: the link is slower than the budget), nothing is drawn until they are out, so that the picture sent
is always the latest and nothing queues.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["DEFAULT_BUDGET", "LOW_BANDWIDTH_BUDGET", "BytePacer"]

DEFAULT_BUDGET = 5_000  # bytes a second the panes' redraws may spend (the whole screen's goal: <= 6,000)
LOW_BANDWIDTH_BUDGET = 2_200  # --low-bandwidth (its goal: <= 3,000)
BURST_S = 0.5  # seconds of budget that may be saved up: a quiet spell pays for a prompt redraw
MAX_DEBT_S = 3.0  # the longest a burst of bytes (a dialog opening) holds the next redraw; a pane's own redraw
# (the chart's, 2-5 KB) stays under it, so the budget holds (a 1 s cap let 6,500 B/s through)
BACKLOG_WAIT_S = 0.05  # how often to look again while the link is behind


class BytePacer:
    """A token bucket over the bytes written to the terminal (``written()``: the total so far, None when
    nothing counts them, headless) and the writes still queued for it (``queued()``)."""

    def __init__(
        self,
        rate: float,
        clock: Callable[[], float],
        written: Callable[[], int | None],
        queued: Callable[[], int] = lambda: 0,
        burst_s: float = BURST_S,
    ) -> None:
        self.rate = rate
        self._clock = clock
        self._written = written
        self._queued = queued
        self._burst = rate * burst_s
        self._tokens = self._burst
        self._at: float | None = None  # when the bucket was last brought up to date
        self._seen: int | None = None  # the byte total then
        self.held = 0  # redraws held back, for lack of budget or because the link was behind

    def wait(self, urgent: bool = False) -> float:
        """Seconds until the panes may draw: 0 now, else how long until the budget (or the link) allows it.
        ``urgent`` news (the account's own: a fill, an order done) is drawn whatever the budget, its bytes
        counted all the same; only a link that is behind holds it."""
        self._settle()
        if self._queued() > 0:
            self.held += 1
            return BACKLOG_WAIT_S
        if self._tokens > 0 or urgent:
            return 0.0
        self.held += 1
        return -self._tokens / self.rate

    def forgive(self) -> None:
        """The bytes written so far are not charged, and the burst is saved up again: a screen's first picture,
        which a key asked for (the ladder opened), must not hold its first redraws for seconds."""
        self._seen = None
        self._tokens = self._burst

    def _settle(self) -> None:
        now = self._clock()
        total = self._written()
        if self._at is not None:
            self._tokens = min(self._burst, self._tokens + (now - self._at) * self.rate)
        if total is not None and self._seen is not None:
            # every byte counts, what a key drew included, but a dialog's 50 KB must not hold the panes for
            # 16 s: the debt is capped at MAX_DEBT_S of budget (a link that cannot take it shows as ``queued``)
            self._tokens = max(-self.rate * MAX_DEBT_S, self._tokens - (total - self._seen))
        self._at, self._seen = now, total
