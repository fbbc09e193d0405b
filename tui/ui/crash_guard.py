"""An unexpected exception is shown where it happened and logged; it never ends the dashboard.

Forms and prompts catch what their checks raise and show it in place (``shown_in_place``). Whatever still escapes a
message handler, a timer or a callback reaches ``App._handle_exception``, which in Textual always exits the app
(and with it every running TWAP): ``guard_app`` replaces it on one app by a handler that logs the error, tells the
user in a notification, and closes the dialog it came from (a dialog whose handler failed no longer answers keys).
A storm of errors (``BURST`` within ``BURST_S``: a widget failing on every frame) still ends the app as Textual
would, since nothing on the screen could be trusted then.

Textual's privates this relies on (8.2.8): ``App._handle_exception``, ``App._exception`` (what ``run_test``
re-raises at its end, so a Pilot test still fails on an error it did not expect) and ``_context.active_message_pump``.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from typing import Any

from textual._context import active_message_pump  # which message loop the error ended
from textual.app import App
from textual.message_pump import MessagePump
from textual.screen import ModalScreen
from textual.widget import Widget

__all__ = ["BURST", "BURST_S", "guard_app", "shown_in_place"]

log = logging.getLogger("tui.ui")

BURST = 20  # errors ...
BURST_S = 5.0  # ... within this many seconds: the app is failing on every frame, and ends as Textual would


def _described(exc: BaseException) -> str:
    text = str(exc).strip() or "no message"
    return f"{type(exc).__name__}: {text if len(text) <= 200 else text[:197] + '...'}"


def shown_in_place(node: App[Any] | Widget, what: str, exc: BaseException) -> None:
    """An unexpected error: logged with its traceback, and told in a notification, never raised on."""
    log.error("%s", what, exc_info=exc)
    node.notify(f"{what}: {_described(exc)} (details in the log)", severity="error", timeout=15, markup=False)


def guard_app(app: App[Any]) -> None:
    """From now on an exception no handler caught is shown and logged, and ``app`` goes on running."""
    fatal = app._handle_exception
    recent: deque[float] = deque(maxlen=BURST)

    def contained(error: Exception) -> None:
        now = time.monotonic()
        storm = len(recent) == BURST and now - recent[0] < BURST_S
        if storm or not app.is_running:
            fatal(error)
            return
        recent.append(now)
        if app._exception is None:  # as Textual does: a Pilot test still re-raises it when the app ends
            app._exception = error
        source = active_message_pump.get(None)
        where = type(source).__name__ if isinstance(source, MessagePump) else "the dashboard"
        shown_in_place(app, f"unexpected error in {where}", error)
        if isinstance(source, ModalScreen) and source.is_current:
            app.pop_screen()  # its message loop ended with the error: it would not answer a key again

    app._handle_exception = contained  # type: ignore[method-assign]
