"""The dashboard's first frame reaches the terminal whole: ``xtui`` on its built-in exchange, in a real pty.

Two ways it was not: Textual rendered the main screen's first full frame inside its start-up batch and
dropped it, so the next frame drew only what had changed (not the panes' top borders, the positions or the
account: ``XtuiApp._display``); and the panes that wait for their size (the chart, the header's funding
countdown) or for a signal (the footer's keys) came a frame or two after the rest, ~50-100 ms later. Whether the
feed's first picture comes before or after the first frame, the first frame with data must have it all."""

from __future__ import annotations

import re

from tui.bench.terminal import FULL_FRAME, output_to_full_frame

ROWS = 48
AXIS = "┤".encode()  # the chart's price axis: its candles are drawn


def frames(out: bytes) -> list[bytes]:
    """What was written, cut where a frame starts at the top-left corner (the header is in every full one)."""
    starts = [m.start() for m in re.finditer(rb"\x1b\[1;1H", out)]
    return [out[a:b] for a, b in zip(starts, [*starts[1:], len(out)], strict=True)]


def test_the_first_frame_draws_every_row_of_the_screen() -> None:
    first = frames(output_to_full_frame((160, ROWS)))[0]
    rows = {int(row) for row in re.findall(rb"\x1b\[(\d+);\d+H", first)}
    assert rows >= set(range(1, ROWS + 1)), f"rows the first frame did not draw: {sorted(set(range(1, 49)) - rows)}"


def test_the_first_frame_with_data_has_every_pane_s_data() -> None:
    drawn = frames(output_to_full_frame((160, ROWS)))
    first = next(i for i, frame in enumerate(drawn) if b"spread" in frame)
    # what the screen shows once the data is drawn: news is drawn as it comes (within the byte budget), so the
    # frame with the first data may write only the panes it changed, after a first frame that drew the rest
    with_data = b"".join(drawn[: first + 1])
    missing = [mark.decode() for mark in (*FULL_FRAME, AXIS) if mark not in with_data]
    assert not missing, f"not in the first frame with data: {missing}"
    # the demo account is funded before the feed's first look at it: its first balance drawn is the faucet's
    perps = re.compile(rb"perps (?:\x1b\[[0-9;]*m)*([0-9][0-9,.]*)")
    first_balance = next(m.group(1) for frame in drawn if (m := perps.search(frame)))
    assert first_balance == b"100,000.00"
