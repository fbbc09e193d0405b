"""At most a few notices on screen at once. Textual keeps every notice until it times out and stacks them all;
past the limit the oldest of the mildest goes first, so a liquidation outlasts a run of fills (the event log
keeps every one of them)."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.notifications import Notify

__all__ = ["TOASTS_CSS", "keep_at_most"]

# notices at the top right, under the header, over the book (or the chart where they share a place), no wider
# than the narrowest right-hand column (40): never over the footer, the bars or the positions
TOASTS_CSS = """
    ToastRack {
        dock: top;
        align: right top;
        margin-top: 1;
        margin-bottom: 0;
        max-height: 75%;
        overflow-y: hidden;
    }
    Toast {
        width: 40;
        max-width: 50%;
        padding: 0 1;
    }
    """

_RANK = {"information": 0, "warning": 1, "error": 2}


def keep_at_most(app: App[Any], event: Notify, most: int) -> None:
    """Called from the app's ``on_notify``, which runs before Textual's own handler adds ``event``'s notice:
    make room for it, or prevent it when it is the one to go."""
    shown = [*app._notifications, event.notification]
    while len(shown) > most:
        mildest = min(shown, key=lambda n: _RANK.get(n.severity, 0))  # the oldest of them: min keeps the first
        shown.remove(mildest)
        if mildest is event.notification:
            event.prevent_default()
        else:
            app._unnotify(mildest, refresh=False)
