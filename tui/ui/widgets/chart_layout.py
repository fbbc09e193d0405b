"""The chart's picture without Textual: which candles fit, the price scale and its labels, the time labels,
the volume strip, the trader's levels (entry, liquidation, TP/SL, resting orders) and fill markers, and every
cell of the pane as runs of (text, role). The widget maps roles to theme colours.

Up bodies are hollow (box lines), down bodies filled (█), so the monochrome theme reads without colour; so do
levels (each is labelled) and fills (▲ a buy, ▼ a sell).

A level a little outside the candles' range widens the price axis to take it in (up to ``REACH`` of the range
each way); one farther off is said at the edge ("↑ TP 105,000.0") instead of squeezing the candles flat. The lines'
names never cover each other (``chart_labels``); the indicators are drawn by ``chart_studies``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from decimal import ROUND_CEILING, Decimal

import msgspec

from tui.api.models import Candle

from .chart_grid import Grid, Level, Line, Role, Run
from .chart_labels import Label, legend, level_labels
from .chart_studies import draw_lines, draw_profile, draw_rsi, profile_width, study_mark, study_role
from .display import fmt_price

__all__ = [
    "SLOTS",
    "Level",
    "Line",
    "Marker",
    "Picture",
    "Role",
    "Run",
    "auto_slot",
    "body_width",
    "draw",
    "message",
    "price_labels",
    "time_label",
    "zoomed",
]

SLOTS = (1, 2, 4, 6, 8)  # columns a candle takes: its body (1, 1, 3, 5, 7) and a gap (none at 1)
AUTO_FEWEST = 30  # with no zoom chosen: the widest candles that still show this many
STEP_MS = {"1": 60_000, "5": 300_000, "15": 900_000, "30": 1_800_000, "60": 3_600_000, "240": 14_400_000}
STEP_MS |= {"1D": 86_400_000, "1W": 7 * 86_400_000}
# round spans of time between two time labels, in minutes: a label falls on a whole multiple of one
LABEL_MINUTES = (1, 2, 5, 10, 15, 30, 60, 120, 180, 240, 360, 720, 1440, 2880, 10080, 20160, 40320, 80640, 161280)
VOLUME_BLOCKS = " ▁▂▃▄▅▆▇█"
REACH = Decimal("0.25")  # a level this far (a fraction of the candles' range) beyond it widens the axis
LEVEL_LINE = "╌"
BUY_MARK, SELL_MARK = "▲", "▼"


class Marker(msgspec.Struct, frozen=True):
    """One of the trader's fills: a mark on the candle it happened in, at its price."""

    time: int  # ms
    price: Decimal
    buy: bool


class Picture(msgspec.Struct, frozen=True):
    lines: tuple[Line, ...]
    shown: int  # candles drawn
    body: int  # a candle's body width in columns
    labels: tuple[Label, ...] = ()  # where the lines' names, the RSI's and the legend went (none overlap)


def body_width(slot: int) -> int:
    return 1 if slot <= 2 else slot - 1


