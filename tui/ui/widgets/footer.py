"""Textual's Footer, rebuilt only when the keys it shows change.

Textual's Footer recomposes (some forty keys mounted afresh, then a layout pass of the whole screen)
whenever the screen's bindings may have changed: focus moving, a dialog closing. After the order form
closes that cost ~25 ms on the dashboard, on the path from Enter to the order's acknowledgement. The
keys shown are the same almost every time, so this one compares first.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer as TextualFooter

__all__ = ["Footer"]


class Footer(TextualFooter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple[Any, ...] | None = None  # the keys of the last compose

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    def _keys(self) -> tuple[Any, ...]:
        return tuple(
            (b.key, b.action, b.description, b.show, enabled, tooltip, self.app.get_key_display(b))
            for _, b, enabled, tooltip in self.screen.active_bindings.values()
            if b.show
        )

    async def _recompose_if_changed(self) -> None:
        if not self.is_attached:
            return
        keys = self._keys()
        if keys != self._shown:
            self._shown = keys
            await self.recompose()
