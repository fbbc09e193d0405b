"""Chart: candles of the selected instrument, by chart type and resolution, drawn line by line.

``chart_layout`` lays the picture out (no Textual); ``CandleChart`` shows it through the line API, a Strip
cached per line, and repaints only the lines that changed: a new tick moves the live candle, the last-price
line and its label, and the rest of the pane is not written to the terminal again. The trader's levels (entry,
liquidation, TP/SL, resting orders: ``levels``) are part of the picture, so they are redrawn when they or the
scale change, never written again per tick. The indicators the profile chose (``i``, the palette) are kept in step
with the candles by ``tui.feed.indicators.Tracker``: a tick values the live candle only, never the history again.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.app import ComposeResult
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from tui.api.models import Candle
from tui.feed.indicator_choice import IndicatorChoice
from tui.feed.indicators import MA_PERIODS, RSI_PERIOD, Tracker
from tui.feed.state import FeedState

from .chart_layout import Level, Line, Marker, Picture, Role, auto_slot, body_width, draw, message, zoomed
from .display import fmt_price
from .levels import chart_levels, fill_markers
from .line_strips import LineStrips
from .pane import FeedPane

__all__ = ["CHART_TYPES", "RESOLUTIONS", "CandleChart", "ChartPane"]

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
Y_AXIS = 12  # columns of price labels in plotext charts (the account screen's)
AXIS_GUESS = 12  # columns the price axis takes, for choosing a candle width before laying out
DEFAULT_TICK = Decimal("0.01")  # before the instruments are known


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
    """Indices to label on a plotext x axis: first and last, evenly between, never closer than ``spacing``."""
    if n <= 1:
        return [0] if n else []
    k = max(2, min(n, width // spacing + 1))
    return sorted({round(j * (n - 1) / (k - 1)) for j in range(k)})


class CandleChart(Widget, can_focus=True):
    """Lines of (text, role) runs; roles take their colours from ``set_styles``. It takes the focus (Tab, a
    click) so that the dashboard's pane keys reach the chart: z zooms it to the whole screen."""

    DEFAULT_CSS = """
    CandleChart {
        height: 1fr;
        background: $surface;
    }
    """

    def __init__(self, *, paint: Callable[[], None] | None = None, id: str | None = None) -> None:
        """``paint``, when given, is called as the plot is about to render at a size it was not drawn for (its
        first layout, a resize): it draws the picture for that size (``show(..., refresh=False)``), which this
        render then shows. Drawn on the Resize event instead, the picture came a frame or two late."""
        super().__init__(id=id)
        self.lines: tuple[Line, ...] = ()
        self._styles: dict[Role, Style] = {}
        self._strips: LineStrips[tuple[Line, int]] = LineStrips()
        self._paint = paint
        self._painted_for = Size(0, 0)

    def set_role_styles(self, styles: dict[Role, Style]) -> None:
        self._styles = styles
        self._strips.clear()
        self.refresh()

    def show(self, lines: tuple[Line, ...], *, refresh: bool = True) -> None:
        """Show ``lines``; only those that differ from the ones shown are repainted (none without ``refresh``:
        the render under way shows them)."""
        old, self.lines = self.lines, lines
        if not refresh:
            return
        if len(old) != len(lines):
            self.refresh()
            return
        for y, (was, now) in enumerate(zip(old, lines, strict=True)):
            if was != now:
                start, end = _changed_span(was, now)
                self.refresh(Region(start, y, end - start, 1))

    def text(self) -> list[str]:
        """The lines as plain text (what a test reads)."""
        return ["".join(text for text, _ in line) for line in self.lines]

    def render_lines(self, crop: Region) -> list[Strip]:
        if self._paint is not None and self.size != self._painted_for and self.size.area:
            self._painted_for = self.size
            self._paint()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        line = self.lines[y] if y < len(self.lines) else ()
        return self._strips.drawn((line, width), lambda: self._draw(line, width), self.size.height)

    def _draw(self, line: Line, width: int) -> Strip:
        base = self.rich_style
        segments = [Segment(text, base + self._styles[role]) if role in self._styles else Segment(text, base)
                    for text, role in line]  # fmt: skip
        return Strip(segments).adjust_cell_length(width, base)