def auto_slot(plot_width: int, count: int) -> int:
    """The widest slot that still shows ``AUTO_FEWEST`` of ``count`` candles (the narrowest when none does)."""
    fitting = [s for s in SLOTS if plot_width // s >= min(AUTO_FEWEST, max(1, count))]
    return fitting[-1] if fitting else SLOTS[0]


def zoomed(slot: int, step: int) -> int:
    """The next slot wider (``step`` > 0: fewer, wider candles) or narrower, held at the ends."""
    i = SLOTS.index(slot) if slot in SLOTS else 0
    return SLOTS[max(0, min(len(SLOTS) - 1, i + step))]


def time_label(ms: int, resolution: str) -> str:
    t = datetime.fromtimestamp(ms / 1000, tz=UTC)
    if resolution == "1W":
        return t.strftime("%b %d")
    if resolution == "1D" or (t.hour, t.minute) == (0, 0):
        return t.strftime("%m-%d")  # a new day in an intraday chart shows its date
    return t.strftime("%H:%M")


def _nice_step(span: Decimal, count: int, tick: Decimal) -> Decimal:
    """A round step (1, 2, 2.5 or 5 times a power of ten, and a whole number of ticks) giving ~``count`` labels."""
    raw = float(span) / max(1, count)
    if raw <= 0:
        return tick
    power = 10.0 ** math.floor(math.log10(raw))
    nice = next((m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw), 10 * power)
    step = Decimal(repr(nice))
    return max(tick, (step / tick).to_integral_value(ROUND_CEILING) * tick)


def price_labels(low: Decimal, high: Decimal, rows: int, tick: Decimal) -> list[Decimal]:
    """Round prices between ``low`` and ``high``, about one every two to four rows."""
    step = _nice_step(high - low, max(1, rows // 2), tick)
    first = (low / step).to_integral_value(ROUND_CEILING) * step
    out: list[Decimal] = []
    while first <= high and len(out) < rows:
        out.append(first)
        first += step
    return out


def message(width: int, height: int, text: str) -> Picture:
    grid = Grid(width, height)
    grid.put(max(0, (width - len(text)) // 2), height // 2, text[:width], "message")
    return Picture(grid.lines(), 0, 0)


def draw(
    candles: Sequence[Candle],
    width: int,
    height: int,
    *,
    slot: int,
    tick: Decimal,
    resolution: str,
    levels: Sequence[Level] = (),
    markers: Sequence[Marker] = (),
    studies: Mapping[str, Sequence[Decimal | None]] | None = None,
    profile: bool = False,
) -> Picture:
    """The pane's ``width`` x ``height`` cells: candles at ``slot`` columns each, the newest at the right, a price
    axis on the right with the last price marked, time labels below, a volume strip when there is volume, the
    ``levels`` as labelled lines (or at the edge when far off) and the ``markers`` on their candles; the
    ``studies`` (values at each of ``candles``: SMA, EMA, VWAP over the candles, RSI in a pane of its own), the
    volume ``profile`` beside the axis, and a legend on the last line when there is anything to explain."""
    if not candles:
        return message(width, height, "no candles yet")
    if height < 4 or width < 12:
        return message(width, height, "too small")
    studies = studies or {}
    over = {name: values for name, values in studies.items() if not name.startswith("RSI")}
    rsi = next(((name, values) for name, values in studies.items() if name.startswith("RSI")), None)
    keyed = height >= 8 and bool(levels or markers or studies or profile)
    rsi_rows = (6 if height >= 30 else 4 if height >= 12 else 0) if rsi else 0
    volume_rows = (3 if height >= 20 else 2 if height >= 12 else 0) if any(c.volume > 0 for c in candles) else 0
    if rsi_rows and height < 20:
        volume_rows = 0
    body_height = height - keyed
    rows = body_height - 1 - volume_rows - rsi_rows
    last = candles[-1].close
    wide = [v for values in over.values() for v in values if v is not None]
    top, bottom = max(k.high for k in candles), min(k.low for k in candles)
    reach = (top - bottom) * REACH
    near = [p for p in (*(lv.price for lv in levels), *wide) if bottom - reach <= p <= top + reach]
    axis = 3 + max(len(fmt_price(c, tick)) for c in (top, bottom, last, *near))
    plot = width - axis
    bars = profile_width(plot) if profile and plot >= 20 else 0
    if plot - bars < 2:
        return message(width, height, "too small")
    shown = list(candles[-max(1, (plot - bars) // slot) :])
    high, low = max(c.high for c in shown), min(c.low for c in shown)
    if high == low:  # a flat series: a band of ticks around it
        pad = tick * max(1, rows // 2)
        high, low = high + pad, low - pad
    reach = (high - low) * REACH
    tails = [v for values in over.values() for v in values[-len(shown) :] if v is not None]
    near = [p for p in (*(lv.price for lv in levels), *tails) if low - reach <= p <= high + reach]
    high, low = max([high, *near]), min([low, *near])
    span = float(high - low)

    def row(price: Decimal) -> int:
        return round(float(high - price) / span * (rows - 1))

    grid = Grid(width, height)
    last_row = row(last)
    up_last = last >= candles[-1].open
    grid.put(0, last_row, "┄" * plot, "line")
    inside = [lv for lv in levels if low <= lv.price <= high]
    for lv in inside:
        grid.put(0, row(lv.price), LEVEL_LINE * plot, lv.role)
    body = body_width(slot)
    left = plot - bars - len(shown) * slot  # the newest candle next to the axis (or the volume profile)
    if bars:
        draw_profile(grid, shown, plot - bars, bars, high, low, rows)
    for i, c in enumerate(shown):
        _candle(grid, left + i * slot, body, c, row)
    columns = [left + i * slot + body // 2 for i in range(len(shown))]
    draw_lines(grid, over, columns, row, rows)
    _markers(grid, shown, left, slot, body, markers, row, rows, STEP_MS.get(resolution, 60_000))
    labels = level_labels(grid, inside, levels, high, low, row, rows, plot, tick, fmt_price)
    _axis(grid, plot, rows, last_row, [(row(p), fmt_price(p, tick)) for p in price_labels(low, high, rows, tick)])
    grid.put(plot + 2, last_row, fmt_price(last, tick).ljust(axis - 3), "last-up" if up_last else "last-down")
    _time_labels(grid, shown, left, slot, body, body_height - 1, plot - bars, resolution)
    if volume_rows:
        _volume(grid, shown, left, slot, body, rows, volume_rows)
    if rsi is not None and rsi_rows:
        labels.append(draw_rsi(grid, rsi[0], rsi[1], columns, rows + volume_rows, rsi_rows, plot, plot))
    if keyed:
        said = [(study_mark(n), n, study_role(n), _last(v, tick, n)) for n, v in studies.items()]
        said += [("█", "vol profile", "profile", "")] if bars else []
        labels.append(legend(grid, height - 1, width, said, levels, bool(markers)))
    return Picture(grid.lines(), len(shown), body, tuple(labels))


def _last(values: Sequence[Decimal | None], tick: Decimal, name: str) -> str:
    v = values[-1] if values else None
    if v is None:
        return "–"
    return f"{v:.1f}" if name.startswith("RSI") else fmt_price(v, tick)


def _candle(grid: Grid, x: int, body: int, c: Candle, to_row: Callable[[Decimal], int]) -> None:
    up = c.close >= c.open
    role = "up" if up else "down"
    top, bottom = to_row(max(c.open, c.close)), to_row(min(c.open, c.close))
    wick_top, wick_bottom = to_row(c.high), to_row(c.low)
    mid = x + body // 2
    for y in range(wick_top, wick_bottom + 1):
        grid.put(mid, y, "│", role)
    if not up:
        for y in range(top, bottom + 1):
            grid.put(x, y, "█" * body, role)
        return
    if body == 1:
        for y in range(top, bottom + 1):
            grid.put(x, y, "┃", role)
        return
    inner = body - 2
    above, below = wick_top < top, wick_bottom > bottom

    def edge(left: str, right: str, join: str) -> str:
        fill = "─" * inner
        return left + fill[: inner // 2] + join + fill[inner // 2 + 1 :] + right

    if top == bottom:
        grid.put(x, top, edge("├", "┤", "┼" if above and below else "┴" if above else "┬" if below else "─"), role)
        return
    grid.put(x, top, edge("┌", "┐", "┴" if above else "─"), role)
    for y in range(top + 1, bottom):
        grid.put(x, y, "│" + " " * inner + "│", role)
    grid.put(x, bottom, edge("└", "┘", "┬" if below else "─"), role)


def _axis(grid: Grid, x: int, rows: int, last_row: int, labels: list[tuple[int, str]]) -> None:
    for y in range(rows):
        grid.put(x, y, "│", "axis")
    taken = {last_row - 1, last_row, last_row + 1}
    for y, text in labels:
        if y in taken or not 0 <= y < rows:
            continue
        taken.add(y)
        grid.put(x, y, "┤ " + text, "axis")
    grid.put(x, last_row, "┤", "axis")


def _time_labels(
    grid: Grid, shown: Sequence[Candle], left: int, slot: int, body: int, y: int, plot: int, res: str
) -> None:
    step = STEP_MS.get(res, 60_000)
    need = -(-(len(time_label(shown[-1].time, res)) + 2) // slot) * step  # the span a label and a gap take
    every = next((m * 60_000 // step for m in LABEL_MINUTES if m * 60_000 >= need and m * 60_000 % step == 0), 0)
    end = -1  # the column after the last label put
    for i, c in enumerate(shown):
        if not every or (c.time // step) % every:
            continue
        text = time_label(c.time, res)
        x = left + i * slot + body // 2 - len(text) // 2
        if x <= end or x < 0 or x + len(text) > plot:
            continue
        grid.put(x, y, text, "time")
        end = x + len(text)


def _volume(grid: Grid, shown: Sequence[Candle], left: int, slot: int, body: int, rows: int, strip: int) -> None:
    most = max(c.volume for c in shown)
    if most <= 0:
        return
    for i, c in enumerate(shown):
        eighths = round(float(c.volume / most) * strip * 8)
        role = "up" if c.close >= c.open else "down"
        for r in range(strip):
            part = max(0, min(8, eighths - r * 8))
            if part:
                grid.put(left + i * slot, rows + strip - 1 - r, VOLUME_BLOCKS[part] * body, role)


def _markers(
    grid: Grid,
    shown: Sequence[Candle],
    left: int,
    slot: int,
    body: int,
    markers: Sequence[Marker],
    to_row: Callable[[Decimal], int],
    rows: int,
    step: int,
) -> None:
    """Each fill on the candle whose interval holds it, at its price (▲ a buy, ▼ a sell); older ones are off."""
    if not shown:
        return
    first = shown[0].time
    for m in markers:
        if m.time < first or m.time >= shown[-1].time + step:
            continue
        i = next((k for k in range(len(shown) - 1, -1, -1) if shown[k].time <= m.time), 0)
        y = max(0, min(rows - 1, to_row(m.price)))
        grid.put(left + i * slot + body // 2, y, BUY_MARK if m.buy else SELL_MARK, "fill-buy" if m.buy else "fill-sell")
