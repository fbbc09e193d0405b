"""The slow-link bench: its relay holds the bandwidth and round trip it is given (a stepped clock), and a real
``xtui`` behind it answers keys typed at the far end and keeps the link's backlog down."""

from __future__ import annotations

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


def test_xtui_behind_a_slow_link_answers_keys_and_reports_its_figures() -> None:
    """A real ``xtui`` (built-in exchange) behind 256 kbit/s and 100 ms for 4 s: the keys typed at the far end
    are seen there (the book's grouping in its title), the backlog is sampled, the report names each figure."""
    run = measure_slow_link(4.0, 256, 100)
    assert run.key_ms, "no key was seen at the far end"
    assert all(ms > 100 for ms in run.key_ms)  # nothing is visible before a round trip
    assert len(run.backlog) >= 3
    assert run.delivered > 0
    text = "\n".join(report(run))
    for figure in ("key to visible", "p50", "p99", "backlog", "B/s"):
        assert figure in text
