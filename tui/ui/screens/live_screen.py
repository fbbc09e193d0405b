"""A screen over the dashboard that follows the feed as the dashboard's panes do (the ladder, the heatmap).

The app tells the screen on top which topics changed (``feed_changed``); its live widgets re-read the state on
the screen's refresh timer, at most every ``refresh_s``, as the dashboard's panes do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType

from tui.ui.render.screens import LeanScreen
from tui.ui.widgets.pane import FollowsFeed

if TYPE_CHECKING:
    from .main import MainScreen

__all__ = ["LiveScreen"]


class LiveScreen(LeanScreen[None]):
    """Follows the feed of ``main`` (the dashboard it opened over); Escape goes back to it."""

    SCOPE: ClassVar[str] = ""  # its name in the key table and the palette
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="live.back", tooltip="Back to the dashboard"),
    ]

    def __init__(self, main: MainScreen, *, refresh_s: float) -> None:
        super().__init__()
        self.main = main
        self.refresh_s = refresh_s
        self._live: list[FollowsFeed] = []

    def on_mount(self) -> None:
        self._live = [w for w in self.query("*") if isinstance(w, FollowsFeed)]
        self.set_interval(self.refresh_s, self.flush)
        self.flush()

    def feed_changed(self, topics: frozenset[str]) -> None:
        for widget in self._live:
            widget.feed_changed(topics)
        self.flush(tick=False)

    def flush(self, tick: bool = True) -> None:
        for widget in self._live:
            widget.flush(tick)

    def action_back(self) -> None:
        self.dismiss(None)
