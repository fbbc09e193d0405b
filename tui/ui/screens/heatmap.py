"""The heatmap screen (``h`` on the dashboard, or the palette): the book's depth over the last minutes
(``tui.ui.widgets.heatmap``) under the line that says who trades where.

A column a second, ten minutes kept; with ``--low-bandwidth`` a column every five seconds (fifty minutes kept),
drawn as often: each draw rewrites the lines that moved. It needs 40 columns and 12 lines (smaller, its legend line
says so); it shows 146 columns of 42 price bands at 160x48, 106 of 24 at 120x30, 66 of 18 at 80x24 (a column a
second: a minute at 80x24; ``t`` puts up to ten seconds in a column).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from tui.ui.widgets.footer import Footer
from tui.ui.widgets.heatmap import HeatmapPane

from .live_screen import LiveScreen

__all__ = ["HEATMAP_BINDINGS", "HeatmapScreen"]

HEATMAP_BINDINGS: list[BindingType] = [
    Binding("c", "recentre", "Centre", id="heatmap.recentre", tooltip="Heatmap: recentre the price axis on the mid"),
    Binding("g", "grouping", "Group", id="heatmap.grouping",
            tooltip="Heatmap: price bands 1x, 10x, 100x, 1000x the tick"),
    Binding("t", "time", "Time", id="heatmap.time",
            tooltip="Heatmap: a column for 1, 2, 5 or 10 seconds (more time shown, drawn as seldom)"),
]  # fmt: skip

LEGEND = "░▒▓█ size resting (bids, asks)  ▲ ▼ trades (a buyer, a seller took)  now at the right"
TOO_SMALL = "The heatmap needs at least 40 columns and 12 lines."


class HeatmapScreen(LiveScreen):
    SCOPE: ClassVar[str] = "heatmap"
    BINDINGS: ClassVar[list[BindingType]] = HEATMAP_BINDINGS

    DEFAULT_CSS = """
    HeatmapScreen {
        layout: vertical;
    }
    HeatmapScreen #heatmap-header, HeatmapScreen #heatmap-legend {
        height: 1;
    }
    HeatmapScreen #heatmap-legend {
        padding: 0 1;
        color: $foreground-muted;
        background: $boost;
    }
    """

    def compose(self) -> ComposeResult:
        yield self.context.header("heatmap-header")
        yield Static(LEGEND, id="heatmap-legend", markup=False)
        yield HeatmapPane(self.context.state, self.context.depth_history, period_s=self.refresh_s, id="heatmap")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        self._say_size()

    def on_resize(self) -> None:
        self._say_size()

    def _say_size(self) -> None:
        legend = self.query_one("#heatmap-legend", Static)
        small = self.size.width < 40 or self.size.height < 12
        legend.update(TOO_SMALL if small else LEGEND)

    @property
    def pane(self) -> HeatmapPane:
        return self.query_one(HeatmapPane)

    def action_recentre(self) -> None:
        if self.pane.recentre():
            self.pane.flush()
        else:
            self.notify("No book to centre on yet.", severity="warning")

    def action_time(self) -> None:
        self.notify(f"Heatmap: a column every {self.pane.cycle_every():g} s", timeout=2)

    def action_grouping(self) -> None:
        self.notify(f"Heatmap bands {self.pane.cycle_grouping()}x the tick", timeout=2)
