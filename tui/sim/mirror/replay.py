"""``xtui sim --replay FILE``: a recorded mirror session (``record``) played again on a virtual clock.

The recording is read whole and checked before the exchange starts: a file that is not a recording, of another
version, damaged or cut short is refused in words (``RecordingError``), never half played. The exchange then runs
as the mirror did, on a clock that starts where the recording starts: its instruments are the source's as
recorded, and each recorded poll (prices, trades, books) or failure is applied when the clock reaches its time
(``ReplaySource.catch_up``), so the makers, the queue model, blocks, hashes, ids, funding and candles all follow
that one clock, and the market's randomness is the recording's seed. Under ``--step`` the clock moves only when a
client steps it (``POST /clock/step``): one bot, run twice against one recording, gets the same fills, byte for
byte. After the last poll the source reads as stale ("the recording ends here"): quotes pulled, prices held.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

import msgspec

from tui.api import models as m
from tui.bounded_parse import FileLimitError, check_depth, size_text

from .config import SourceUnusable, source_markets
from .past import Minutes
from .record import FORMAT, MAX_LINE_BYTES, VERSION
from .source import Mirror, SourceOpening
from .tape import SourceAnswer

__all__ = ["MAX_FILE_BYTES", "Recording", "RecordingError", "ReplaySource", "load_recording"]

MAX_FILE_BYTES = 2_000_000_000  # a day of polls of a few instruments is ~1 GB: it is all read into memory


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
    path: Path
    source: str
    seed: int
    start_ms: int
    end_ms: int
    poll_ms: int
    max_move_pct: Decimal
    opening: SourceOpening
    past: dict[tuple[int, str], Minutes]
    events: list[SourceEvent]
    trades: list[dict[str, Any]]  # the trades made on the recorded exchange (the replay makes its own)


def _lines(path: Path) -> list[bytes]:
    """The file's lines, each whole and within ``MAX_LINE_BYTES``."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise RecordingError(f"it is {size_text(size)}, more than the {size_text(MAX_FILE_BYTES)} read")
        lines: list[bytes] = []
        with path.open("rb") as f:
            while line := f.readline(MAX_LINE_BYTES + 1):
                if len(line) > MAX_LINE_BYTES:
                    raise RecordingError(f"line {len(lines) + 1} is longer than {MAX_LINE_BYTES:,} bytes")
                if not line.endswith(b"\n"):
                    raise RecordingError(f"it is cut short: line {len(lines) + 1} ends without a newline")
                lines.append(line)
    except OSError as exc:
        raise RecordingError(exc.strerror or str(exc)) from None
    if not lines:
        raise RecordingError("it is empty")
    return lines


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
    """The recording at ``path``, checked whole; ``RecordingError`` (naming the file and line) if it is not one."""
    try:
        return _load(path)
    except RecordingError as exc:
        raise RecordingError(f"{path}: {exc}") from None


def _load(path: Path) -> Recording:
    lines = _lines(path)
    head = _header(lines[0])
    opening: SourceOpening | None = None
    past: dict[tuple[int, str], Minutes] = {}
    events: list[SourceEvent] = []
    trades: list[dict[str, Any]] = []
    end: int | None = None
    last_t = head.start_ms
    for n, line in enumerate(lines[1:], start=2):
        if end is not None:
            raise RecordingError(f"line {n}: lines after the end")
        try:
            check_depth(line)
            item = _decode_line(line)
        except (msgspec.DecodeError, FileLimitError, UnicodeDecodeError, ValueError) as exc:
            raise RecordingError(f"line {n}: damaged: {str(exc)[:200]}") from None
        if (n == 2) != isinstance(item, _Open):
            raise RecordingError(f"line {n}: the source's opening answers belong on line 2, once")
        if isinstance(item, _Past) and (events or trades):
            raise RecordingError(f"line {n}: the source's past belongs before its polls")
        t = getattr(item, "t", last_t)
        if t < last_t:
            raise RecordingError(f"line {n}: time goes backwards ({t} after {last_t})")
        last_t = t
        if isinstance(item, _Open):
            opening = SourceOpening(item.instruments, item.collaterals, item.tickers)
        elif isinstance(item, _Past):
            past[(item.id, item.type)] = item.candles
        elif isinstance(item, _Poll):
            events.append(SourceEvent(t, SourceAnswer(item.tickers, item.trades, item.books)))
        elif isinstance(item, _Fail):
            events.append(SourceEvent(t, None, item.reason))
        elif isinstance(item, _Trade):
            trades.append(item.trade)
        else:
            end = t
    if opening is None:
        raise RecordingError("no opening line: it holds nothing to list")
    if end is None:
        raise RecordingError(f"it is cut short: no end line after line {len(lines)} (the recording did not stop)")
    try:  # the instruments make a market here, as they did when recorded
        source_markets(opening.instruments, opening.collaterals, opening.tickers, head.seed)
    except Exception as exc:  # whatever the opening line holds, it is said in words
        raise RecordingError(f"line 2: its instruments make no market: {str(exc)[:200]}") from None
    return Recording(
        path, head.source, head.seed, head.start_ms, end, head.poll_ms, head.max_move_pct, opening, past, events, trades
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
        self._events = deque(recording.events)

    async def poll(self) -> bool:
        self.catch_up(self._now_ms())
        return self.live

    def catch_up(self, now_ms: int) -> None:
        """Apply every recorded poll due by ``now_ms``; past the recording's end the source is stale."""
        events = self._events
        while events and events[0].t <= now_ms:
            event = events.popleft()
            if event.answer is None:
                self.failed(event.reason)
            else:
                self.apply(event.answer)
        if not events and now_ms >= self.recording.end_ms and self.reason != "the recording ends here":
            self._stale("the recording ends here")
