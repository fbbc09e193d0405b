"""The event log's entries and its file: fills one entry per order with the pieces summed, the unread count, an
entry point for what the dashboard saw, a file rotated by size, and a damaged or hostile file that never stops
anything."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.feed.test_events import BTC, live_log, ws_fill
from tui.feed.event_entries import MAX_TEXT, LogEntry
from tui.feed.event_file import EventFile, event_log_path, read_tail


def test_the_pieces_of_one_order_are_one_entry_summed() -> None:
    """Three pieces of order 7 (two pushed together, one later) and one of order 8: two entries, order 7's
    summed (size, average price, fees) and moved to the newest place when its third piece came."""
    log = live_log()
    log.fill(ws_fill(1, order_id=7, price="100000", size="0.01", fee="0.5", crossed=True), BTC)
    log.fill(ws_fill(2, order_id=7, price="100010", size="0.03", fee="1.5", crossed=True), BTC)
    log.fill(ws_fill(3, order_id=8, price="99000", size="0.02", fee="-0.01"), BTC)
    log.fill(ws_fill(4, order_id=7, price="100020", size="0.01", fee="0.5", crossed=True), BTC)
    entries = log.book.entries()
    assert [e.kind for e in entries] == ["fill", "fill"]
    assert entries[0].text == "Sold 0.0200 BTC-PERP at 99,000.0 · maker · rebate 0.01"
    assert entries[1].text == "Sold 0.0500 BTC-PERP at avg 100,010.0 · 3 pieces · taker · fee 2.50"
    assert log.book.unread == 2
    log.book.mark_read()
    assert log.book.unread == 0
    log.fill(ws_fill(5, order_id=8, price="99000", size="0.02", fee="-0.01"), BTC)
    assert log.book.unread == 1 and len(log.book) == 2  # order 8 again: one entry, unread once more


def test_the_file_gets_each_entry_once_with_what_came_meanwhile_summed() -> None:
    """Entries taken for the file: each made or changed since the last take, once, in the order they came."""
    log = live_log()
    log.fill(ws_fill(1, order_id=7), BTC)
    log.add("alert", "Alert 1: BTC-PERP last above 100,000.0", at_ms=1_767_225_601_000)
    log.fill(ws_fill(2, order_id=7), BTC)
    first = log.book.take_unwritten()
    assert [(e.kind, "2 pieces" in e.text) for e in first] == [("alert", False), ("fill", True)]
    assert log.book.take_unwritten() == []
    assert first[0].line() == "2026-01-01T00:00:01.000Z alert Alert 1: BTC-PERP last above 100,000.0"


def test_an_entry_is_one_printable_line_of_bounded_length() -> None:
    """What the dashboard logs may carry an exchange's words: newlines, escapes and length are tamed."""
    log = live_log()
    entry = log.add("refusal", "Order: rejected: \x1b[2Jbad\nline" + "x" * 1000)
    assert "\n" not in entry.line() and "\x1b" not in entry.line() and len(entry.text) == MAX_TEXT


def test_the_entries_kept_are_bounded() -> None:
    log = live_log()
    for i in range(800):
        log.add("twap", f"step {i}")
    entries = log.book.entries()
    assert len(entries) == 500 and entries[-1].text == "step 799"


def written(f: EventFile, entries: list[LogEntry]) -> None:
    f.write(entries)
    assert f.flushed(10), "the file's thread wrote in time"


def test_the_file_is_rotated_by_size_and_three_files_at_most_are_kept(tmp_path: Path) -> None:
    """A file of 2 KiB at most, 600 lines of ~60 bytes: rotated, .1 and .2 kept, nothing older; every file
    is whole lines of text; the newest line is in the current file."""
    path = event_log_path(tmp_path, "My Profile")
    assert path.name == "events-my_profile.log"
    f = EventFile(path, max_bytes=2048)
    f.start()
    try:
        for i in range(600):
            written(f, [LogEntry(i, 1_767_225_600_000 + i, "twap", f"TWAP 1: slice {i} of 600 sent")])
    finally:
        f.close()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["events-my_profile.log", "events-my_profile.log.1", "events-my_profile.log.2"]
    for p in tmp_path.iterdir():
        assert p.stat().st_size <= 2048
        assert all(line.split(" ", 2)[1] == "twap" for line in p.read_text().splitlines())
    assert path.read_text().splitlines()[-1].endswith("slice 599 of 600 sent")


