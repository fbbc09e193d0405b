"""The app's side of the chase and OCO runners of its sessions: what runs (for the quit question), stopping them
as xtui ends, and what stays on the exchange after (logged, and printed once the terminal is back)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.ui.session import Session

__all__ = ["QUIT_NOTE", "resting_now", "running", "stop_tools"]

log = logging.getLogger("tui.ui")
QUIT_NOTE = "Quitting withdraws each chase's order; what rests of an OCO stays on the exchange, no longer linked."


def running(sessions: Iterable[Session]) -> list[str]:
    """Each chase and OCO still running, in a line."""
    lines = []
    for s in sessions:
        if s.chases is not None:
            lines += [f"Chase {c.id}: {c.spec.describe()} · {c.progress()}" for c in s.chases.active]
        if s.ocos is not None:
            lines += [f"OCO {o.id}: {o.progress()}" for o in s.ocos.active]
    return lines


def resting_now(sessions: Iterable[Session]) -> list[str]:
    """What would stay on the exchange if xtui ended this instant: every chase order and every OCO leg."""
    lines: list[str] = []
    for s in sessions:
        lines += s.chases.resting() if s.chases is not None else []
        lines += s.ocos.resting(running_too=True) if s.ocos is not None else []
    return lines


async def stop_tools(sessions: Iterable[Session]) -> list[str]:
    """Stop every chase (its order withdrawn) and unlink every OCO (its orders left); what rests, each logged."""
    resting: list[str] = []
    for s in sessions:
        if s.chases is not None:
            resting += await s.chases.stop_all()
        if s.ocos is not None:
            resting += await s.ocos.stop_all()
    for line in resting:
        log.warning("as xtui ends: %s", line)
    return resting
