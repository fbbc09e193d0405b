"""``xtui export fills|orders|funding|transfers|positions``: an account's history as CSV or JSON, for spreadsheets
and taxes. ``positions`` is the closed positions rebuilt from every fill and funding record
(``tui.feed.position_history``), newest close first; positions still open are left out and counted on stderr, and
``--since`` keeps the positions closed from then on.

Read-only: it signs nothing and needs no key (the account is ``--address``, or the profile's account or
its key's address, read without unlocking it). Exact decimals as the exchange records them, ISO times,
newest first. Every page is written as it arrives, so a history of any length costs the memory of one page;
``--limit N`` stops after N rows and says on stderr when more were there. ``--since`` keeps the records from a
time on: it reads the whole history (the exchange has no time filter and its order is not trusted), so one
record out of order costs nothing. ``--out`` is checked before anything is fetched and written through a
temporary file beside it, so a failed export leaves no half file. The built-in exchange starts empty every run,
so it is refused: point export at an exchange (``--url``, ``--testnet``, ``--mainnet`` or a profile with a url).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import datetime as dt
import json
import math
import os
import sys
import tempfile
from typing import IO, Any

from tui.config.errors import StartupError
from tui.edges.regular_files import NotRegularFile, check_replaceable

__all__ = ["add_export_arguments", "run_export"]

MAX_LIMIT_DIGITS = 12
KINDS = ("fills", "orders", "funding", "transfers")


def _row_count(text: str) -> int:
    """``--limit``: a whole number of rows, 1 or more, in ASCII digits."""
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_LIMIT_DIGITS or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of rows (a whole number, 1 or more)")
    return int(text)


def add_export_arguments(p: argparse.ArgumentParser) -> None:
    from tui.cli.target_options import add_doctor_arguments

    p.add_argument("kind", choices=(*KINDS, "positions"), help="which history (positions: closed, from the fills)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="comma-separated values with a header row (the default)")
    fmt.add_argument("--json", action="store_true", help="a JSON array of objects")
    p.add_argument("--since", metavar="DATE", help="only records from this date (YYYY-MM-DD, UTC) or ISO time on")
    p.add_argument("--limit", metavar="N", type=_row_count, help="at most N rows (stderr says when there were more)")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    add_doctor_arguments(p, export=True)  # --profile | --url | --testnet | --mainnet, --address, --key-env, ...


def run_export(args: argparse.Namespace) -> int:
    from tui.cli.doctor import launch_for, target_for
    from tui.feed.journal import parse_since

    since = None
    if args.since is not None:
        try:
            since = parse_since(args.since)
        except ValueError as exc:
            raise StartupError(str(exc)) from None
    timeout = args.timeout
    if not (math.isfinite(timeout) and 0 < timeout <= 600):
        raise StartupError(f"--timeout: {timeout} is not a number of seconds between 0 and 600")
    if args.url is not None:
        from tui.config.values import PROFILE_FIELDS

        try:
            PROFILE_FIELDS["url"](args.url)
        except ValueError as exc:
            raise StartupError(f"--url: {exc}") from None
    launch = launch_for(args)
    if launch.profile.builtin_exchange:
        raise StartupError(
            "the built-in exchange starts empty every run: give --url (for example what `xtui sim` prints), "
            "--testnet, --mainnet or a profile with a url"
        )
    try:
        target = target_for(launch, args.dialect)
    except ValueError as exc:  # a profile's url or key file that cannot be read
        raise StartupError(str(exc)) from None
    if target.account is None:
        raise StartupError("no account: give --address ADDR, or a profile with an account or a key")
    sink = _Sink(args.out)  # refuses a file that cannot be written before anything is fetched
    rows = _JsonRows(sink.stream) if args.json else _CsvRows(sink.stream)
    export = _Export(args.kind, since, args.limit, rows)
    try:
        asyncio.run(export.run(target, timeout))
        rows.close()
        sink.commit()
    except BaseException as exc:
        sink.discard()
        if isinstance(exc, BrokenPipeError):  # `xtui export ... | head`: the reader has all it wanted
            _quiet_stdout()
            return 0
        if not _fetch_error(exc):
            raise
        where = f"nothing written to {args.out}" if args.out else f"{export.written} row(s) written before it"
        raise StartupError(f"export of {args.kind} stopped: {exc} ({where})") from None
    sys.stderr.write(_summary(args.kind, export, args.out))
    return 0


def _summary(kind: str, export: _Export, out: str | None) -> str:
    said = f"{export.written} {kind} record(s) written to {out}\n" if out else ""
    if export.more:
        said += f"xtui: more {kind} records than --limit {export.limit}: only the newest {export.written} written\n"
    if export.note:
        said += f"xtui: {export.note}\n"
    return said


def _fetch_error(exc: BaseException) -> bool:
    from tui.api.errors import ClientError
    from tui.api.models.decoding import DecodeError

    return isinstance(exc, ClientError | DecodeError | OSError | TimeoutError)


def _quiet_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush raises nothing."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


class _Sink:
    """Standard output, or a temporary file beside ``--out`` that becomes it only when the export is whole."""

    def __init__(self, out: str | None) -> None:
        self.out = out
        self.temp: str | None = None
        if out is None:
            self.stream: IO[str] = sys.stdout
            return
        if not out.strip():
            raise StartupError("--out: give a file name")
        if os.path.isdir(out):
            raise StartupError(f"--out: {out} is a directory: give a file name")
        folder = os.path.dirname(os.path.abspath(out))
        if not os.path.isdir(folder):
            raise StartupError(f"--out: the directory {folder} does not exist")
        try:  # a link, a FIFO or a device is never replaced (nor written through)
            check_replaceable(out)
        except NotRegularFile as exc:
            raise StartupError(f"--out: {out}: {exc.strerror}") from None
        if os.path.exists(out) and not os.access(out, os.W_OK):
            raise StartupError(f"--out: {out} is read-only")
        try:
            fd, self.temp = tempfile.mkstemp(prefix=".xtui-export-", suffix=".part", dir=folder)
        except OSError as exc:
            raise StartupError(f"--out: cannot write in {folder}: {exc.strerror or exc}") from None
        self.stream = os.fdopen(fd, "w", encoding="utf-8", newline="")

    def commit(self) -> None:
        if self.temp is None or self.out is None:
            self.stream.flush()
            return
        self.stream.close()
        os.chmod(self.temp, 0o644 & ~_umask())
        try:
            os.replace(self.temp, self.out)
        except OSError as exc:
            self.discard()
            raise StartupError(f"--out: cannot write {self.out}: {exc.strerror or exc}") from None
        self.temp = None

    def discard(self) -> None:
        if self.temp is None:
            return
        self.stream.close()
        with contextlib.suppress(FileNotFoundError):  # already gone: nothing of it is left to clean
            os.unlink(self.temp)
        self.temp = None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class _CsvRows:
    """A header row, then rows as they come."""

    def __init__(self, stream: IO[str]) -> None:
        self.writer = csv.writer(stream, lineterminator="\n")
        self.started = False

    def write(self, header: list[str], rows: list[list[str]]) -> None:
        if not self.started:
            self.writer.writerow(header)
            self.started = True
        self.writer.writerows(rows)

    def close(self) -> None:
        return None


class _JsonRows:
    """A JSON array written object by object: ``[``, the objects comma-separated, ``]``."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.count = 0

    def write(self, header: list[str], rows: list[list[str]]) -> None:
        for row in rows:
            text = json.dumps(dict(zip(header, row, strict=True)), indent=2).replace("\n", "\n  ")
            self.stream.write(("[\n  " if self.count == 0 else ",\n  ") + text)
            self.count += 1

    def close(self) -> None:
        self.stream.write("[]\n" if self.count == 0 else "\n]\n")


