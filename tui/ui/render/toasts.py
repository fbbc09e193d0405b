"""At most a few notices on screen at once. Textual keeps every notice until it times out and stacks them all;
past the limit the oldest of the mildest goes first, so a liquidation outlasts a run of fills (the event log
keeps every one of them)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.notifications import Notification, Notify

__all__ = ["TOASTS_CSS", "NoticeShown", "keep_at_most", "show_now"]

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


class NoticeShown(Notify):
    """A notice already shown (``show_now``): posted for whoever follows the notices (a test's message hook, the
    bench: ``shown_at``, when it was shown), and handled by no one (its handler name is its own, not ``on_notify``)."""

    def __init__(self, notification: Notification) -> None:
        super().__init__(notification)
        self.shown_at = time.perf_counter()


def show_now(app: App[Any], notification: Notification, handle: Callable[[Notify], None]) -> bool:
    """Show ``notification`` now, as Textual's ``Notify`` handler would (``handle``: the app's own ``on_notify``
    first), rather than behind what the app's queue holds: an order's acknowledgement waited there behind a frame or
    two (~13 ms). False, nothing done, off the app's thread (Textual's ``notify`` is thread-safe: post it then)."""
    if getattr(app, "_thread_id", None) != threading.get_ident():  # set once the app runs
        return False
    event = Notify(notification)
    handle(event)
    if not event._no_default_action:
        app._notifications.add(notification)
        app._refresh_notifications()
    return True
