"""An unexpected exception is shown where it happened and logged; it does not end the dashboard.

Forms and prompts catch what their checks raise and show it in place (``shown_in_place``). Whatever still escapes a
message handler, a timer or a callback reaches ``App._handle_exception``, which in Textual always exits the app
(and with it every running TWAP). The message loop the error came from has ended by then, so ``guard_app`` decides
by where it came from:
- a screen over the dashboard (a form, a dialog, a data screen), or a widget of one: it is closed, the error told in
  a notification and logged, and the dashboard goes on;
- a widget of the dashboard's own screen (a pane): told and logged; that pane stops, the rest goes on;
- the app's own loop or the dashboard's screen: they would no longer answer a key (not even q) or would show
  prices that no longer move, so the app ends as Textual would, after logging it. Key bindings' actions and what
  follows a dialog's answer run in the app's loop, so those are caught before they reach it (``run_action`` and
  ``push_screen`` wrapped), told and logged, and the app goes on;
- a storm (``BURST`` errors within ``BURST_S``: something failing on every frame) ends it likewise.

Textual's privates this relies on (8.2.8): ``App._handle_exception``, ``App._exception`` (what ``run_test``
re-raises at its end, so a Pilot test still fails on an error it did not expect), ``_context.active_message_pump``
and ``_callback.invoke``.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from typing import Any

from textual._callback import invoke  # calls a callback with as many arguments as it takes, as Textual does
from textual._context import active_message_pump  # which message loop the error ended
from textual.app import App
from textual.dom import NoScreen
from textual.screen import Screen
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
    """From now on an exception no handler caught is shown and logged, and ``app`` goes on running where it can."""
    fatal = app._handle_exception
    recent: deque[float] = deque(maxlen=BURST)

    def told(what: str, error: Exception) -> None:
        if app._exception is None:  # as Textual does: a Pilot test still re-raises it when the app ends
            app._exception = error
        shown_in_place(app, what, error)

    def contained(error: Exception) -> None:
        now = time.monotonic()
        storm = len(recent) == BURST and now - recent[0] < BURST_S
        source = active_message_pump.get(None)
        screen = _screen_of(source)
        stack = app.screen_stack
        dashboard = stack[0] if stack else None
        if storm or not app.is_running or screen is None or source is dashboard:
            log.error("unexpected error: the app ends", exc_info=error)
            fatal(error)
            return
        recent.append(now)
        where = type(source).__name__
        if screen is not dashboard and screen.is_current:
            told(f"unexpected error in {where}; it was closed", error)
            app.pop_screen()  # its message loop ended with the error: it would not answer a key again
        else:
            told(f"unexpected error in {where}; it stopped, the rest goes on", error)

    # Key bindings' actions, and what follows a dialog's answer, run in the app's own message loop, which an error
    # would end: they are caught here, before it sees them.
    run_action = app.run_action

    async def guarded_action(action: Any, default_namespace: Any = None, namespaces: Any = None) -> bool:
        try:
            return await run_action(action, default_namespace, namespaces)
        except Exception as error:
            told(f"the action {str(action)[:40]} failed", error)
            return True

    push_screen: Any = app.push_screen  # its overloads do not admit a pass-through

    def guarded_push(screen: Any, callback: Any = None, wait_for_dismiss: bool = False, **kwargs: Any) -> Any:
        if callback is None:
            return push_screen(screen, None, wait_for_dismiss, **kwargs)

        async def answered(result: Any) -> None:
            try:
                await invoke(callback, result)
            except Exception as error:
                told(f"unexpected error after {type(screen).__name__}", error)

        return push_screen(screen, answered, wait_for_dismiss, **kwargs)

    app._handle_exception = contained  # type: ignore[method-assign]
    app.run_action = guarded_action  # type: ignore[method-assign]
    app.push_screen = guarded_push  # type: ignore[method-assign]


def _screen_of(source: object) -> Screen[Any] | None:
    """The screen the failed message loop belongs to: itself, or the screen of a widget; None for the app."""
    if isinstance(source, Screen):
        return source
    if isinstance(source, Widget):
        try:
            return source.screen
        except NoScreen:
            return None
    return None
