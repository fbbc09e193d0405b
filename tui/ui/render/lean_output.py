"""Fewer bytes to the terminal for the same picture: colour changes written as differences.

Textual's compositor writes every segment as ``ESC[<style>m text ESC[0m``: a reset after each run of
text and the full style before the next, even when the next run differs only in its foreground colour,
or not at all (a book line is four or five runs; each truecolour style is ~35 bytes). Over SSH those
bytes are most of what is written. ``compress_sgr`` keeps track of the style in force and replaces each
``ESC[0m ESC[<style>m`` pair by the difference between the two styles: nothing when they are the same,
``ESC[38;2;r;g;bm`` when only the foreground changes, and so on. The terminal ends up in exactly the
state the original sequence would have left it in, before every character printed.

Only styles it fully understands are diffed: bold, dim, italic, underline, blink, reverse, conceal,
strike and overline, and foreground and background colours (16, 256 and truecolour). An attribute that
must be turned off, or any parameter it does not know, makes it write the reset and the style as they
were. The style is taken as unknown at the start of each write, so a write never depends on what an
earlier one left. Text printed between a reset and the next style keeps the reset.

``LeanDriver`` is Textual's Linux driver with that filter on ``write``; it also counts the bytes it writes,
into the app's ``terminal_bytes`` when the app has one (the diagnostics overlay's bytes a second, the screen's
byte budget), and tells it how many writes wait for the terminal (``queued``: the link is behind). Its writer
thread writes through ``terminal_out``, so that no frame reaches the terminal in part.
"""

from __future__ import annotations

import logging
import re
import select
import sys
import threading
from queue import Queue
from typing import Any

import msgspec
from textual.drivers.linux_driver import LinuxDriver

from tui.ui.diagnostics import TerminalBytes
from tui.ui.render import plain
from tui.ui.render.key_input import read_input
from tui.ui.render.terminal_out import terminal_out

__all__ = ["LeanDriver", "Style", "compress_sgr", "parse_sgr"]

log = logging.getLogger("tui.ui")

_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_MOVES = re.compile(r"(?:\x1b\[\d*(?:;\d*)?H)+")  # cursor positioning only: it leaves the style alone
_ATTRS = frozenset({1, 2, 3, 4, 5, 7, 8, 9, 53})


class Style(msgspec.Struct, frozen=True):
    """What an SGR sequence after a reset sets: attributes and colours (as their parameter strings)."""

    attrs: frozenset[int] = frozenset()
    fg: str = ""  # "" default, else e.g. "31", "38;5;196", "38;2;240;82;79"
    bg: str = ""

    def params(self) -> str:
        return ";".join([*(str(a) for a in sorted(self.attrs)), *filter(None, (self.fg, self.bg))])


DEFAULT = Style()


def parse_sgr(params: str) -> Style | None:
    """The style ``ESC[<params>m`` sets on top of the default; None when a parameter is not understood."""
    if params in ("", "0"):
        return DEFAULT
    try:
        values = [int(p) for p in params.split(";")]
    except ValueError:
        return None
    attrs: set[int] = set()
    fg = bg = ""
    i = 0
    while i < len(values):
        v = values[i]
        if v in _ATTRS:
            attrs.add(v)
        elif 30 <= v <= 37 or 90 <= v <= 97:
            fg = str(v)
        elif 40 <= v <= 47 or 100 <= v <= 107:
            bg = str(v)
        elif v in (38, 48):
            n = {5: 3, 2: 5}.get(values[i + 1]) if i + 1 < len(values) else None  # 38;5;n or 38;2;r;g;b
            if n is None or i + n > len(values):
                return None
            colour = ";".join(str(x) for x in values[i : i + n])
            fg, bg = (colour, bg) if v == 38 else (fg, colour)
            i += n - 1
        elif v == 39:
            fg = ""
        elif v == 49:
            bg = ""
        elif v == 0:
            attrs.clear()
            fg = bg = ""
        else:
            return None
        i += 1
    return Style(frozenset(attrs), fg, bg)


