"""Keys take effect in the order they were typed, however the terminal chunks them: each key is applied whole
before the next, whatever has the focus, and the keys after one that opens a screen or moves the focus wait until
the screen is up and focused.

Textual forwards a key to the focused widget and reads the next one at once: a binding runs only when the key has
bubbled back up to the app, behind the rest of the same read (``\\x7f40.25`` into ``9`` left ``940.2``, Textual
#6605; Tab then ``7`` from a Select lost the 7), and a screen a key opens is focused later still (``b0.01`` sent
``0.01`` to the dashboard's table, not to the order form ``b`` opened). Here the app applies each key and paste
itself: the priority bindings; in a text field, the field or the bindings (its editing keys are bindings); on any
other widget Textual's order, the widget's own handlers, then the bindings from the widget up, the key caught as it
bubbles up to the app; then it waits until the widget and its screen have handled what the key made them post. A
key that changed the screens or the focus, or scheduled work on the app (``focus()`` does), holds the keys after
it until the top screen is mounted, its focus set and that work done: ``SETTLE_S`` at most a key.

Drop this when a released Textual applies keys, and the screens and focus they change, in order.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections import deque
from typing import Any

from textual import events
from textual.app import App
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input

__all__ = ["SETTLE_S", "KeysInOrder"]

log = logging.getLogger("tui.ui")
SETTLE_S = 3.0  # a key's effects are waited for this long at most (1 s: a starved machine's form took longer)
Typed = events.Key | events.Paste


def _text_fields() -> tuple[type[Widget], ...]:
    """``Input``, and ``TextArea`` once something has loaded it: no field is one before. Imported here, it brought
    the text area, its document model and a look for tree-sitter into every start (~10 ms) for no screen of xtui's."""
    area = sys.modules.get("textual.widgets._text_area")
    return (Input,) if area is None else (Input, area.TextArea)


class _Look(events.Event, bubble=False):
    """Posted to the app behind what a key scheduled there: look whether its effects are all in. Not a
    ``Callback``: Textual skips a callback while the app has no screen (a mode switch), and the keys would wait."""


