"""What quitting asks first: the client-side tools still trading (in every session shown), or an order on its way."""

from __future__ import annotations

from collections.abc import Sequence

from tui.ui.session import Session

__all__ = ["quit_question"]


def quit_question(sessions: Sequence[Session], in_flight: int) -> tuple[str, list[str]] | None:
    """The question (title, lines) before quitting with TWAPs running, trailing stops moving or an order in flight;
    None: nothing to ask."""
    running = [t for s in sessions if s.twaps is not None for t in s.twaps.active]
    trailing = [t for s in sessions if s.trails is not None for t in s.trails.active]
    if running:
        lines = [f"TWAP {t.id}: {t.progress()}" for t in running]
        lines.append("Quitting cancels them; the slices already sent stay as they are.")
        lines += [f"Trailing stop {t.id}: stops moving; its last stop stays on the exchange" for t in trailing]
        return f"Quit with {len(running)} TWAP(s) running?", lines
    if trailing:
        lines = [f"Trailing stop {t.id}: {t.progress()}" for t in trailing]
        lines.append("Quitting stops moving them: each last stop stays on the exchange where it is.")
        return f"Quit with {len(trailing)} trailing stop(s)?", lines
    if in_flight:
        return "Quit while an order is being sent?", [
            f"{in_flight} submission(s) in flight: their outcome will not be shown."
        ]
    return None
