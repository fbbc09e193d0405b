"""The dashboard's first frame reaches the terminal whole: ``xtui`` on its built-in exchange, in a real pty.
Textual rendered the main screen's first full frame inside its start-up batch and dropped it, so the next
frame drew only what had changed since: the book and the markets, but not the panes' top borders (row 2), the
positions or the account, which came with a later full repaint (``MainScreen._compositor_refresh``,
``XtuiApp._display``). Whether the feed's first picture comes before or after that frame, it must be whole."""

from __future__ import annotations

import re

from tui.bench.terminal import output_to_full_frame

ROWS = 48


def test_the_first_frame_draws_every_row_of_the_screen() -> None:
    out = output_to_full_frame((160, ROWS))
    start = out.index(b"\x1b[1;1H")  # a frame starts at the top-left corner (the header is in every one here)
    following = out.find(b"\x1b[1;1H", start + 1)
    first = out[start : following if following > 0 else len(out)]
    rows = {int(row) for row in re.findall(rb"\x1b\[(\d+);\d+H", first)}
    assert rows >= set(range(1, ROWS + 1)), f"rows the first frame did not draw: {sorted(set(range(1, 49)) - rows)}"
