"""The slow-link bench: its relay holds the bandwidth and round trip it is given (a stepped clock), and a real
``xtui`` behind it answers keys typed at the far end and keeps the link's backlog down."""

from __future__ import annotations

import re

import pytest

from tui.bench.screen_text import ScreenText
from tui.bench.slow_link import SEGMENT, Link, measure_slow_link, report


def test_the_link_sends_at_its_bandwidth_and_delivers_half_a_round_trip_later() -> None:
    """4,000 B/s and 100 ms: 2,000 bytes given at 0 are through by 0.5 s and at the far end by 0.55 s, segment by
    segment (the first 1,448 bytes arrive at 0.362 + 0.05 s); the backlog falls as they go."""
    link = Link(4_000, 0.1, window=3_000)
    link.send(b"x" * 2_000, 0.0)
    assert link.backlog(0.0) == 2_000
    assert link.room(0.0) == 1_000
    assert link.backlog(0.25) == 1_000
    assert link.arrived(0.40) == b""
    assert len(link.arrived(0.4121)) == SEGMENT
    assert link.arrived(0.5499) == b""
    assert len(link.arrived(0.5501)) == 2_000 - SEGMENT
    assert link.backlog(0.6) == 0


def test_a_link_that_is_busy_queues_what_comes_next_behind_it() -> None:
    """A second send while the first is still going out starts when the first is through, not when given."""
    link = Link(1_000, 0.0)
    link.send(b"a" * 500, 0.0)
    link.send(b"b" * 500, 0.1)
    assert link.arrived(0.9) == b"a" * 500
    assert link.arrived(0.99) == b""
    assert link.arrived(1.0) == b"b" * 500


@pytest.mark.long
def test_xtui_behind_a_slow_link_answers_keys_and_reports_its_figures() -> None:
    """A real ``xtui`` (built-in exchange) behind 256 kbit/s and 100 ms for 4 s: the keys typed at the far end
    are seen there (the book's grouping in its title), the backlog is sampled, the report names each figure."""
    run = measure_slow_link(4.0, 256, 100)
    assert len(run.key_ms) >= 2, "the keys were not seen at the far end"  # x10 then x100 (written as "0 ")
    assert all(ms > 100 for ms in run.key_ms)  # nothing is visible before a round trip
    assert len(run.backlog) >= 3
    assert run.delivered > 0
    text = "\n".join(report(run))
    for figure in ("key to visible", "p50", "p99", "backlog", "B/s"):
        assert figure in text


def test_the_far_end_s_screen_reads_text_as_a_terminal_shows_it() -> None:
    """``ScreenText`` places text by Textual's cursor moves and skips every other sequence. Tried: a frame that
    writes only the changed cell ("0" over "×10 "), a read that ends inside a sequence or a UTF-8 character, a wide
    character, moves past the screen's edges, an OSC and a lone escape; nothing raises, and text lands where a
    terminal puts it."""
    screen = ScreenText(20, 3)
    screen.feed("\x1b[1;1H\x1b[38;2;1;2;3mBook \u00d710 \u2500\x1b[0m".encode())
    ten, hundred = re.compile("\u00d710(?!\\d)"), re.compile("\u00d7100(?!\\d)")
    assert screen.shows(ten) and not screen.shows(hundred)
    screen.feed(b"\x1b[1;9H0 ")  # as xtui writes "\u00d710 \u2500" -> "\u00d7100 ": the cells that changed
    assert screen.shows(hundred) and not screen.shows(ten)
    for part in (b"\x1b[2;", b"3H\xe6\xbc", b"\xa2x", b"\x1b]0;title\x07\x1b[99;99HZ", b"\x1b[0;0Hq\x1b"):
        screen.feed(part)
    assert screen.lines() == ["qook \u00d7100" + " " * 11, "  \u6f22x" + " " * 15, " " * 19 + "Z"]