class _Export:
    """Reads ``kind`` page by page and hands each page's kept rows to ``rows`` at once."""

    def __init__(self, kind: str, since: dt.datetime | None, limit: int | None, rows: _CsvRows | _JsonRows) -> None:
        self.kind = kind
        self.since = since
        self.limit = limit
        self.rows = rows
        self.written = 0
        self.more = False  # a record past --limit was seen
        self.note = ""  # what else stderr says (positions: those still open, those not rebuilt)

    async def run(self, target: Any, timeout: float) -> None:
        from tui.api.client import Client
        from tui.feed.journal import export_rows, history_pages

        ends = target.endpoints
        client = Client(
            ends.api, explorer_url=ends.explorer, testnet=target.testnet, dialect=target.dialect, timeout=timeout
        )
        async with client as c:
            if self.kind == "positions":
                await self._positions(c, target.account)
                return
            names: dict[int, str] = {}
            if self.kind == "funding":
                instruments = await c.instruments()
                names = {p.id: p.name for p in instruments.perps}
            header, _ = export_rows(self.kind, [], names)
            async for page in history_pages(c, target.account, self.kind):
                kept = [r for r in page if self._keeps(r)]
                if self.limit is not None and self.written + len(kept) > self.limit:
                    self.more = True
                    kept = kept[: self.limit - self.written]
                self.rows.write(header, export_rows(self.kind, kept, names)[1])
                self.written += len(kept)
                if self.more:
                    return

    async def _positions(self, c: Any, account: str) -> None:
        """Every fill and funding record read (a position may have opened long ago), then the closed positions."""
        from tui.feed.journal import read_history
        from tui.feed.position_history import POSITION_COLUMNS, position_book, position_rows

        instruments = await c.instruments()
        names = {p.id: p.name for p in instruments.perps}
        fills, funding = await asyncio.gather(read_history(c, account, "fills"), read_history(c, account, "funding"))
        book = position_book(fills, funding, names)
        kept = [p for p in book.closed if self.since is None or (p.closed and p.closed >= self.since)]
        if self.limit is not None and len(kept) > self.limit:
            self.more = True
            kept = kept[: self.limit]
        self.rows.write(list(POSITION_COLUMNS), position_rows(kept))
        self.written = len(kept)
        notes = []
        if book.open:
            notes.append(
                f"{len(book.open)} position(s) still open, not exported ({', '.join(p.instrument for p in book.open)})"
            )
        if book.unknown_fills:
            notes.append(f"{book.unknown_fills} fill(s) of a position opened before the oldest fill kept, left out")
        self.note = "; ".join(notes)

    def _keeps(self, record: Any) -> bool:
        if self.since is None:
            return True
        at = _time_of(record)
        return at is None or at >= self.since  # a record whose time cannot be read is kept, not dropped


def _time_of(record: Any) -> dt.datetime | None:
    from tui.api import models as m

    text = str(record.block_timestamp if isinstance(record, m.Fill) else record.timestamp)
    try:
        at = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return at if at.tzinfo else at.replace(tzinfo=dt.UTC)
