"""What quitting asks first: the client-side tools still trading (in every session shown), or an order on its way."""

from __future__ import annotations

from collections.abc import Sequence

from tui.ui.order_tools import QUIT_NOTE, running
from tui.ui.session import Session

__all__ = ["quit_question"]


def quit_question(sessions: Sequence[Session], in_flight: int) -> tuple[str, list[str]] | None:
    """The question (title, lines) before quitting with TWAPs, chases or OCOs running, trailing stops moving or an
    order in flight; None: nothing to ask."""
    twaps = [t for s in sessions if s.twaps is not None for t in s.twaps.active]
    trailing = [t for s in sessions if s.trails is not None for t in s.trails.active]
    tools = running(sessions)  # chases and OCOs
    if twaps or tools:
        lines = [f"TWAP {t.id}: {t.progress()}" for t in twaps] + tools
        if twaps:
            lines.append("Quitting cancels the TWAPs; the slices already sent stay as they are.")
        if tools:
            lines.append(QUIT_NOTE)
        lines += [f"Trailing stop {t.id}: stops moving; its last stop stays on the exchange" for t in trailing]
        said = ", ".join(f"{n} {what}" for n, what in ((len(twaps), "TWAP(s)"), (len(tools), "chase/OCO")) if n)
        return f"Quit with {said} running?", lines
    if trailing:
        lines = [f"Trailing stop {t.id}: {t.progress()}" for t in trailing]
        lines.append("Quitting stops moving them: each last stop stays on the exchange where it is.")
        return f"Quit with {len(trailing)} trailing stop(s)?", lines
    if in_flight:
        said = f"{in_flight} submission(s) in flight: their outcome will not be shown."
        return "Quit while an order is being sent?", [said]
    return None
