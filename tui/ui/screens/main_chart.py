"""The dashboard's chart indicator actions: ``i`` steps through none, each indicator alone and all of them; the
command palette turns each on or off. The choice is the profile's (``tui.feed.indicator_choice``), kept on disk so a
restart draws the same."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

from tui.feed.indicator_choice import IndicatorChoice, next_indicators
from tui.ui.widgets.chart import ChartPane

if TYPE_CHECKING:
    from .context import DashboardContext

__all__ = ["ChartIndicatorActions", "indicators_said"]


def indicators_said(choice: IndicatorChoice) -> str:
    return "Chart indicators: " + (", ".join(choice.title(n) for n in choice.chosen) if choice.chosen else "none")


class ChartIndicatorActions(Screen[None]):
    """The dashboard's indicator actions (a base of ``MainScreen``)."""

    context: DashboardContext

    def action_chart_indicators(self) -> None:
        """What i does: the next of none, each alone, all."""
        self._choose(next_indicators(self.context.session.indicators.chosen))

    def action_toggle_indicator(self, name: str) -> None:
        """One indicator on or off (the palette's)."""
        self._choose(self.context.session.indicators.toggled(name))

    def _choose(self, chosen: tuple[str, ...]) -> None:
        choice = self.context.session.indicators
        try:
            choice.choose(chosen)
        except OSError as exc:  # drawn all the same; the next start will not have it
            self.notify(f"Chart indicators not saved: {exc}", severity="error", markup=False)
        for pane in self.query(ChartPane):
            pane.set_indicators(choice)
            pane.refresh_state()
        self.notify(indicators_said(choice), timeout=2)
