"""``xtui sim --replay FILE``: a recorded mirror session (``record``) played again on a virtual clock.

The recording is read whole, one line at a time, and checked before the exchange starts: a file that is not a
recording, of another version, damaged or cut short is refused in words (``RecordingError``), never half played.
Only its opening and past are kept; its polls are read again from the file as the clock reaches them, so a replay
holds a line of the file at a time, never the file. The exchange then runs
as the mirror did, on a clock that starts where the recording starts: its instruments are the source's as
recorded, and each recorded poll (prices, trades, books) or failure is applied when the clock reaches its time
(``ReplaySource.catch_up``), so the makers, the queue model, blocks, hashes, ids, funding and candles all follow
that one clock, and the market's randomness is the recording's seed. Under ``--step`` the clock moves only when a
client steps it (``POST /clock/step``): one bot, run twice against one recording, gets the same fills, byte for
byte. After the last poll the source reads as stale ("the recording ends here"): quotes pulled, prices held.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, BinaryIO

import msgspec

from tui.api import models as m
from tui.edges.bounded_parse import FileLimitError, check_depth, size_text
from tui.edges.regular_files import open_to_read

from .config import SourceUnusable, source_markets
from .past import CHART_TYPES, Minutes
from .record import FORMAT, MAX_LINE_BYTES, VERSION
from .source import Mirror, SourceOpening
from .tape import SourceAnswer

__all__ = ["MAX_FILE_BYTES", "Recording", "RecordingError", "ReplaySource", "load_recording"]

MAX_FILE_BYTES = 2_000_000_000  # a day of polls of a few instruments is ~1 GB: read line by line, twice


class RecordingError(ValueError):
    """A file that cannot be replayed, and why, in words."""


class _Header(msgspec.Struct, forbid_unknown_fields=False):
    format: str
    version: int
    source: Annotated[str, msgspec.Meta(max_length=2_000)]
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
    start_ms: Annotated[int, msgspec.Meta(ge=0, lt=2**53)]
    poll_ms: Annotated[int, msgspec.Meta(gt=0, le=3_600_000)]
    max_move_pct: Decimal


class _Open(msgspec.Struct, tag="open", tag_field="k"):
    instruments: m.Instruments
    collaterals: list[m.Collateral]
    tickers: list[m.Ticker]


class _Past(msgspec.Struct, tag="past", tag_field="k"):
    id: int
    type: str
    candles: list[m.Candle]


class _Poll(msgspec.Struct, tag="poll", tag_field="k"):
    t: int
    tickers: list[m.Ticker]
    trades: dict[str, list[m.Trade]]
    books: dict[str, m.OrderBook]


class _Fail(msgspec.Struct, tag="fail", tag_field="k"):
    t: int
    reason: str


class _Trade(msgspec.Struct, tag="trade", tag_field="k"):
    t: int
    trade: dict[str, Any]


class _End(msgspec.Struct, tag="end", tag_field="k"):
    t: int


_Line = _Open | _Past | _Poll | _Fail | _Trade | _End
_decode_line = msgspec.json.Decoder(_Line).decode
_decode_header = msgspec.json.Decoder(_Header).decode


@dataclass(frozen=True, slots=True)
class SourceEvent:
    """One recorded poll: the source's answer, or (``answer`` None) why it could not be read."""

    t: int
    answer: SourceAnswer | None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Recording:
    """A recording checked whole: what the mirror starts from, kept; its polls, read again from the file as played
    (``events``), so that no more than a line of it is ever held."""

    path: Path
    source: str
    seed: int
    start_ms: int
    end_ms: int
    poll_ms: int
    max_move_pct: Decimal
    opening: SourceOpening
    past: dict[tuple[int, str], Minutes]
    polls_at: tuple[int, int]  # the byte offset and the line number of the first line after the opening and the past
    checked: tuple[int, int, int, int]  # the file as checked (device, inode, size, mtime): played only if unchanged

    def events(self) -> Iterator[SourceEvent]:
        """The recorded polls and failures, in order, read from the file one line at a time; RecordingError (naming
        the file) when the file changed since it was checked."""
        for item in self._items():
            if isinstance(item, _Poll):
                yield SourceEvent(item.t, SourceAnswer(item.tickers, item.trades, item.books))
            elif isinstance(item, _Fail):
                yield SourceEvent(item.t, None, item.reason)

    def trades(self) -> Iterator[dict[str, Any]]:
        """The trades made on the recorded exchange (the replay makes its own), read as ``events`` are."""
        for item in self._items():
            if isinstance(item, _Trade):
                yield item.trade

    def _items(self) -> Iterator[_Line]:
        try:
            with open_to_read(self.path) as f:
                if _identity(os.fstat(f.fileno())) != self.checked:
                    raise RecordingError("it changed after it was checked")
                f.seek(self.polls_at[0])
                for n, _, line in _lines(f, self.polls_at[1]):
                    item = _item(n, line)
                    if isinstance(item, _End):
                        return
                    yield item
        except RecordingError as exc:
            raise RecordingError(f"{self.path}: {exc}") from None
        except OSError as exc:
            raise RecordingError(f"{self.path}: {exc.strerror or exc}") from None
        raise RecordingError(f"{self.path}: it changed after it was checked: its end line is gone")


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _lines(f: BinaryIO, first: int = 1) -> Iterator[tuple[int, int, bytes]]:
    """Each line's number, byte offset (from where ``f`` is) and bytes, each whole and within ``MAX_LINE_BYTES``:
    one line at a time, so a file of any size costs at most a line's memory."""
    n, at = first, 0
    while line := f.readline(MAX_LINE_BYTES + 1):
        if len(line) > MAX_LINE_BYTES:
            raise RecordingError(f"line {n} is longer than {MAX_LINE_BYTES:,} bytes")
        if not line.endswith(b"\n"):
            raise RecordingError(f"it is cut short: line {n} ends without a newline")
        yield n, at, line
        n, at = n + 1, at + len(line)


