"""One protocol for xtui's order tools: TWAP, trailing stop, chase, OCO, and any later one.

The session holds a list of them; the app, the quit question, the signal paths and the account switch go through
that list and never name a tool. Each tool says what runs (``jobs``), what of it would stay on the exchange were xtui
to end now (``left_if_ended``), which open orders it keeps (``owned_cloids``: another order of its cloid scheme is one
it does not run, an earlier run's), how it ends on an exit xtui handles (``end_all``), and what it cannot keep
covered (``uncovered``).

On every exit xtui handles (``q``, SIGTERM, SIGINT, SIGHUP) an *entry* tool's orders are withdrawn (a chase's order,
a TWAP's next slice is never sent) and a *protective* tool's stay (a trailing stop's stop, an OCO's legs), each said
in the summary from the exchange's record as the tool last read it. ``docs/trading.md`` has the table.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import msgspec

__all__ = ["Job", "OrderTool"]


class Job(msgspec.Struct, frozen=True):
    """One running job of a tool: 'Trailing stop 2: BTC-PERP 3% behind the mark: stop 97,000 · peak 100,000'."""

    tool: str
    id: int
    progress: str

    def words(self) -> str:
        return f"{self.tool} {self.id}: {self.progress}"


@runtime_checkable
class OrderTool(Protocol):
    @property
    def name(self) -> str:
        """As the trader reads it: "TWAP", "Trailing stop", "Chase", "OCO"."""
        ...

    @property
    def protective(self) -> bool:
        """Its orders protect a position: they stay on the exchange when xtui ends."""
        ...

    @property
    def on_exit(self) -> str:
        """What ending xtui does to it, in words (the quit question)."""
        ...

    def jobs(self) -> list[Job]:
        """The jobs running now."""
        ...

    def left_if_ended(self) -> list[str]:
        """What of it would stay on the exchange were xtui to end now, a line each, from its record as last read."""
        ...

    def owned_cloids(self) -> set[str]:
        """The client order ids of the open orders it keeps now."""
        ...

    async def end_all(self, why: str) -> list[str]:
        """End every job as xtui ends (entry orders withdrawn, protective ones left); what stays, a line each."""
        ...

    def uncovered(self) -> dict[str, str]:
        """Instrument -> what it could not keep covered, in words (nothing for an entry tool)."""
        ...
