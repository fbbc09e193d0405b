"""Text from outside (a file, a server, a recording) made safe for a terminal: the one function that does it.

An escape sequence in an instrument's name, an exchange's refusal or a recording's header would otherwise reach the
terminal as it is: ESC [2J clears the screen, ESC ]0; sets the title, a bidi override reverses what follows. So every
control character (C0, DEL, C1, ESC among them), every bidi control and the line and paragraph separators are shown
as a visible escape (``\\x1b``, ``\\u202e``) instead. A backslash stays as it is: the text is for reading, not for
reading back.
"""

from __future__ import annotations

import re

__all__ = ["printable"]

_CONTROLS = "\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\n{_CONTROLS}]")
_UNSAFE_BUT_NEWLINE = re.compile(f"[{_CONTROLS}]")


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, limit: int | None = None, *, lines: bool = False) -> str:
    """``text`` with its control characters shown as escapes (a newline too, unless ``lines``), cut to ``limit``
    characters (ending in "…") when given."""
    if limit is not None:
        text = text[: limit + 1]  # no more is shown: escaping only makes it longer
    safe = (_UNSAFE_BUT_NEWLINE if lines else _UNSAFE).sub(_escape, text)
    if limit is not None and len(safe) > limit:
        return safe[: max(0, limit - 1)] + "…"
    return safe
