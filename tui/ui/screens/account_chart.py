"""The account value and total PnL over time (account_history), drawn with plotext."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual.color import Color

from tui.api.models import AccountHistoryPoint
from tui.ui.widgets.chart import Y_AXIS, tick_positions
from tui.ui.widgets.money_axis import money_axis
from tui.ui.widgets.palette import Palette
from tui.ui.widgets.record_format import fmt_iso

if TYPE_CHECKING:
    from textual_plotext import PlotextPlot

__all__ = ["draw_history", "plot_class"]


def plot_class() -> type[PlotextPlot]:
    """textual_plotext's widget, imported when a screen first shows a chart: the screens' classes are read for
    their keys soon after the start, and plotext would then stay in the dashboard for good (~1.6 MB)."""
    from textual_plotext import PlotextPlot

    return PlotextPlot


def draw_history(plot: PlotextPlot, points: Sequence[AccountHistoryPoint], app: Any) -> None:
    """Draw ``points`` (oldest first): account value and total PnL, against time labels; both axes in money,
    with room around the values (one point: a marker in the middle of a band around it)."""
    plt = plot.plt
    plt.clear_data()
    plt.clear_figure()
    if not points:
        plt.title("No account history yet: the exchange records a point a minute while the account is active")
        plot.refresh()
        return
    colours = Palette.of(app)
    xs = [float(i) for i in range(len(points))]
    values, pnls = [p.account_value for p in points], [p.total_pnl for p in points]
    # numeric x positions: plotext would parse strings as dates in its own format; one point is drawn as a
    # marker in the middle (a line of one point is nothing)
    draw = plt.scatter if len(points) == 1 else plt.plot
    draw(xs, [float(v) for v in values], label="account value", color=_rgb(colours.accent))
    # PnL on its own axis (right): beside the account value it would be a flat line at zero
    draw(xs, [float(v) for v in pnls], label="total PnL (right)", color=_rgb(colours.up), yside="right")
    sides: Any = plt  # plotext's own hints type ``yside`` of ylim and yticks as a number: it is "left" or "right"
    for side, axis in (("left", money_axis(values)), ("right", money_axis(pnls))):
        sides.ylim(*axis.limits, yside=side)
        sides.yticks(axis.ticks, axis.labels, yside=side)
    if len(points) == 1:
        plt.xlim(-1.0, 1.0)
    width = plot.size.width - Y_AXIS if plot.size.width else 80
    ticks = tick_positions(len(points), max(10, width), spacing=20)
    plt.xticks([float(i) for i in ticks], [fmt_iso(points[i].created_at)[5:16] for i in ticks])
    plt.title(f"Account value and total PnL · {len(points)} points")
    plot.refresh()


def _rgb(colour: str) -> Any:
    return Color.parse(colour).rgb
