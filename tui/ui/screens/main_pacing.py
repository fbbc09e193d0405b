"""The dashboard's news drawn at once while the terminal's byte budget allows, else as soon as it does."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.timer import Timer

from tui.ui.diagnostics import TerminalBytes
from tui.ui.render.pacing import DEFAULT_BUDGET, LOW_BANDWIDTH_BUDGET, BytePacer

if TYPE_CHECKING:
    from .main import MainScreen

__all__ = ["NewsPacing"]


class NewsPacing:
    """One timer for all that waits for the budget (``tui.ui.render.pacing``); made on mount, when the app is known."""

    def __init__(self, screen: MainScreen, clock: Callable[[], float], low_bandwidth: bool) -> None:
        self.screen = screen
        counter = getattr(screen.app, "terminal_bytes", None)  # counted by the output driver; none while headless
        bytes_out = counter if isinstance(counter, TerminalBytes) else TerminalBytes()
        budget = LOW_BANDWIDTH_BUDGET if low_bandwidth else DEFAULT_BUDGET
        self.pacer = BytePacer(budget, clock, bytes_out.read, lambda: bytes_out.queued())
        self._held: Timer | None = None  # the redraw waiting for budget, when one is

    def news(self) -> None:
        """Draw what changed now if the budget allows it, else once it does."""
        wait = self.pacer.wait()
        if wait <= 0:
            self.screen.flush_panes(tick=False)
        elif self._held is None:
            self._held = self.screen.set_timer(wait, self._draw_held)

    def _draw_held(self) -> None:
        self._held = None
        self.news()

    def tick(self) -> None:
        """The refresh tick: paced panes count it; what is due is drawn if the budget allows it."""
        wait = self.pacer.wait()
        if wait <= 0:
            self.screen.flush_panes()
            return
        for pane in self.screen.live_panes():
            pane.count_tick()
        if self._held is None:
            self._held = self.screen.set_timer(wait, self._draw_held)
