"""A screen over the dashboard that follows the feed as the dashboard's panes do (the ladder, the heatmap).

The screen follows the app's signal of the feed's news while it is open (``feed_changed``: which topics changed); its
live widgets re-read the state at once, as the dashboard's panes do, as far as the terminal's byte budget allows (its
own ``NewsPacing``, over the bytes of the whole terminal), else as soon as it does; the screen's refresh timer, every
``refresh_s``, draws what is due at a pace.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from tui.ui.render.screens import LeanScreen
from tui.ui.widgets.pane import FollowsFeed

from .context import DashboardContext
from .main_pacing import NewsPacing, screen_pacing

__all__ = ["LiveScreen"]


class LiveScreen(LeanScreen[None]):
    """Follows the feed of ``context``'s session (the dashboard it opened over); Escape goes back to it."""

    SCOPE: ClassVar[str] = ""  # its name in the key table and the palette
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="live.back", tooltip="Back to the dashboard"),
    ]

    def __init__(self, context: DashboardContext, *, refresh_s: float) -> None:
        super().__init__()
        self.context = context
        self.refresh_s = refresh_s
        self._live: list[FollowsFeed] = []
        self.pacing: NewsPacing | None = None  # the terminal's byte budget (made on mount, when the app is known)

    def on_mount(self) -> None:
        # Textual calls the mount handler of every class of the screen's that has one, and the ladder's and the
        # heatmap's call this one too: once only (twice, the refresh timer ran twice, and a pacer went around it)
        if self.pacing is not None:
            return
        self._live = [w for w in self.query("*") if isinstance(w, FollowsFeed)]
        clock, low = self.context.session.clock, self.context.low_bandwidth
        self.pacing = screen_pacing(self, self.flush, lambda: self._live, clock, low)
        self.call_after_refresh(self.pacing.pacer.forgive)  # the first picture is what the key asked for
        self.set_interval(self.refresh_s, self.pacing.tick)
        self.context.follow(self, self.feed_changed)
        self.flush()

    def on_unmount(self) -> None:
        self.context.leave(self)

    def feed_changed(self, topics: frozenset[str]) -> None:
        for widget in self._live:
            widget.feed_changed(topics)
        if self.pacing is not None:
            self.pacing.news(topics)

    def flush(self, tick: bool = True, topics: frozenset[str] | None = None) -> None:
        """Let the live widgets draw what changed (``topics``: only those that follow one of them)."""
        for widget in self._live:
            if topics is None or widget.TOPICS & topics:
                widget.flush(tick)

    def action_back(self) -> None:
        self.dismiss(None)
