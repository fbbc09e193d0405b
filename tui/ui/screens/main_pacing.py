"""The dashboard's news drawn at once while the terminal's byte budget allows, else as soon as it does; the screens
over it that follow the feed (the ladder, the heatmap, a layout) are paced the same way, each by its own pacer over
the one byte count (``screen_pacing``): whatever screen is on top, the terminal is sent at most the budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from textual.timer import Timer
from textual.widget import Widget

from tui.ui.diagnostics import TerminalBytes
from tui.ui.render.pacing import DEFAULT_BUDGET, LOW_BANDWIDTH_BUDGET, BytePacer
from tui.ui.widgets.pane import FollowsFeed

__all__ = ["LOW_BANDWIDTH_STRETCH", "Flush", "NewsPacing", "screen_pacing"]

LOW_BANDWIDTH_STRETCH = 2.0  # on a slow link the panes paced in seconds (account, positions) redraw half as often

# the account's own news (a fill, an order placed or done) is drawn at once, whatever the byte budget and the panes'
# pace: a trader reads the position right after the notice; its position and summary come in pushes of their own,
# so theirs is drawn at once too for HURRY_S after
URGENT_TOPICS = frozenset({"events"})  # something happened to the account (the feed marks it only then)
ACCOUNT_TOPICS = frozenset({"events", "orders", "fills", "positions", "account"})
HURRY_S = 2.0


class Flush(Protocol):
    """Let the live panes draw what changed (``topics``: only those that follow one of them)."""

    def __call__(self, tick: bool = True, topics: frozenset[str] | None = None) -> None: ...


class NewsPacing:
    """One timer for all that waits for the budget (``tui.ui.render.pacing``): ``flush`` draws the ``panes``,
    ``timer`` holds a redraw, ``bytes_out`` counts what the terminal was sent. Made on mount, when the app is known."""

    def __init__(
        self,
        flush: Flush,
        panes: Callable[[], Sequence[FollowsFeed]],
        timer: Callable[[float, Callable[[], None]], Timer],
        bytes_out: TerminalBytes,
        clock: Callable[[], float],
        low_bandwidth: bool,
    ) -> None:
        self.flush = flush
        self.panes = panes
        self._timer = timer
        budget = LOW_BANDWIDTH_BUDGET if low_bandwidth else DEFAULT_BUDGET
        self.pacer = BytePacer(budget, clock, bytes_out.read, lambda: bytes_out.queued())
        self._held: Timer | None = None  # the redraw waiting for budget, when one is
        self._clock = clock
        self._hurry_until = -1.0  # until when the account's positions and summary are drawn at once (HURRY_S)

    def news(self, topics: frozenset[str] = frozenset()) -> None:
        """Draw what changed (``topics``) now if the budget allows it, else once it does; the account's own news
        at once, whatever the budget (``urgent``)."""
        if self.urgent(topics) and self.pacer.wait(urgent=True) <= 0:
            self.flush(tick=False, topics=ACCOUNT_TOPICS)
        wait = self.pacer.wait()
        if wait <= 0:
            self.flush(tick=False)
        elif self._held is None:
            self._held = self._timer(wait, self._draw_held)

    def urgent(self, topics: frozenset[str]) -> bool:
        """Whether ``topics`` are the account's own news (or its positions and summary shortly after); the panes
        that show them are then due at once, whatever their pace."""
        now = self._clock()
        if topics & URGENT_TOPICS:
            self._hurry_until = now + HURRY_S
        if now >= self._hurry_until or not topics & ACCOUNT_TOPICS:
            return False
        for pane in self.panes():
            if pane.TOPICS & topics & ACCOUNT_TOPICS:
                pane.redraw_soon()
        return True

    def _draw_held(self) -> None:
        self._held = None
        self.news()

    def tick(self) -> None:
        """The refresh tick: paced panes count it; what is due is drawn if the budget allows it."""
        wait = self.pacer.wait()
        if wait <= 0:
            self.flush()
            return
        for pane in self.panes():
            pane.count_tick()
        if self._held is None:
            self._held = self._timer(wait, self._draw_held)


def screen_pacing(
    screen: Widget,
    flush: Flush,
    panes: Callable[[], Sequence[FollowsFeed]],
    clock: Callable[[], float],
    low_bandwidth: bool,
) -> NewsPacing:
    """The pacing of a screen that follows the feed (call it once mounted): its own pacer, over the bytes the app's
    driver counts for the whole terminal (none while headless: then nothing is held). A screen opened over the
    dashboard starts with the burst saved up, and from then on is charged every byte the terminal is sent."""
    counter = getattr(screen.app, "terminal_bytes", None)
    bytes_out = counter if isinstance(counter, TerminalBytes) else TerminalBytes()
    return NewsPacing(flush, panes, screen.set_timer, bytes_out, clock, low_bandwidth)
