"""``xtui sim --mirror URL --record FILE``: what the mirror reads from its source, and the trades made here, to a
file that ``--replay`` plays again (``replay``; the format: docs/recording.md).

JSON lines, one object a line, each under ``MAX_LINE_BYTES``, written and flushed as they happen: a header with
the format's name and version, the source's answers at start (``open``, ``past``), then every poll (``poll``: the
tickers, new trades and books as the source gave them; ``fail``: why it could not be read), every trade made on
this exchange (``trade``, the public trade record), and ``end`` when the mirror stops. Times are the exchange's
clock in ms. An answer too large for a line is written as a failure (the replay then sees a stale source there).
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import msgspec

from tui.edges.regular_files import open_to_write

from .tape import SourceAnswer

if TYPE_CHECKING:
    from ..engine import Exchange
    from ..engine.records import Trade
    from .source import Mirror

__all__ = ["FORMAT", "MAX_LINE_BYTES", "VERSION", "Recorder"]

log = logging.getLogger(__name__)
FORMAT = "xtui-sim-recording"
VERSION = 1
MAX_LINE_BYTES = 4_000_000  # the largest line written or read: a source's instrument list is ~100 KB
_encode = msgspec.json.Encoder(decimal_format="string").encode


class Recorder:
    """Writes one recording; every line is flushed, so a recording of a mirror that died keeps what it saw."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # OSError (NotRegularFile for a link, a FIFO or a device): the caller says it cannot record there
        self._file: IO[bytes] | None = open_to_write(path)
        self._trade_id = 0  # the last trade of this exchange written

    def _write(self, record: dict[str, Any]) -> bool:
        line = _encode(record)
        if len(line) >= MAX_LINE_BYTES or self._file is None:
            return False
        try:
            self._file.write(line + b"\n")
            self._file.flush()
        except OSError as exc:  # a full disk: the mirror goes on, the recording stops (and says so once)
            log.error("mirror: recording to %s stopped: %s", self.path, exc.strerror or exc)
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        return True

    def start(self, mirror: Mirror, seed: int, start_ms: int) -> None:
        """The header, and what the mirror read from its source at start."""
        opening = mirror.opening
        if opening is None:
            raise ValueError("a mirror without its opening answers cannot be recorded")
        self._write(
            {
                "format": FORMAT,
                "version": VERSION,
                "source": mirror.url,
                "seed": seed,
                "start_ms": start_ms,
                "poll_ms": mirror.poll_ms,
                "max_move_pct": str(mirror.sanity.max_move_pct),
            }
        )
        opened = {"instruments": opening.instruments, "collaterals": opening.collaterals, "tickers": opening.tickers}
        if not self._write({"k": "open", **opened}):
            raise ValueError(f"the source's instruments do not fit in a line of {MAX_LINE_BYTES:,} bytes")
        for (instrument_id, chart_type), minutes in sorted(mirror.past.items()):
            self._write({"k": "past", "id": instrument_id, "type": chart_type, "candles": minutes})

    def answer(self, t: int, answer: SourceAnswer) -> None:
        poll = {"k": "poll", "t": t, "tickers": answer.tickers, "trades": answer.trades, "books": answer.books}
        if not self._write(poll):
            log.warning("mirror: a poll of %s bytes is too large to record: recorded as a failure", MAX_LINE_BYTES)
            self.failure(t, "the answer was too large to record")

    def failure(self, t: int, reason: str) -> None:
        self._write({"k": "fail", "t": t, "reason": reason})

    def trades(self, engine: Exchange) -> None:
        """The trades made on this exchange since the last call, oldest first."""
        fresh: list[Trade] = []
        for m in engine.markets.values():
            for trade in reversed(m.trades):  # newest first: only the new ones are looked at
                if trade.fill.trade_id <= self._trade_id:
                    break
                fresh.append(trade)
        for trade in sorted(fresh, key=lambda t: t.fill.trade_id):
            self._write({"k": "trade", "t": trade.fill.ts_ms, "trade": trade.record()})
            self._trade_id = trade.fill.trade_id

    def close(self, t: int) -> None:
        if self._file is not None:
            self._write({"k": "end", "t": t})
            self._file.close()
            self._file = None
