"""The output filter: every character is printed in the same style as before, with fewer bytes.

The oracle is a small terminal of its own (not the filter's parser): it applies SGR parameters one by one
as a terminal does and records the style each printed character gets. Streams are built as Textual's
compositor writes them (``ESC[style]m text ESC[0m``, cursor moves, line ends) from random styles,
including ones the filter does not understand and attributes that must be switched off.
"""

from __future__ import annotations

import random
import re

from tui.ui.render.lean_output import compress_sgr

TOKEN = re.compile(r"\x1b\[([0-9;]*)m|\x1b\[[0-9;]*[A-Za-z]|(.)", re.S)
OFF = {22: {1, 2}, 23: {3}, 24: {4}, 25: {5}, 27: {7}, 28: {8}, 29: {9}, 55: {53}}


def painted(stream: str) -> list[tuple[str, frozenset[int], str, str, str]]:
    """(character, attributes, fg, bg, underline colour) of every character printed."""
    attrs: set[int] = set()
    fg = bg = ul = ""
    out = []
    for m in TOKEN.finditer(stream):
        if m.group(2) is not None:
            out.append((m.group(2), frozenset(attrs), fg, bg, ul))
            continue
        if m.group(1) is None:
            continue  # a cursor move
        values = [int(v) if v else 0 for v in m.group(1).split(";")]
        i = 0
        while i < len(values):
            v = values[i]
            if v == 0:
                attrs.clear()
                fg = bg = ul = ""
            elif v in OFF:
                attrs -= OFF[v]
            elif v in (1, 2, 3, 4, 5, 7, 8, 9, 53):
                attrs.add(v)
            elif 30 <= v <= 37 or 90 <= v <= 97:
                fg = str(v)
            elif 40 <= v <= 47 or 100 <= v <= 107:
                bg = str(v)
            elif v in (38, 48, 58):
                n = 3 if values[i + 1] == 5 else 5
                colour = ";".join(map(str, values[i + 1 : i + n]))
                fg, bg, ul = (colour, bg, ul) if v == 38 else (fg, colour, ul) if v == 48 else (fg, bg, colour)
                i += n - 1
            elif v == 39:
                fg = ""
            elif v == 49:
                bg = ""
            i += 1
    return out


STYLES = [
    "38;2;216;222;233;48;2;21;27;35", "38;2;240;82;79;48;2;21;27;35", "38;2;46;189;133;48;2;21;27;35",
    "1;38;2;216;222;233;48;2;30;36;44", "2;38;2;120;120;120", "1;4;31", "7", "38;5;196;48;5;16", "32", "44",
    "3;9;53;97;100", "58;2;1;2;3", "22", "1;22;31", "38;2;240;82;79", "",
]  # fmt: skip


def frame(rng: random.Random, segments: int) -> str:
    parts = []
    for _ in range(segments):
        r = rng.random()
        if r < 0.15:
            parts.append(f"\x1b[{rng.randint(1, 48)};{rng.randint(1, 160)}H")
        elif r < 0.2:
            parts.append("\r\n")
        elif r < 0.27:
            parts.append(rng.choice(["plain ", "█▌", " "]))  # text under whatever style is in force
        else:
            style = rng.choice(STYLES)
            text = rng.choice(["100,150.3", " ", "    0.0995", "▲0.12%", "██▍", "BTC-PERP", ""])
            parts.append(f"\x1b[{style}m{text}\x1b[0m" if style else text)
    return "".join(parts)


def test_every_character_keeps_its_style() -> None:
    rng = random.Random(7)
    saved = total = 0
    for _ in range(400):
        stream = frame(rng, rng.randint(1, 60))
        lean = compress_sgr(stream)
        assert painted(lean) == painted(stream), stream
        assert compress_sgr(lean) == lean or len(compress_sgr(lean)) <= len(lean)
        saved += len(stream) - len(lean)
        total += len(stream)
    assert saved > total // 20  # and it does save, even on these mixed streams


def test_a_book_line_loses_its_repeated_styles() -> None:
    white, red = "38;2;216;222;233;48;2;21;27;35", "38;2;240;82;79;48;2;21;27;35"
    line = (  # the style in force is unknown at the start of a write: the reset before the first line tells it
        f"\x1b[0m\x1b[9;86H\x1b[{red}m  100,117.1\x1b[0m\x1b[{white}m    0.0995\x1b[0m\x1b[{white}m    0.7960\x1b[0m"
        f"\x1b[{red}m ████\x1b[0m\x1b[10;86H\x1b[{red}m  100,107.1\x1b[0m"
    )
    lean = compress_sgr(line)
    assert lean == (
        f"\x1b[0m\x1b[9;86H\x1b[{red}m  100,117.1\x1b[38;2;216;222;233m    0.0995    0.7960"
        "\x1b[38;2;240;82;79m ████\x1b[10;86H  100,107.1\x1b[0m"
    )
    assert painted(lean) == painted(line)


def test_what_it_does_not_understand_is_left_alone() -> None:
    for stream in ("\x1b[58;2;1;2;3mx\x1b[0m\x1b[31my", "\x1b[1mx\x1b[0m\x1b[31my", "\x1b[31mx\x1b[0mtext\x1b[31my"):
        assert painted(compress_sgr(stream)) == painted(stream)
    assert compress_sgr("\x1b[1mx\x1b[0m\x1b[31my") == "\x1b[1mx\x1b[0m\x1b[31my"  # bold must go: a reset
    assert compress_sgr("\x1b[31mx\x1b[0mtext\x1b[31my") == "\x1b[31mx\x1b[0mtext\x1b[31my"  # text under the reset