class KeysInOrder:
    """One app's keys and pastes, applied one at a time: the app's ``on_event`` hands them to ``take``, and its
    ``post_message`` asks ``caught`` first (a key bubbling back up is applied here, not behind the keys after it)."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self._held: deque[Typed] = deque()  # typed, not yet applied
        self._waiting = False  # the last key's effects are still coming in: the keys after it are held
        self._in_flight: Typed | None = None  # forwarded to a widget, caught when it bubbles up to the app
        self._came_back = False
        self._scheduled = False  # the app was given a callback (a focus is one) since this was last cleared
        self._look: _Look | None = None
        self._seen: tuple[object, ...] = ()
        self._deadline = 0.0

    async def take(self, event: events.Event) -> bool:
        """Apply a key or a paste from the terminal, now or after the keys before it; False for any other event
        (Textual's own path takes it)."""
        if isinstance(event, _Look):
            if event is self._look:
                await self._look_again()
            return True
        if not isinstance(event, (events.Key, events.Paste)) or event.is_forwarded or not self.app.screen_stack:
            return False
        if self._waiting and asyncio.get_running_loop().time() > self._deadline + SETTLE_S:
            log.warning("keys: the look after a key never ran; the keys go on")  # never held for ever
            self._waiting = False
        self._held.append(event)
        if not self._waiting:
            await self._release()
        return True

    def caught(self, message: Message) -> bool:
        """True for the key in flight reaching the app (it is applied where it was taken); notes callbacks."""
        if message is self._in_flight:
            self._came_back = True
            return True
        if isinstance(message, events.Callback):
            self._scheduled = True
        return False

    async def _release(self) -> None:
        """Apply the held keys in order, until one leaves effects still to come."""
        while self._held and not self._waiting and self.app.screen_stack:
            event = self._held[0]
            if isinstance(event, events.Key) and (keys := _alt_split(self.app, event)):
                self._held.popleft()
                self._held.extendleft(reversed(keys))
                continue
            before = self._state()
            self._scheduled = False
            try:
                await self._apply(event)
            finally:
                self._held.popleft()
            if not self.app.screen_stack:
                break
            if self._state() != before or self._scheduled or not _ready(self.app.screen):
                self._waiting = True
                self._deadline = asyncio.get_running_loop().time() + SETTLE_S
                self._seen = self._state()
                self._look_later()
        if not self.app.screen_stack:
            self._held.clear()

    def _state(self) -> tuple[object, ...]:
        app = self.app
        return (app.current_mode, *app.screen_stack, app.focused)

    def _look_later(self) -> None:
        """Look again behind everything the app has been given so far."""
        self._look = _Look()
        if not self.app.post_message(self._look):
            self._waiting = False  # the app is closing: nothing more is applied
            self._held.clear()

    async def _look_again(self) -> None:
        """The keys go on once a look, run behind what the key scheduled on the app, finds the top screen mounted
        with what it was posted handled, its callbacks after a refresh run, and nothing changed or scheduled."""
        looks_again = False
        try:
            if self.app.screen_stack:
                self._scheduled = False
                top = self.app.screen
                await _settle(top, self._deadline)
                if _has_refresh_callbacks(top):
                    await _refreshed(top, self._deadline)
                now = self._state()
                settled = now == self._seen and not self._scheduled and _ready(top)
                if not settled and asyncio.get_running_loop().time() < self._deadline:
                    self._seen = now
                    self._look_later()
                    looks_again = True
                    return
                if not settled:
                    log.warning("keys: %s not settled after %.1f s; the next key goes on", top, SETTLE_S)
        finally:
            if not looks_again:
                self._waiting = False  # whatever happened in the look, keys are not held for ever
        await self._release()

    async def _apply(self, event: Typed) -> None:
        app = self.app
        focused = app.focused
        if isinstance(event, events.Paste):
            await self._forward(focused or app.screen, event)
            return
        if app.screen.maximized is not None and event.key == "escape" and app.escape_to_minimize:
            app.screen.minimize()  # Textual's own rule: escape minimises
            return
        app.app_focus = True
        if focused is not None:
            app.screen._clear_tooltip()
        if await app._check_bindings(event.key, priority=True):
            await _settle(focused or app.screen)
            return
        if isinstance(focused, _text_fields()) and focused.is_attached:
            inserted = event.is_printable and focused.check_consume_key(event.key, event.character)
            if not inserted and await app._check_bindings(event.key):  # the field's, its screen's, the app's
                await _settle(focused)
                return
        await self._forward(focused or app.screen, event)

    async def _forward(self, target: Widget, event: Typed) -> None:
        """To ``target``, then up from node to node, as Textual sends it: when it reaches the app, the app's own
        handling (its key handlers, and the bindings from the focused widget up) runs here, not behind the keys
        typed after it."""
        self._in_flight, self._came_back = event, False
        try:
            target._forward_event(event)
            await _settle(target)
        finally:
            self._in_flight = None
        if self._came_back:
            await self.app.on_event(event)
            await _settle(target)


def _alt_split(app: App[Any], event: events.Key) -> list[events.Key] | None:
    """Escape then a key within the terminal's escape delay reads as alt+key: unless alt+key is bound, it is both
    keys, in that order (the Escape that closed a dialog must not swallow the key after it)."""
    character = event.character
    if not event.key.startswith("alt+") or not character or not character.isprintable() or _bound(app, event.key):
        return None
    return [events.Key("escape", "\x1b"), events.Key(event.key.removeprefix("alt+"), character)]


def _bound(app: App[Any], key: str) -> bool:
    return any(key in bindings.key_to_bindings for _, bindings in app.screen._modal_binding_chain)


def _ready(screen: Screen[Any]) -> bool:
    return screen.is_mounted and not _has_refresh_callbacks(screen)


def _has_refresh_callbacks(screen: Screen[Any]) -> bool:
    return bool(screen._callbacks)  # call_after_refresh's, run after the screen's next refresh


async def _refreshed(screen: Screen[Any], deadline: float) -> None:
    """Until the screen has refreshed and run the callbacks it held for then (a focus after a tab switch)."""
    ran = asyncio.Event()
    if screen.call_after_refresh(ran.set):
        await _ran(screen, ran, deadline)


async def _settle(field: DOMNode, deadline: float | None = None) -> None:
    """Until the field and each node above it up to its screen have handled what they were posted: a callback
    is queued behind it, again until the node's queue is empty when one runs (handling posts more)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SETTLE_S if deadline is None else deadline
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
            if not await _ran(node, ran, deadline):
                return
            if not drained or drained[0]:
                break


async def _ran(node: DOMNode, ran: asyncio.Event, deadline: float) -> bool:
    """Until ``ran`` is set or the node's message loop ends (a node closing never runs the callback): False past the
    deadline. Both are awaited, nothing polls."""
    if node._closing or node._closed:
        return True
    left = deadline - asyncio.get_running_loop().time()
    loop_task = node._task
    waits: set[asyncio.Future[Any]] = {asyncio.ensure_future(ran.wait())}
    if loop_task is not None:
        waits.add(loop_task)
    await asyncio.wait(waits, timeout=max(0.0, left), return_when=asyncio.FIRST_COMPLETED)
    for wait in waits:
        if wait is not loop_task:
            wait.cancel()  # ran.wait(), not the node's own loop
    if ran.is_set() or node._closing or node._closed or (loop_task is not None and loop_task.done()):
        return True
    log.warning("keys: %s still busy after %.1f s; the next key goes on", node, SETTLE_S)
    return False
