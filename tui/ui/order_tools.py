"""The app's side of its sessions' order tools (``tui.trading.tools``): what runs (for the quit question and the
account switch), ending them as xtui ends, and what stays on the exchange after (logged, and printed once the terminal
is back). Every tool is reached through ``Session.tools``, none by name."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from tui.trading.tools import Job, OrderTool

if TYPE_CHECKING:
    from tui.ui.session import Session

__all__ = ["jobs", "resting_now", "running_tools", "stop_tools"]

log = logging.getLogger("tui.ui")


def running_tools(sessions: Iterable[Session]) -> list[tuple[Session, OrderTool, list[Job]]]:
    """Each tool with jobs running, with its session and its jobs."""
    return [(s, t, found) for s in sessions for t in s.tools if (found := t.jobs())]


def jobs(sessions: Iterable[Session]) -> list[Job]:
    """Every job running, in every session."""
    return [job for _, _, found in running_tools(sessions) for job in found]


def resting_now(sessions: Iterable[Session]) -> list[str]:
    """What would stay on the exchange if xtui ended this instant, a line each."""
    return [line for s in sessions for t in s.tools for line in t.left_if_ended()]


async def stop_tools(sessions: Iterable[Session], why: str = "xtui quit") -> list[str]:
    """End every tool (entry orders withdrawn, protective ones left); what stays on the exchange, each logged."""
    resting: list[str] = []
    for s in sessions:
        for tool in s.tools:
            resting += await tool.end_all(why)
    for line in resting:
        log.warning("as xtui ends: %s", line)
    return resting
