"""What a terminal shows, as text: enough of one to read a frame's words at the far end of a link.

Textual positions every run of text it writes (``ESC[row;colH``), so cursor moves and printable characters are
all that place text; colours and modes (every other escape sequence) are skipped. A frame that writes only the
cells that changed ("×100" over "×10 " is "0 ") is read as the terminal would show it, which a search of the bytes
written cannot do.
"""

from __future__ import annotations

import codecs
import re

from rich.cells import cell_len

__all__ = ["ScreenText"]

_SEQUENCE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[@-Z\\-_])")
_MOVE = re.compile(r"\x1b\[(\d*)(?:;(\d*))?H")


class ScreenText:
    """A ``columns`` x ``rows`` screen fed the bytes a terminal receives (``feed``), read a row at a time."""

    def __init__(self, columns: int, rows: int) -> None:
        self.columns, self.rows = columns, rows
        self._cells = [[" "] * columns for _ in range(rows)]
        self._x = self._y = 0
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")  # a read may end inside a character
        self._pending = ""  # or inside a sequence

    def feed(self, data: bytes) -> None:
        text = self._pending + self._utf8.decode(data)
        cut = text.rfind("\x1b")
        if cut >= 0 and not _SEQUENCE.match(text, cut):  # a sequence not whole yet: kept for the next read
            text, self._pending = text[:cut], text[cut:]
        else:
            self._pending = ""
        pos = 0
        for m in _SEQUENCE.finditer(text):
            self._print(text[pos : m.start()])
            move = _MOVE.fullmatch(m.group(0))
            if move is not None:
                self._y = min(self.rows, max(1, int(move.group(1) or 1))) - 1
                self._x = min(self.columns, max(1, int(move.group(2) or 1))) - 1
            pos = m.end()
        self._print(text[pos:])

    def _print(self, text: str) -> None:
        for ch in text:
            if ch == "\r":
                self._x = 0
            elif ch == "\n":
                self._y = min(self.rows - 1, self._y + 1)
            elif ch.isprintable() and self._x < self.columns:
                self._cells[self._y][self._x] = ch
                width = cell_len(ch)
                if width == 2 and self._x + 1 < self.columns:
                    self._cells[self._y][self._x + 1] = ""
                self._x += max(1, width)

    def lines(self) -> list[str]:
        return ["".join(row) for row in self._cells]

    def shows(self, pattern: re.Pattern[str]) -> bool:
        return any(pattern.search(line) for line in self.lines())
