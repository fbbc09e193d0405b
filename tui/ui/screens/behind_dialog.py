"""A screen behind a dialog: what changes on it is drawn by the dialog's screen, a region at a time.

Textual passes the regions that changed on a visible screen behind the top one to the top screen to draw, then
marks the whole of the screen behind for repaint. Its next update is then passed up as the whole screen: with the
market moving behind a dialog, every frame was a whole one (~120 KB a second at 160x48 with the order form open,
against ~8 KB without it). ``draw_behind`` passes the regions up and leaves it there; back on top, a screen is
repainted whole anyway (Textual's resume handler). It relies on Textual's ``Screen._compositor_refresh`` and
its compositor's ``_dirty_regions`` (textual 8.2.8).
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen

__all__ = ["draw_behind"]


def draw_behind(screen: Screen[Any]) -> bool:
    """For ``screen``'s ``_compositor_refresh``: when it is behind the top screen and shows, pass what changed on it
    up to be drawn and return True; False when it is not behind (Textual's own refresh applies)."""
    app = screen.app
    if screen is app.screen or screen not in app._background_screens or app.is_inline:
        return False
    compositor = screen._compositor
    if compositor._dirty_regions:
        screen._set_dirty(*compositor._dirty_regions)
        app.screen.refresh(*compositor._dirty_regions)
        compositor._dirty_regions.clear()
        screen._dirty_widgets.clear()
    app._update_mouse_over(screen)
    return True
