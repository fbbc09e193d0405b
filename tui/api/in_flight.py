"""The signed actions a client has sent and not yet heard back about, so that an exit can say what became of each.

``HttpClient.submit`` opens an entry when it posts a signed body and closes it with the answer: the transaction
hash, the refusal, or nothing at all (a timeout, a dropped connection, a cancelled task: the outcome is unknown).
Whoever ends the process (``tui.ui.signals``) looks at what is open, gives it a moment to settle, and logs each.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Iterable
from typing import Any

import msgspec

__all__ = ["InFlight", "SentAction"]

log = logging.getLogger(__name__)
SUMMARY_CHARS = 300  # of an action's fields, in a log line


class SentAction:
    """One signed action on its way: what it was, and, once known, how it ended."""

    def __init__(self, number: int, name: str, nonce: Any, fields: Any) -> None:
        self.number = number
        self.name = name
        self.nonce = nonce
        self.fields = fields
        self.sent_at = time.time()
        self.tx_hash: str | None = None
        self.refusal: str | None = None  # what the exchange said when it refused it
        self.unknown: str | None = None  # why no answer came (a timeout, a lost connection, a cancelled send)
        self._done = asyncio.Event()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def outcome(self) -> str:
        """``tx 0x…``, ``refused: …`` or ``outcome unknown (…)``; ``outcome unknown (no answer yet)`` while open."""
        if self.tx_hash:
            return f"tx {self.tx_hash}"
        if self.refusal is not None:
            return f"refused: {self.refusal}"
        if self.done and self.unknown is None:
            return "applied (the exchange named no transaction)"
        return f"outcome unknown ({self.unknown or 'no answer yet'})"

    @property
    def known(self) -> bool:
        return self.done and self.unknown is None

    def describe(self) -> str:
        """The action as a log line shows it: its name, nonce and fields (no signature: nothing secret)."""
        text = msgspec.json.encode(self.fields).decode(errors="replace")
        if len(text) > SUMMARY_CHARS:
            text = text[: SUMMARY_CHARS - 1] + "…"
        return f"{self.name} (nonce {self.nonce}) {text}"

    def answered(self, envelope: Any) -> None:
        tx = envelope.get("tx_hash") if isinstance(envelope, dict) else None
        self.tx_hash = str(tx) if tx else None
        self._done.set()

    def refused(self, message: str) -> None:
        self.refusal = message
        self._done.set()

    def lost(self, why: str) -> None:
        self.unknown = why
        self._done.set()

    async def wait(self) -> None:
        await self._done.wait()


class InFlight:
    """The signed actions of one client that have not been answered yet."""

    def __init__(self) -> None:
        self._open: dict[int, SentAction] = {}
        self._numbers = itertools.count(1)

    def sent(self, body: Any, name: str) -> SentAction:
        """Open an entry for a signed /exchange ``body`` of action ``name``, about to be posted."""
        action = body.get("action") if isinstance(body, dict) else None
        data = action.get("data") if isinstance(action, dict) else None
        entry = SentAction(next(self._numbers), name, body.get("nonce"), data)
        self._open[entry.number] = entry
        log.debug("sending %s", entry.describe())
        return entry

    def closed(self, entry: SentAction) -> None:
        self._open.pop(entry.number, None)

    def open(self) -> list[SentAction]:
        """What is on its way now, oldest first."""
        return list(self._open.values())

    @staticmethod
    async def settle(entries: Iterable[SentAction], timeout: float) -> None:
        """Wait up to ``timeout`` seconds for ``entries`` to be answered (or to fail)."""
        waits = [asyncio.ensure_future(e.wait()) for e in entries if not e.done]
        if not waits:
            return
        try:
            await asyncio.wait(waits, timeout=timeout)
        finally:
            for w in waits:
                w.cancel()
