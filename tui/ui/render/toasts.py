"""At most a few notices on screen at once. Textual keeps every notice until it times out and stacks them all;
past the limit the oldest of the mildest goes first, so a liquidation outlasts a run of fills (the event log
keeps every one of them)."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.notifications import Notify

__all__ = ["keep_at_most"]

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