def _diff(old: Style, new: Style) -> str | None:
    """The SGR parameters that take ``old`` to ``new`` without a reset; None when an attribute must go."""
    if not old.attrs <= new.attrs:
        return None
    parts = [str(a) for a in sorted(new.attrs - old.attrs)]
    if new.fg != old.fg:
        parts.append(new.fg or "39")
    if new.bg != old.bg:
        parts.append(new.bg or "49")
    return ";".join(parts)


def compress_sgr(data: str) -> str:
    """``data`` with each reset-then-style pair written as the difference from the style in force."""
    out: list[str] = []
    pos = 0
    known: Style | None = None  # the style in force, when it is known
    pending = -1  # index in ``out`` of a reset held back, in case the next style can be written as a diff
    before: Style | None = None  # the style in force before that reset
    for m in _SGR.finditer(data):
        if m.start() > pos:
            between = data[pos : m.start()]
            out.append(between)
            if pending >= 0 and not _MOVES.fullmatch(between):  # text printed under the reset: it stays
                pending = -1
        pos = m.end()
        style = parse_sgr(m.group(1))
        if style is DEFAULT:  # a reset
            if pending < 0:
                before = known
            out.append(m.group(0))
            pending = len(out) - 1
            known = DEFAULT
            continue
        if style is None:  # not understood: written as is, and the style is unknown from here
            out.append(m.group(0))
            known, pending = None, -1
            continue
        if pending >= 0 and before is not None:
            # reset + style: drop the reset and write what changed from the style before it, if it can be
            diff = _diff(before, style)
            if diff is not None:
                out[pending] = ""
                if diff:
                    out.append(f"\x1b[{diff}m")
                known, pending = style, -1
                continue
        if known is None:
            out.append(m.group(0))  # on top of an unknown style: the result is unknown too
            pending = -1
            continue
        merged = parse_sgr(";".join(filter(None, (known.params(), m.group(1)))))
        out.append(m.group(0))
        known, pending = merged, -1
    out.append(data[pos:])
    return "".join(out)


_PLAIN_SGR = plain("sgr")


class LeanDriver(LinuxDriver):
    """The Linux terminal driver, writing ``compress_sgr`` of what the compositor sends."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        counter = getattr(app, "terminal_bytes", None)
        self.written = counter if isinstance(counter, TerminalBytes) else TerminalBytes()
        self.written.attached = True
        self.written.queued = self.queued
        super().__init__(app, **kwargs)
        self._file = terminal_out(self._file)  # the writer thread's file: sys.__stderr__ may drop the end of a write

    def queued(self) -> int:
        """Writes waiting in Textual's writer thread: more than none when the terminal takes less than is
        written (the pty write blocks, the link is slower than the output), so the screen draws less."""
        queue = getattr(self._writer_thread, "_queue", None)
        return queue.qsize() if isinstance(queue, Queue) else 0

    def write(self, data: str) -> None:
        text = data if _PLAIN_SGR else compress_sgr(data)
        self.written.add(text)
        super().write(text)

    def run_input_thread(self) -> None:
        read_input(self)  # an Escape typed just before Enter or a digit stays an Escape (tui.ui.render.key_input)

    def start_application_mode(self) -> None:
        super().start_application_mode()  # type: ignore[no-untyped-call]
        if sys.platform.startswith("linux"):  # poll() on a terminal: reliable on Linux, not on macOS
            threading.Thread(target=self._exit_on_hang_up, name="xtui-hang-up", daemon=True).start()

    def _exit_on_hang_up(self) -> None:
        """End the app when its terminal goes away (an SSH link dropped, a closed pty with no SIGHUP for us):
        Textual's input thread would otherwise read the end of its input for ever, at most of a core."""
        poller = select.poll()
        poller.register(self.fileno, 0)  # only what is always reported: hang-up, error, a closed descriptor
        while not self.exit_event.is_set():
            if poller.poll(1000):
                self.exit_event.set()  # the input thread stops reading
                log.warning("the terminal went away: xtui ends as q does")
                self._app.call_from_thread(self._app.exit, None, 1, "the terminal went away")
                return
