"""Screens that draw little: a change behind a dialog is drawn as its own lines, and a screen styled as it mounted
is not styled again when first shown.

Textual passes the regions that changed on a visible screen behind the top one to the top screen to draw, then
marks the whole screen behind for repaint, so its next update goes up as the whole screen: with the market moving
behind the order form every frame was whole. ``LeanScreen`` passes the regions up and leaves it there; back on
top, a screen is repainted whole anyway (Textual's resume handler).
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual import events
from textual.binding import Binding
from textual.screen import Screen

from . import plain

__all__ = ["LeanScreen"]

R = TypeVar("R")
_PLAIN = plain("lean_screen")  # measured without (xtui bench)


class LeanScreen(Screen[R]):
    RESTYLE_ON_FIRST_RESUME: ClassVar[bool] = True  # False: styled as it mounted, just before it is first shown
    _shown_once = False

    def bound_to(self, key: str) -> list[Binding]:
        """The screen's own bindings of ``key`` (Textual keeps its map of them private)."""
        return list(self._bindings.key_to_bindings.get(key, []))

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """Textual's own handler (``Screen._on_screen_resume``) runs after this one, with the event as this leaves
        it: Textual calls the handler of every class of the screen's that has one."""
        if not self._shown_once and not _PLAIN:
            self._shown_once = True
            if not self.RESTYLE_ON_FIRST_RESUME:
                event.refresh_styles = False

    def _compositor_refresh(self) -> None:
        if _PLAIN or not self._draw_behind():
            super()._compositor_refresh()

    def _draw_behind(self) -> bool:
        """When this screen is behind the top one and shows, pass what changed on it up to be drawn and return
        True; False when it is not behind (Textual's own refresh applies)."""
        app = self.app
        if self is app.screen or self not in app._background_screens or app.is_inline:
            return False
        compositor = self._compositor
        if compositor._dirty_regions:
            self._set_dirty(*compositor._dirty_regions)
            # Textual counts the screen under the top one as behind it even when the top one is opaque (a ladder
            # over the dashboard): then nothing of this one shows, and what changed on it is not drawn at all
            if app.screen.styles.background.a < 1:
                app.screen.refresh(*compositor._dirty_regions)
            compositor._dirty_regions.clear()
            self._dirty_widgets.clear()
        app._update_mouse_over(self)
        return True
