"""Keys reach a text field in the order they were typed, however the terminal chunks them.

Textual inserts a printable key as the focused ``Input`` handles it, but runs an editing key (backspace, the
arrows, ctrl+u ...) as a binding only once the key has bubbled up to the app, behind the rest of the same read:
``\\x7f40.25`` typed into ``9`` left ``940.2`` (Textual #6605; #6631 covers a widget's own bindings only). Here
the app takes a key typed into a text field whole, bindings of the field, its screen and the app included, and
waits until the field and its screen have handled what that key made them post (a submit reads the fields)
before it takes the next. ``Paste`` is held in the same line.

Drop this when a released Textual applies a field's keys, and its screen's and app's bindings, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from typing import Any

from textual import events
from textual.app import App
from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import Input

__all__ = ["SETTLE_S", "apply_in_order"]

log = logging.getLogger("tui.ui")
POLL_S = 0.02  # how often a wait looks whether its node has closed
SETTLE_S = 1.0  # a handler that has not finished by then is not waited for (the key order is kept up to it)


def _text_fields() -> tuple[type[Widget], ...]:
    """``Input``, and ``TextArea`` once something has loaded it: no field is one before. Imported here, it brought
    the text area, its document model and a look for tree-sitter into every start (~10 ms) for no screen of xtui's."""
    area = sys.modules.get("textual.widgets._text_area")
    return (Input,) if area is None else (Input, area.TextArea)


async def apply_in_order(app: App[Any], event: events.Event) -> bool:
    """Handle a key or a paste typed while a text field has focus, wholly, before the app reads the next one.
    Returns False, and does nothing, for any other event: Textual's own path takes it."""
    if not isinstance(event, (events.Key, events.Paste)) or event.is_forwarded or not app.screen_stack:
        return False
    field = app.focused
    if not isinstance(field, _text_fields()) or not field.is_attached:
        return False
    if isinstance(event, events.Paste):
        field._forward_event(event)
        await _settle(field)
        return True
    if app.screen.maximized is not None and event.key == "escape" and app.escape_to_minimize:
        return False  # Textual's own rule: escape minimises
    app.app_focus = True
    app.screen._clear_tooltip()
    if await app._check_bindings(event.key, priority=True):
        await _settle(field)
        return True
    if event.key.startswith("alt+") and event.character and not _bound(app, event.key):
        # Escape then a key within the terminal's escape delay reads as alt+key: it is both, in that order.
        for key in (events.Key("escape", "\x1b"), events.Key(event.key.removeprefix("alt+"), event.character)):
            await app.on_event(key)  # the second goes wherever the first left the focus
        return True
    inserted = event.is_printable and field.check_consume_key(event.key, event.character)
    if not inserted and await app._check_bindings(event.key):  # the field's, its screen's, the app's: as bubbling
        await _settle(field)
        return True
    field._forward_event(event)  # a character to insert, or a key no binding wants (a handler may)
    await _settle(field)
    return True


def _bound(app: App[Any], key: str) -> bool:
    return any(key in bindings.key_to_bindings for _, bindings in app.screen._modal_binding_chain)


async def _settle(field: DOMNode) -> None:
    """Until the field and each node above it up to its screen have handled what they were posted: a callback
    is queued behind it, again until the node's queue is empty when one runs (handling posts more)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SETTLE_S
    for node in field.ancestors_with_self:
        if node is field.app:
            return
        while True:
            ran = asyncio.Event()
            drained: list[bool] = []

            def mark(node: DOMNode = node, ran: asyncio.Event = ran, drained: list[bool] = drained) -> None:
                drained.append(node.message_queue_size == 0)
                ran.set()

            if not node.call_later(mark):
                break  # closing: it handles nothing more
            while not ran.is_set():  # a node closed meanwhile never runs the callback
                if node._closing or node._closed:
                    break
                if (left := deadline - loop.time()) <= 0:
                    log.warning("keys: %s still busy after %.1f s; the next key goes on", node, SETTLE_S)
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(ran.wait(), min(left, POLL_S))
            if not drained or drained[0]:
                break
