"""Chart: candles of the selected instrument through textual-plotext, by chart type and resolution."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.color import Color
from textual_plotext import PlotextPlot

from tui.api.models import Candle

from .pane import FeedPane

__all__ = ["CHART_TYPES", "RESOLUTIONS", "ChartPane"]

# (wire value, label)
RESOLUTIONS = (
    ("1", "1m"),
    ("5", "5m"),
    ("15", "15m"),
    ("30", "30m"),
    ("60", "1h"),
    ("240", "4h"),
    ("1D", "1D"),
    ("1W", "1W"),
)
CHART_TYPES = (("ltp", "last trade"), ("mark", "mark"), ("index", "index"))
Y_AXIS = 12  # columns plotext takes for the price labels


def resolution_label(value: str) -> str:
    return dict(RESOLUTIONS).get(value, value)


def chart_type_label(value: str) -> str:
    return dict(CHART_TYPES).get(value, value)


def next_resolution(value: str, step: int) -> str:
    keys = [r for r, _ in RESOLUTIONS]
    i = keys.index(value) if value in keys else 0
    return keys[(i + step) % len(keys)]


def next_chart_type(value: str) -> str:
    keys = [t for t, _ in CHART_TYPES]
    i = keys.index(value) if value in keys else 0
    return keys[(i + 1) % len(keys)]


def tick_positions(n: int, width: int, spacing: int = 10) -> list[int]:
    """Candle indices to label: first and last, evenly between, never closer than ``spacing`` columns.

    Labels that would touch are dropped by plotext in an order that varies from run to run, so none may.
    """
    if n <= 1:
        return [0] if n else []
    k = max(2, min(n, width // spacing + 1))
    return sorted({round(j * (n - 1) / (k - 1)) for j in range(k)})


def _time_label(ms: int, resolution: str) -> str:
    t = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return t.strftime("%m-%d" if resolution in ("1D", "1W") else "%H:%M")


class ChartPane(FeedPane):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"chart"})
    AGE_TOPIC: ClassVar[str | None] = "chart"

    DEFAULT_CSS = """
    ChartPane > PlotextPlot {
        height: 1fr;
        background: $surface;
    }
    """

    def __init__(self, state: Any, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self._drawn: tuple[Any, ...] | None = None

    def compose(self) -> ComposeResult:
        yield PlotextPlot(id="chart-plot")

    def restyle(self) -> None:
        self._drawn = None

    def on_resize(self) -> None:
        self._drawn = None
        self.dirty = True

    def refresh_state(self) -> None:
        market = self.state.market
        self.show_titles(
            f"Chart {market.selected} · {chart_type_label(market.chart_type)} · {resolution_label(market.resolution)}"
        )
        plot = self.query_one(PlotextPlot)
        width = max(10, plot.size.width - Y_AXIS)
        candles: list[Candle] = market.candles[-width:]
        key = (market.selected, market.chart_type, market.resolution, width, tuple(candles))
        if key == self._drawn:
            return
        self._drawn = key
        self.show_titles(subtitle=f"close {candles[-1].close}" if candles else "no candles yet")
        self._draw(plot, candles, market.resolution)

    def _draw(self, plot: PlotextPlot, candles: list[Candle], resolution: str) -> None:
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        if candles:
            c = self.colours
            xs = list(range(len(candles)))
            data = {
                "Open": [float(k.open) for k in candles],
                "Close": [float(k.close) for k in candles],
                "High": [float(k.high) for k in candles],
                "Low": [float(k.low) for k in candles],
            }
            # numeric x positions: plotext would parse strings as dates in its own format
            plt.candlestick(xs, data, colors=[Color.parse(c.up).rgb, Color.parse(c.down).rgb])  # type: ignore[arg-type]
            ticks = tick_positions(len(candles), plot.size.width - Y_AXIS)
            plt.xticks([float(i) for i in ticks], [_time_label(candles[i].time, resolution) for i in ticks])
        plot.refresh()
