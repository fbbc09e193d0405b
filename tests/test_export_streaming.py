"""``xtui export`` over a history longer than a page, against a real local exchange: every row arrives, ``--limit``
says when more were there, ``--since`` filters rather than stops, ``--out`` is checked first, no bad argument ends in
a traceback."""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import io
import json
import os
import socket
import sys
from pathlib import Path

import pytest

from tests.test_cli import xtui
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

WHO = "0x" + "ab" * 20
START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
MINUTE = 60_000


class SkewedClock(FrozenClock):
    """An exchange clock a test may also set back, as a skewed node would: how a record lands out of order."""

    def rewind(self, now_ms: int) -> None:
        self._now = now_ms


@pytest.fixture
def clock() -> SkewedClock:
    return SkewedClock(START_MS)


def deposits(sim: LocalExchange, clock: SkewedClock, count: int, *, stray: int | None = None) -> None:
    """``count`` deposits a minute apart (amounts 1, 2, ... so each row is known); deposit number ``stray``
    (counted from the newest, 0 first) is stamped a day before the first."""
    for n in range(1, count + 1):
        from_newest = count - n
        clock.rewind(START_MS - 86_400_000 if from_newest == stray else START_MS + n * MINUTE)
        sim.engine.deposit(WHO, "USDC", str(n))


# Runs a command and says its peak memory (ru_maxrss, KB) on a last line of stderr. From a small process of its
# own: a child keeps the peak of the process it was forked from, and this test's process holds a big exchange.
PEAK_OF_CHILD = (
    "import os, subprocess, sys; p = subprocess.Popen(sys.argv[1:]); _, status, usage = os.wait4(p.pid, 0); "
    "print(usage.ru_maxrss, file=sys.stderr); sys.exit(os.waitstatus_to_exitcode(status))"
)


def amounts(out: str) -> list[int]:
    return [int(r["amount"]) for r in csv.DictReader(io.StringIO(out))]


async def test_a_history_of_ten_pages_and_more_is_written_whole(sim: LocalExchange, clock: SkewedClock) -> None:
    """1,001 transfers (eleven pages of 100): all of them, newest first, as CSV and as JSON, and no warning."""
    deposits(sim, clock, 1001)
    rc, out, err = await xtui("export", "transfers", "--url", sim.url, "--address", WHO)
    assert rc == 0 and err == "", err
    assert amounts(out) == list(range(1001, 0, -1))
    rc, out, err = await xtui("export", "transfers", "--json", "--url", sim.url, "--address", WHO)
    assert rc == 0 and err == "", err
    assert [int(r["amount"]) for r in json.loads(out)] == list(range(1001, 0, -1))


async def test_limit_writes_at_most_n_rows_and_says_when_there_were_more(
    sim: LocalExchange, clock: SkewedClock, tmp_path: Path
) -> None:
    """--limit 250 of 1,001: the newest 250 and a word on stderr; --limit 1001 and 5000: all, and no word."""
    deposits(sim, clock, 1001)
    rc, out, err = await xtui("export", "transfers", "--limit", "250", "--url", sim.url, "--address", WHO)
    assert rc == 0 and amounts(out) == list(range(1001, 751, -1))
    assert "more transfers records than --limit 250: only the newest 250 written" in err
    for enough in ("1001", "5000"):
        rc, out, err = await xtui("export", "transfers", "--limit", enough, "--url", sim.url, "--address", WHO)
        assert rc == 0 and err == "" and len(amounts(out)) == 1001, err
    target = tmp_path / "t.json"
    rc, _, err = await xtui(
        "export", "transfers", "--json", "--limit", "3", "--out", str(target), "--url", sim.url, "--address", WHO
    )
    assert rc == 0 and [int(r["amount"]) for r in json.loads(target.read_text())] == [1001, 1000, 999]
    assert "3 transfers record(s) written to" in err and "more transfers records than --limit 3" in err


async def test_since_keeps_every_newer_record_past_one_out_of_order(sim: LocalExchange, clock: SkewedClock) -> None:
    """1,001 deposits, the first of page 3 stamped a day too early: --since the first day keeps the other 1,000
    (it used to stop at that record and drop 801)."""
    deposits(sim, clock, 1001, stray=200)
    since = "2026-01-01"
    rc, out, err = await xtui("export", "transfers", "--since", since, "--url", sim.url, "--address", WHO)
    assert rc == 0 and err == "", err
    kept = amounts(out)
    assert len(kept) == 1000 and 1001 - 200 not in kept
    assert kept == [n for n in range(1001, 0, -1) if n != 801]


def closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"  # nothing listens there once the socket is closed