def test_earlier_entries_are_read_back_bounded(tmp_path: Path) -> None:
    """A big file (3 MB) is read back from its end only: the last lines, the first one cut left out."""
    path = tmp_path / "events-local.log"
    path.write_text("".join(f"2026-01-01T00:00:00.000Z fill line {i}\n" for i in range(100_000)))
    lines = read_tail(path)
    assert len(lines) == 200 and lines[-1].endswith("line 99999") and lines[0].endswith("line 99800")


@pytest.mark.parametrize("damage", ["junk", "one-huge-line", "directory", "symlink", "fifo"])
def test_a_damaged_or_hostile_file_stops_nothing(tmp_path: Path, damage: str) -> None:
    """Binary junk, one line of 5 MB, a directory, a link to another file or a pipe where the log should be:
    the thread starts, reads back at most what it may (or nothing, saying why), and writing goes on or says
    why not; no exception leaves it, and a linked file is never written through."""
    path = tmp_path / "events-local.log"
    target = tmp_path / "precious"
    if damage == "junk":
        path.write_bytes(os.urandom(100_000) + b"\x00\xff\n\x1b[2J\n")
    elif damage == "one-huge-line":
        path.write_bytes(b"x" * 5_000_000)
    elif damage == "directory":
        path.mkdir()
    elif damage == "symlink":
        target.write_text("keep me\n")
        path.symlink_to(target)
    else:
        os.mkfifo(path)
    f = EventFile(path)
    f.start()
    try:
        assert f.read.wait(10)
        assert all(len(x) <= MAX_TEXT and x.isprintable() for x in f.earlier) and len(f.earlier) <= 200
        written(f, [LogEntry(1, 1_767_225_600_000, "fill", "Bought 0.0100 BTC-PERP at 100,000.0")])
    finally:
        f.close()
    if damage in ("junk", "one-huge-line"):
        assert path.read_bytes().endswith(b"fill Bought 0.0100 BTC-PERP at 100,000.0\n")
    else:
        assert "not" in f.problem
    if damage == "symlink":
        assert target.read_text() == "keep me\n"


@given(st.lists(st.text(max_size=50), max_size=20))
def test_any_text_logged_is_one_line_in_the_file(texts: list[str]) -> None:
    """Whatever text is logged, each entry is exactly one line of the file's form (time, kind, text)."""
    log = live_log()
    for t in texts:
        log.add("alert", t, at_ms=1_767_225_600_000)
    for entry in log.book.take_unwritten():
        line = entry.line()
        assert "\n" not in line and "\r" not in line
        assert line.startswith("2026-01-01T00:00:00.000Z alert ")


def test_a_liquidation_warning_noted_is_an_entry() -> None:
    """The guards' liquidation warning comes in through ``note`` (an event the dashboard found): the log keeps
    it with its time and words, unread."""
    from tui.feed.events import AccountEvent

    log = live_log()
    words = ("BTC-PERP mark 95,000.0 is 4.50% from its liquidation price 90,725.0", "within 5%")
    log.note(AccountEvent("liquidation", "BTC-PERP", "Liquidation warning", words, 1_767_225_600_000))
    [entry] = log.book.entries()
    assert entry.line() == (
        "2026-01-01T00:00:00.000Z liquidation Liquidation warning: BTC-PERP mark 95,000.0 is 4.50% from its "
        "liquidation price 90,725.0 · within 5%"
    )
    assert log.book.unread == 1
