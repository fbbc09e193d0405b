"""The app's side of writing little to the terminal: frames Textual drops are drawn whole after, what the terminal
already shows is not written again (``whole_frame``), the Linux driver writes colours as differences and reads
keys in order (``lean_output``, ``key_input``), and each key is applied whole, the screen it opens mounted and
focused, before the next one (``keys_in_order``)."""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

from rich.console import RenderableType
from textual import events
from textual._compositor import ChopsUpdate
from textual.app import App
from textual.driver import Driver
from textual.geometry import Offset
from textual.message import Message
from textual.screen import Screen

from . import plain
from .gone_widgets import forget_gone_widgets
from .keys_in_order import KeysInOrder
from .whole_frame import TerminalLines, first_row

__all__ = ["LeanApp"]

# The frame that answers a key goes out in two writes: its first row at once, the rest ``REST_AFTER_S`` later. In
# one write over a slow link the answer arrives with its whole first TCP segment (1,448 bytes: 45 ms at 256 kbit/s).
REST_AFTER_S = 0.008
_PLAIN_WHOLE, _PLAIN_FIRST_ROW = plain("whole_frame"), plain("first_row")  # measured without (xtui bench)

R = TypeVar("R")


class LeanApp(App[R]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._keys = KeysInOrder(self)  # before Textual's own set-up, which may post already
        super().__init__(*args, **kwargs)
        self._whole_due = False  # a frame Textual dropped is to be drawn whole
        self._on_terminal = TerminalLines()
        self._written_cursor = Offset(-1, -1)  # where the last frame written left the terminal's cursor
        self._answer_due = False  # a key came from the terminal: the next frame written answers it
        self._rest: tuple[Screen[Any], ChopsUpdate, asyncio.TimerHandle] | None = None  # the answer's second write

    def on_mount(self) -> None:
        # suspended (SIGTSTP) and back, the terminal may show anything: what it shows is forgotten, and the
        # screen is drawn whole again (Textual drew only what changed after: a blank screen, mostly)
        self.app_suspend_signal.subscribe(self, self._terminal_unknown, immediate=True)
        self.app_resume_signal.subscribe(self, self._terminal_back, immediate=True)
        # a screen closed: what its widgets drew is let go (``gone_widgets``); pushed, the one below stays drawn
        self.screen_change_signal.subscribe(self, self._screen_changed)

    def _screen_changed(self, _screen: Screen[Any]) -> None:
        forget_gone_widgets()

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform; on a POSIX terminal, ``LeanDriver``."""
        driver = super().get_driver_class()
        if driver.__name__ == "LinuxDriver" and driver.__module__ == "textual.drivers.linux_driver":
            from .lean_output import LeanDriver

            return LeanDriver
        return driver

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            self._answer_due = True
        if await self._keys.take(event):
            return
        await super().on_event(event)

    def post_message(self, message: Message) -> bool:
        if self._keys.caught(message):
            return True
        return super().post_message(message)

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        """Textual drops a frame it renders inside a batch held across awaits (its start-up, a screen popped
        with others), yet counts what the frame held as drawn: the next frame then draws only what changed
        since. A frame dropped so makes the next one whole."""
        if renderable is not None and self._batch_count and not self.is_headless and not self._whole_due:
            self._draw_whole_later(screen)
        elif renderable is not None and not self._batch_count and not self.is_headless:
            self._write_rest()  # frames reach the terminal in the order they were made
            # a frame that brings nothing new but a move of the cursor is written as it was: the same cells, and
            # the move
            fresh = None if _PLAIN_WHOLE else self._on_terminal.to_write(renderable)
            if fresh is None and self.cursor_position == self._written_cursor and not _PLAIN_WHOLE:
                return
            renderable = fresh or renderable
            self._written_cursor = self.cursor_position
            if self._answer_due and not _PLAIN_FIRST_ROW:
                self._answer_due = False
                parts = first_row(renderable) if isinstance(renderable, ChopsUpdate) else None
                if parts is not None:
                    renderable, rest = parts
                    later = asyncio.get_running_loop().call_later(REST_AFTER_S, self._write_rest)
                    self._rest = (screen, rest, later)
        super()._display(screen, renderable)

    def _write_rest(self) -> None:
        if self._rest is not None:
            screen, rest, later = self._rest
            self._rest = None
            later.cancel()
            if self._batch_count:  # Textual would drop it: the terminal is not what the record says
                self._on_terminal.forget()
                self._draw_whole_later(screen)
                return
            super()._display(screen, rest)

    def _terminal_unknown(self, _app: App[Any]) -> None:
        self._write_rest()
        self._on_terminal.forget()

    def _terminal_back(self, _app: App[Any]) -> None:
        self._on_terminal.forget()
        self._draw_whole_later(self.screen)

    def _draw_whole_later(self, screen: Screen[Any]) -> None:
        self._whole_due = True
        self.call_later(self._draw_whole, screen)  # after a batch: a frame drawn in it is dropped too

    def _draw_whole(self, screen: Screen[Any]) -> None:
        self._whole_due = False
        compositor = screen._compositor
        compositor._dirty_regions.add(compositor.size.region)  # whichever path draws next, it draws all
        screen.refresh()  # and one does