def _cells(line: Line) -> list[tuple[str, Role]]:
    return [(ch, role) for text, role in line for ch in text]


def _changed_span(was: Line, now: Line) -> tuple[int, int]:
    """The columns from the first cell that changed to the last: only they are written to the terminal again
    (a new tick moves the live candle and the last price's label, at the right)."""
    old, new = _cells(was), _cells(now)
    if len(old) != len(new):
        return 0, max(len(old), len(new))
    changed = [x for x, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    return (changed[0], changed[-1] + 1) if changed else (0, 0)


class ChartPane(FeedPane):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"chart"})
    LEVEL_TOPICS: ClassVar[frozenset[str]] = frozenset({"orders", "positions", "fills", "account", "markets"})
    AGE_TOPIC: ClassVar[str | None] = "chart"
    PACE: ClassVar[int] = 5  # twice a second at the dashboard's 10 (see ``pace``)

    def __init__(self, state: FeedState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.slot: int | None = None  # columns a candle takes; None: chosen from the pane's width
        self._drawn: tuple[object, ...] | None = None
        self._chart: tuple[str, str, str] | None = None  # (instrument, type, resolution) of the candles shown
        self.picture: Picture | None = None
        self._marks: tuple[tuple[Level, ...], tuple[Marker, ...]] = ((), ())  # the levels and fills drawn
        self.indicators: tuple[str, ...] = ()  # chosen (``tui.feed.indicators.INDICATORS``)
        self.tracker = Tracker(())  # their values, kept in step with the candles as they arrive
        self.ma_periods: tuple[int, ...] = MA_PERIODS  # the profile's SMA and EMA periods, each its own colour
        self.rsi_period = RSI_PERIOD

    def compose(self) -> ComposeResult:
        yield CandleChart(paint=self._paint, id="chart-plot")

    def on_mount(self) -> None:
        super().on_mount()
        choice = getattr(getattr(self.app, "session", None), "indicators", None)  # the profile's, kept on disk
        if isinstance(choice, IndicatorChoice):
            self.set_indicators(choice)
        self.restyle()

    def set_indicators(self, choice: IndicatorChoice) -> None:
        """Draw the indicators ``choice`` holds at its periods (their values computed once over the candles held,
        then as they come)."""
        self.indicators = choice.chosen
        self.ma_periods, self.rsi_period = choice.ma_periods, choice.rsi_period
        self.tracker = Tracker(choice.studies())
        self.dirty = True
        if self.is_mounted:
            self.restyle()  # each period's line its colour

    def restyle(self) -> None:
        self._drawn = None
        v = self.app.theme_variables
        c = self.colours
        on = v.get("surface", "#000000")
        sell = v.get("primary", c.accent)  # red is for danger only: a sell's line is the theme's primary colour
        self.query_one(CandleChart).set_role_styles(
            {
                "up": Style.parse(c.up),
                "down": Style.parse(c.down),
                "axis": Style.parse(c.muted),
                "time": Style.parse(c.muted),
                "message": Style.parse(c.muted),
                "line": Style.parse(c.stale),
                "last-up": Style.parse(f"bold {on} on {c.up}"),
                "last-down": Style.parse(f"bold {on} on {c.down}"),
                "lv-buy": Style.parse(c.bid),
                "lv-sell": Style.parse(sell),
                "lv-entry": Style.parse(f"bold {v.get('foreground', 'white')}"),
                "lv-liq": Style.parse(f"bold {c.warning}"),
                "fill-buy": Style.parse(f"bold {c.bid}"),
                "fill-sell": Style.parse(f"bold {sell}"),
                **self._study_styles(),
            }
        )

    def _study_styles(self) -> dict[Role, Style]:
        """Each indicator's colour from the theme: the SMAs from fast to slow the accent, the secondary colour (of
        three) and the primary, each EMA the lighter shade of its SMA's; VWAP the foreground, RSI the accent, the
        volume profile muted."""
        v, c = self.app.theme_variables, self.colours
        names = ["accent", "secondary", "primary"]
        shades = {1: names[:1], 2: [names[0], names[2]], 3: names}[len(self.ma_periods)]
        styles: dict[Role, Style] = {}
        for period, shade in zip(self.ma_periods, shades, strict=True):
            colour = v.get(shade, c.accent)
            styles[f"ind-sma{period}"] = Style.parse(colour)
            styles[f"ind-ema{period}"] = Style.parse(v.get(f"{shade}-lighten-2", colour))
        return styles | {
            "ind-vwap": Style.parse(f"bold {v.get('foreground', 'white')}"),
            f"ind-rsi{self.rsi_period}": Style.parse(v.get("accent", c.accent)),
            "profile": Style.parse(c.muted),
        }

    def _paint(self) -> None:
        """The plot renders at a new size (``CandleChart``): the picture for it, shown by that render."""
        self._draw(refresh=False)

    def current_slot(self) -> int:
        count = len(self.state.market.candles)
        return self.slot or auto_slot(self.query_one(CandleChart).size.width - AXIS_GUESS, count)

    def zoom(self, step: int) -> str:
        """Wider candles (``step`` > 0: fewer shown) or thinner ones (more shown); says what it did."""
        self.slot = zoomed(self.current_slot(), step)
        self.dirty = True
        self.refresh_state()
        shown = self.picture.shown if self.picture is not None else 0
        return f"Candles {body_width(self.slot)} wide" + (f", {shown} shown" if shown else "")

    def feed_changed(self, topics: frozenset[str]) -> None:
        """New candles redraw the chart; account news only when it moves a line or adds a fill mark."""
        super().feed_changed(topics)
        if not self.dirty and topics & self.LEVEL_TOPICS and self._levels() != self._marks:
            self.dirty = True

    def _levels(self) -> tuple[tuple[Level, ...], tuple[Marker, ...]]:
        """The levels and fill marks of the selected instrument, as the state has them now."""
        market, account = self.state.market, self.state.account
        info = market.instruments.get(market.selected)
        ticker = market.tickers.get(market.selected)
        levels = chart_levels(
            market.selected,
            account.positions,
            account.open_orders,
            ticker.mark_price if ticker is not None else None,
            account.summary,
            tick=info.tick_size if info is not None else DEFAULT_TICK,
            lot=info.lot_size if info is not None else None,
        )
        return levels, fill_markers(market.selected, account.fills)

    def pace(self) -> int:
        """Twice a second while a chart shows (a candle moves slowly); at once when another chart is due."""
        market = self.state.market
        due = (market.selected, market.chart_type, market.resolution)
        return self.PACE if due == self._chart and not market.chart_loading else 1

    def refresh_state(self) -> None:
        self._draw(refresh=True)

    def _draw(self, *, refresh: bool) -> None:
        market = self.state.market
        chart = (market.selected, market.chart_type, market.resolution)
        named = f"{chart[0]} · {chart_type_label(chart[1])} · {resolution_label(chart[2])}"
        if market.chart_loading and self._chart not in (None, chart):
            self.show_titles(subtitle=f"loading {named}…")  # the old picture stays until the new one is in
            return
        info = market.instruments.get(market.selected)
        tick = info.tick_size if info is not None else DEFAULT_TICK
        if market.candles:
            self.show_titles(f"Chart {named}", f"close {fmt_price(market.candles[-1].close, tick)}")
        else:
            self.show_titles(f"Chart {named}", "loading…" if market.chart_loading else "no candles yet")
        plot = self.query_one(CandleChart)
        width, height = plot.size
        if width <= 0 or height <= 0:
            return  # not laid out yet: its first render draws it (``_paint``)
        slot = self.current_slot()
        candles: list[Candle] = market.candles[-width:]
        levels, markers = self._marks = self._levels()
        self.tracker.update(market.candles)  # a tick reads the live candle only
        studies = self.tracker.tail(len(candles))
        seen = tuple(tuple(values) for values in studies.values())
        key = (chart, width, height, slot, tick, market.chart_loading, tuple(candles), levels, markers, self.indicators,
               seen)  # fmt: skip
        if key == self._drawn:
            return
        self._drawn = key
        if not candles:
            self._chart = None
            self.picture = message(width, height, "loading…" if market.chart_loading else "no candles yet")
        else:
            self._chart = chart
            self.picture = draw(candles, width, height, slot=slot, tick=tick, resolution=market.resolution,
                                levels=levels, markers=markers, studies=studies,
                                profile="profile" in self.indicators)  # fmt: skip
        plot.show(self.picture.lines, refresh=refresh)