async def test_out_is_checked_before_anything_is_fetched(tmp_path: Path) -> None:
    """--out in a missing directory, in a read-only file system, on a directory: refused with one line before
    any request (the exchange named does not even listen); a failed export leaves an old file as it was."""
    url = closed_port()
    for out, said in (
        (tmp_path / "missing" / "x.csv", "does not exist"),
        (Path("/sys/x.csv"), "cannot write in /sys"),
        (tmp_path, "is a directory"),
    ):
        rc, stdout, err = await xtui("export", "fills", "--out", str(out), "--url", url, "--address", WHO)
        assert rc == 1 and stdout == "" and err.startswith("xtui: --out: ") and said in err, err
        assert err.count("\n") == 1
    old = tmp_path / "old.csv"
    old.write_text("what was there\n")
    rc, _, err = await xtui("export", "fills", "--out", str(old), "--url", url, "--address", WHO)
    assert rc == 1 and "cannot connect" in err and f"nothing written to {old}" in err
    assert old.read_text() == "what was there\n" and sorted(os.listdir(tmp_path)) == ["old.csv"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a read-only directory")
async def test_out_in_a_read_only_directory_is_refused(tmp_path: Path) -> None:
    """--out in a directory of mode 555: refused before any request."""
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o555)
    rc, _, err = await xtui("export", "fills", "--out", str(folder / "x.csv"), "--url", closed_port(), "--address", WHO)
    assert rc == 1 and "--out: cannot write in" in err


BAD_ARGUMENTS = (
    ("--url", "http://["),
    ("--url", ""),
    ("--url", "ftp://x"),
    ("--url", "http://host:99999"),
    ("--address", "nothex"),
    ("--address", "0x" + "²" * 40),
    ("--since", "last week"),
    ("--since", "²⁰²⁶-01-01"),
    ("--since", ""),
    ("--limit", "0"),
    ("--limit", "-1"),
    ("--limit", "²"),
    ("--limit", "9" * 5000),
    ("--timeout", "nan"),
    ("--timeout", "-1"),
    ("--timeout", "1e999"),
    ("--out", ""),
    ("--profile", "no-such-profile"),
    ("--key-env", "XTUI_TEST_UNSET_VARIABLE"),
    ("--network", "moon"),
    ("--dialect", "klingon"),
)


@pytest.mark.long
async def test_no_bad_argument_ends_in_a_traceback() -> None:
    """Each flag with a bad value: exit 1 or 2 (argparse's own), a message on stderr, nothing on stdout."""
    good = {"--url": closed_port(), "--address": WHO}
    for flag, value in BAD_ARGUMENTS:
        args = {**good, flag: value}
        if flag in ("--profile", "--key-env"):
            args.pop("--url")
        if flag == "--key-env":
            args.pop("--address")
        argv = [a for pair in args.items() for a in pair]
        rc, out, err = await xtui("export", "fills", *argv)
        assert rc in (1, 2) and out == "" and "Traceback" not in err and err.strip(), (flag, value, err)


async def test_a_reader_that_stops_early_ends_the_export_quietly(sim: LocalExchange, clock: SkewedClock) -> None:
    """`xtui export ... | head -1` over 1,001 rows: the export ends at once with exit 0 and no traceback."""
    deposits(sim, clock, 1001)
    read_end, write_end = os.pipe()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tui", "export", "transfers", "--url", sim.url, "--address", WHO,
        stdout=write_end, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:  # head: one line, then gone
        first = await asyncio.wait_for(asyncio.to_thread(reader.readline), 30)
    assert first.startswith(b"time,type,")
    assert proc.stderr is not None
    err = await asyncio.wait_for(proc.stderr.read(), 30)
    assert await asyncio.wait_for(proc.wait(), 30) == 0 and b"Traceback" not in err, err


@pytest.mark.long
async def test_a_history_past_a_hundred_thousand_rows_is_written_whole(
    sim: LocalExchange, clock: SkewedClock, tmp_path: Path
) -> None:
    """100,001 transfers (1,001 pages) to a file: all 100,001 rows, exit 0, no warning (the export used to stop at
    100,000 without a word), in the memory of a page or so: its peak under 100 MB (it was ~165 MB, holding all)."""
    sim.engine.config = dataclasses.replace(sim.engine.config, max_history=200_000)  # the exchange keeps them all
    deposits(sim, clock, 100_001)
    target = tmp_path / "all.csv"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", PEAK_OF_CHILD, sys.executable, "-m", "tui", "export", "transfers", "--out", str(target),
        "--url", sim.url, "--address", WHO, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, said = await asyncio.wait_for(proc.communicate(), 120)
    *err, peak = said.decode().splitlines()
    assert proc.returncode == 0 and err == [f"100001 transfers record(s) written to {target}"], err
    rows = amounts(target.read_text())
    assert len(rows) == 100_001 and rows[0] == 100_001 and rows[-1] == 1
    assert int(peak) < 100 * 1024, f"peak {peak} KB"  # Linux: kilobytes


async def test_the_journal_reads_past_one_record_out_of_order(sim: LocalExchange, clock: SkewedClock) -> None:
    """The journal screen's reader, on the same history: 1,001 deposits, one on page 3 stamped a day too early.
    It keeps the other 1,000 since the first day (it stopped at that record, as export did, and lost 801 of them)
    and stops only at a page wholly older than ``since``."""
    import datetime as dt

    from tui.api.client import Client
    from tui.feed.journal import read_history

    deposits(sim, clock, 1001, stray=200)
    async with Client(sim.url) as client:
        kept = await read_history(client, WHO, "transfers", dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
        everything = await read_history(client, WHO, "transfers")
    assert [int(t.amount) for t in kept] == [n for n in range(1001, 0, -1) if n != 801]
    assert len(everything) == 1001
