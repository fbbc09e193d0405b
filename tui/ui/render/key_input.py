"""The terminal's input, read as Textual's Linux driver reads it, through a parser that keeps an Escape typed
just before Enter or a digit.

Textual reads Escape and the key after it, when both arrive in one read (or within its 100 ms escape delay),
as one key: Escape then Enter became a bare Enter, so a trader's Escape on an order form, typed fast over SSH,
sent the order; Escape then ``5`` became ``∞``, a macOS Option mapping. Such an Escape is handed to the parser
as ``CSI 27 u``, the Escape key written so that nothing can follow it into one key. Escape then a letter is
alt+letter, at once (the app splits it when alt+letter is bound nowhere), and the sequences terminals send for
keys are untouched. ``tests/ui/test_escape_table.py`` holds the table of what each sequence means.
"""

from __future__ import annotations

import os
import re
import selectors
import string
from codecs import getincrementaldecoder
from collections.abc import Iterable

from textual import events
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

__all__ = ["EscapeFirstParser", "read_input"]

ESC = "\x1b"
KEPT_AFTER_ESCAPE = frozenset("\r\n0123456789.,-=§")  # Escape then one of these is the Escape key, then it
# Escape then a letter is alt+letter, written at once as the terminal's CSI u form: Textual waited for the escape
# delay, and an Escape after the letter made it the keys ``^`` and the letter. N, O, P and X start sequences; Escape
# then b or f is a key of its own to Textual (word left and right, as macOS terminals send them).
ALT_AFTER_ESCAPE = (
    frozenset(string.ascii_lowercase + string.ascii_uppercase)
    - frozenset("NOPX")
    - frozenset(seq[1] for seq in ANSI_SEQUENCES_KEYS if len(seq) == 2 and seq[0] == "\x1b")
)
ALT_LETTER = re.compile(r"\x1b\[(\d{2,3});([34])u")
ESCAPE_KEY = "\x1b[27u"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def _alt(letter: str) -> str:
    return f"{ESC}[{ord(letter.lower())};{4 if letter.isupper() else 3}u"


class EscapeFirstParser(XTermParser):
    def __init__(self) -> None:
        super().__init__()
        self._held_escape = False  # the last read ended in an Escape the parser still holds
        self._pasting = False
        self._tail = ""  # while pasting, the last characters read: the paste's end marker may be split across reads

    def feed(self, data: str) -> Iterable[Message]:
        return super().feed(self._escapes_kept(data))

    def tick(self) -> Iterable[Message]:
        events = list(super().tick())
        if self._timeout_time is None:
            # The escape delay ran out: the held Escape went out as the Escape key, and nothing is held any more (a
            # flag left set turned Escape, pause, ``9`` into the keys ``[`` ``2`` ``7`` ``u`` ``9``).
            self._held_escape = False
        return events

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        # An alt+letter written by _escapes_kept, or sent so by the terminal, keeps its letter as the character,
        # as Textual gives it for Escape and the letter: the app splits it into both keys by that character.
        if (match := ALT_LETTER.fullmatch(sequence)) and (letter := chr(int(match[1]))) in string.ascii_lowercase:
            if match[2] == "3":
                yield events.Key(f"alt+{letter}", letter)
            else:
                yield events.Key(f"alt+shift+{letter}", letter.upper())
            return
        yield from super()._sequence_to_key_events(sequence, alt)

    def _escapes_kept(self, data: str) -> str:
        out: list[str] = []
        pos = 0
        if self._held_escape and data:  # the parser holds the Escape: what is written here completes it
            if data[0] in KEPT_AFTER_ESCAPE:
                out.append(ESCAPE_KEY.removeprefix(ESC))
            elif data[0] in ALT_AFTER_ESCAPE:
                out.append(_alt(data[0]).removeprefix(ESC))
                pos = 1
        if self._pasting and 0 <= (end := (self._tail + data).find(PASTE_END)) < len(self._tail):
            pos = end + len(PASTE_END) - len(self._tail)  # the end marker began in the read before: the paste ends
            out.append(data[:pos])
            self._pasting = False
        while (at := data.find(ESC, pos)) >= 0:
            if data.startswith(PASTE_START, at):
                self._pasting = True
            elif data.startswith(PASTE_END, at):
                self._pasting = False
            elif not self._pasting and at + 1 < len(data):
                after = data[at + 1]
                if after in KEPT_AFTER_ESCAPE:
                    out.append(data[pos:at] + ESCAPE_KEY)
                    pos = at + 1
                    continue
                if after in ALT_AFTER_ESCAPE:
                    out.append(data[pos:at] + _alt(after))
                    pos = at + 2
                    continue
            out.append(data[pos : at + 1])
            pos = at + 1
        out.append(data[pos:])
        self._held_escape = data.endswith(ESC) and not self._pasting
        self._tail = (self._tail + data)[1 - len(PASTE_END) :] if self._pasting else ""
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
