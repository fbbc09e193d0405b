"""A screen over the dashboard that follows the feed as the dashboard's panes do (the ladder, the heatmap).

The screen follows the app's signal of the feed's news while it is open (``feed_changed``: which topics changed); its
live widgets re-read the state on the screen's refresh timer, at most every ``refresh_s``, as the dashboard's panes
do.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from tui.ui.render.screens import LeanScreen
from tui.ui.widgets.pane import FollowsFeed

from .context import DashboardContext

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

    def on_mount(self) -> None:
        self._live = [w for w in self.query("*") if isinstance(w, FollowsFeed)]
        self.set_interval(self.refresh_s, self.flush)
        self.context.follow(self, self.feed_changed)
        self.flush()

    def on_unmount(self) -> None:
        self.context.leave(self)

    def feed_changed(self, topics: frozenset[str]) -> None:
        for widget in self._live:
            widget.feed_changed(topics)
        self.flush(tick=False)

    def flush(self, tick: bool = True) -> None:
        for widget in self._live:
            widget.flush(tick)

    def action_back(self) -> None:
        self.dismiss(None)
