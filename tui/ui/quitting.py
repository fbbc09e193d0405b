"""What quitting asks first: the order tools still running (in every session shown), or an order on its way."""

from __future__ import annotations

from collections.abc import Sequence

from tui.ui.order_tools import running_tools
from tui.ui.session import Session

__all__ = ["quit_question"]


def quit_question(sessions: Sequence[Session], in_flight: int) -> tuple[str, list[str]] | None:
    """The question (title, lines) before quitting with order tools running or an order in flight; None: nothing
    to ask. Each tool running says its jobs and what quitting does to it; then what stays on the exchange."""
    found = running_tools(sessions)
    if found:
        lines = [job.words() for _, _, jobs in found for job in jobs]
        lines += list(dict.fromkeys(tool.on_exit for _, tool, _ in found))
        count = sum(len(jobs) for _, _, jobs in found)
        names = ", ".join(dict.fromkeys(tool.name for _, tool, _ in found))
        return f"Quit with {count} order tool(s) running ({names})?", lines
    if in_flight:
        said = f"{in_flight} submission(s) in flight: their outcome will not be shown."
        return "Quit while an order is being sent?", [said]
    return None