def _item(n: int, line: bytes) -> _Line:
    try:
        check_depth(line)
        item: _Line = _decode_line(line)
    except (msgspec.DecodeError, FileLimitError, UnicodeDecodeError, ValueError) as exc:
        raise RecordingError(f"line {n}: damaged: {str(exc)[:200]}") from None
    return item


def _header(line: bytes) -> _Header:
    try:
        check_depth(line)
        raw = msgspec.json.decode(line)
    except (msgspec.DecodeError, FileLimitError, UnicodeDecodeError):
        raw = None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise RecordingError(f"line 1 is not the header of an xtui sim recording ({FORMAT!r})")
    version = raw.get("version")
    if version != VERSION:
        newer = isinstance(version, int) and not isinstance(version, bool) and version > VERSION
        why = "written by a newer xtui" if newer else "not a version this xtui knows"
        raise RecordingError(f"format version {str(version)[:20]!r} ({why}); this xtui reads version {VERSION}")
    try:
        head = _decode_header(line)
    except msgspec.ValidationError as exc:
        raise RecordingError(f"line 1: {exc}") from None
    if not (head.max_move_pct.is_finite() and 0 < head.max_move_pct <= 1000):
        raise RecordingError(f"line 1: max_move_pct must be above 0 and at most 1000, not {head.max_move_pct}")
    return head


def load_recording(path: Path) -> Recording:
    """The recording at ``path``, checked whole, line by line; ``RecordingError`` (naming the file and line) if it
    is not one. Only its opening and past are kept: a FIFO, a device or a directory is refused in words."""
    try:
        with open_to_read(path) as f:
            st = os.fstat(f.fileno())
            if st.st_size > MAX_FILE_BYTES:
                raise RecordingError(f"it is {size_text(st.st_size)}, more than the {size_text(MAX_FILE_BYTES)} read")
            return _check(path, f, _identity(st))
    except RecordingError as exc:
        raise RecordingError(f"{path}: {exc}") from None
    except OSError as exc:
        raise RecordingError(f"{path}: {exc.strerror or exc}") from None


