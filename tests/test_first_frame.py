"""The dashboard's first frame with data reaches the terminal whole: ``xtui`` on its built-in exchange, in a
real pty. Textual had rendered the first full frame inside a batch and dropped it, so the next frame drew only
what had changed since: the book and the markets, but not the panes' top borders (row 2), the positions or the
account, which came with a later full repaint (``XtuiApp._display``)."""

from __future__ import annotations

import re

from tui.bench.terminal import output_to_full_frame


def test_the_first_frame_with_the_book_has_the_borders_and_the_account_too() -> None:
    out = output_to_full_frame((160, 48))
    spread = out.index(b"spread")  # the book: the feed's first snapshot is on screen
    frame_start = out.rfind(b"\x1b[1;1H", 0, spread)  # the frame that drew it starts at the top-left corner
    following = re.compile(rb"\x1b\[1;1H").search(out, spread)
    frame = out[frame_start : following.start() if following else len(out)]
    assert b"\x1b[2;1H" in frame  # row 2: the top borders of the markets, book and tape panes
    assert b"Equity" in frame and b"live" in frame  # the account bar and the status bar
    assert b"Positions" in frame
