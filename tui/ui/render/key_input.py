"""The terminal's input, read as Textual's Linux driver reads it, through a parser that keeps an Escape typed
just before Enter or a digit.

Textual reads Escape and the key after it, when both arrive in one read (or within its 100 ms escape delay),
as one key: Escape then Enter became a bare Enter, so a trader's Escape on an order form, typed fast over SSH,
sent the order; Escape then ``5`` became ``∞``, a macOS Option mapping. Such an Escape is handed to the parser
as ``CSI 27 u``, the Escape key written so that nothing can follow it into one key. Escape then a letter is left
as alt+letter (the app splits it when alt+letter is bound nowhere), and the sequences terminals send for keys
are untouched.
"""

from __future__ import annotations

import os
import selectors
from codecs import getincrementaldecoder
from collections.abc import Iterable

from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

__all__ = ["EscapeFirstParser", "read_input"]

ESC = "\x1b"
KEPT_AFTER_ESCAPE = frozenset("\r\n0123456789.,-=§")  # Escape then one of these is the Escape key, then it
ESCAPE_KEY = "\x1b[27u"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


class EscapeFirstParser(XTermParser):
    def __init__(self) -> None:
        super().__init__()
        self._held_escape = False  # the last read ended in an Escape the parser still holds
        self._pasting = False

    def feed(self, data: str) -> Iterable[Message]:
        return super().feed(self._escapes_kept(data))

    def _escapes_kept(self, data: str) -> str:
        out: list[str] = []
        if self._held_escape and data[:1] in KEPT_AFTER_ESCAPE and data:
            out.append(ESCAPE_KEY.removeprefix(ESC))  # the parser holds the Escape: this completes it
        pos = 0
        while (at := data.find(ESC, pos)) >= 0:
            if data.startswith(PASTE_START, at):
                self._pasting = True
            elif data.startswith(PASTE_END, at):
                self._pasting = False
            elif not self._pasting and at + 1 < len(data) and data[at + 1] in KEPT_AFTER_ESCAPE:
                out.append(data[pos:at] + ESCAPE_KEY)
                pos = at + 1
                continue
            out.append(data[pos : at + 1])
            pos = at + 1
        out.append(data[pos:])
        self._held_escape = data.endswith(ESC) and not self._pasting
        return "".join(out)


def read_input(driver: LinuxDriver) -> None:
    """``LinuxDriver.run_input_thread`` with ``EscapeFirstParser``: read what the terminal sends until the
    driver stops, and hand each event to the driver."""
    selector = selectors.SelectSelector()
    selector.register(driver.fileno, selectors.EVENT_READ)
    parser = EscapeFirstParser()
    decode = getincrementaldecoder("utf-8")().decode

    def read(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
        for index, (_key, mask) in enumerate(ready):
            if mask & selectors.EVENT_READ:
                text = decode(os.read(driver.fileno, 4096), final=final and index == len(ready) - 1)
                if not text:
                    break  # stdin piped, and at its end
                for event in parser.feed(text):
                    driver.process_message(event)
        for event in parser.tick():
            driver.process_message(event)

    try:
        while not driver.exit_event.is_set():
            read(selector.select(0.1))
        selector.unregister(driver.fileno)
        read(selector.select(0.1), final=True)
    finally:
        selector.close()
        try:
            for _ in parser.feed(""):
                pass
        except (EOFError, ParseError):
            pass