def _check(path: Path, f: BinaryIO, checked: tuple[int, int, int, int]) -> Recording:
    lines = _lines(f)
    first = next(lines, None)
    if first is None:
        raise RecordingError("it is empty")
    head = _header(first[2])
    opening: SourceOpening | None = None
    ids: set[int] = set()
    past: dict[tuple[int, str], Minutes] = {}
    polls_at: tuple[int, int] | None = None
    end: int | None = None
    last_t = head.start_ms
    n = 1
    for n, at, line in lines:
        if end is not None:
            raise RecordingError(f"line {n}: lines after the end")
        item = _item(n, line)
        if (n == 2) != isinstance(item, _Open):
            raise RecordingError(f"line {n}: the source's opening answers belong on line 2, once")
        if isinstance(item, _Past) and polls_at is not None:
            raise RecordingError(f"line {n}: the source's past belongs before its polls")
        if polls_at is None and not isinstance(item, _Open | _Past):
            polls_at = (at, n)
        t = getattr(item, "t", last_t)
        if t < last_t:
            raise RecordingError(f"line {n}: time goes backwards ({t} after {last_t})")
        last_t = t
        if isinstance(item, _Open):
            opening = SourceOpening(item.instruments, item.collaterals, item.tickers)
            ids = {p.id for p in item.instruments.perps} | {s.id for s in item.instruments.spot}
        elif isinstance(item, _Past):
            if item.id not in ids or item.type not in CHART_TYPES:  # so the past kept is bounded by the opening
                raise RecordingError(f"line {n}: a past for {item.type[:20]!r} of {item.id}, not an instrument's")
            past[(item.id, item.type)] = item.candles
        elif isinstance(item, _End):
            end = t
    if opening is None:
        raise RecordingError("no opening line: it holds nothing to list")
    if end is None or polls_at is None:
        raise RecordingError(f"it is cut short: no end line after line {n} (the recording did not stop)")
    try:  # the instruments make a market here, as they did when recorded
        source_markets(opening.instruments, opening.collaterals, opening.tickers, head.seed)
    except Exception as exc:  # whatever the opening line holds, it is said in words
        raise RecordingError(f"line 2: its instruments make no market: {str(exc)[:200]}") from None
    return Recording(
        path,
        head.source,
        head.seed,
        head.start_ms,
        end,
        head.poll_ms,
        head.max_move_pct,
        opening,
        past,
        polls_at,
        checked,
    )


class ReplaySource(Mirror):
    """A mirror fed from a recording, by the exchange's clock (``catch_up``), instead of by a source's answers."""

    def __init__(self, recording: Recording, now_ms: Callable[[], int], *, fills: str = "queue") -> None:
        o = recording.opening
        try:
            markets = source_markets(o.instruments, o.collaterals, o.tickers, recording.seed)
        except SourceUnusable as exc:
            raise RecordingError(f"{recording.path}: {exc}") from None
        super().__init__(
            recording.source,
            markets,
            None,
            now_ms,
            poll_ms=recording.poll_ms,
            past=recording.past,
            max_move_pct=recording.max_move_pct,
            fills=fills,
            opening=o,
        )
        self.recording = recording
        self.cut = ""  # why the recording could not be read on, once it could not
        self._events = recording.events()
        self._next = next(self._events, None)  # RecordingError here when the file changed since it was checked

    async def poll(self) -> bool:
        self.catch_up(self._now_ms())
        return self.live

    def catch_up(self, now_ms: int) -> None:
        """Apply every recorded poll due by ``now_ms``, read one line at a time; past the recording's end (or where
        it can no longer be read) the source is stale."""
        while self._next is not None and self._next.t <= now_ms:
            event = self._next
            if event.answer is None:
                self.failed(event.reason)
            else:
                self.apply(event.answer)
            try:
                self._next = next(self._events, None)
            except RecordingError as exc:  # changed while played: what was read stands, the rest is not played
                self._next, self.cut = None, str(exc)
        if self.cut and self.reason != self.cut:
            self._stale(self.cut)
        elif self._next is None and now_ms >= self.recording.end_ms and self.reason != "the recording ends here":
            self._stale("the recording ends here")
