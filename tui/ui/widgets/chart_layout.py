"""The chart's picture without Textual: which candles fit, the price scale and its labels, the time labels,
the volume strip, the trader's levels (entry, liquidation, TP/SL, resting orders) and fill markers, and every
cell of the pane as runs of (text, role). The widget maps roles to theme colours.

Up bodies are hollow (box lines), down bodies filled (█), so the monochrome theme reads without colour; so do
levels (each is labelled) and fills (▲ a buy, ▼ a sell).

A level a little outside the candles' range widens the price axis to take it in (up to ``REACH`` of the range
each way); one farther off is said at the edge ("↑ TP 105,000.0") instead of squeezing the candles flat.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from decimal import ROUND_CEILING, Decimal

import msgspec

from tui.api.models import Candle

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

Role = str  # "up" | "down" | "axis" | "last-up" | "last-down" | "line" | "time" | "message" | ""
Run = tuple[str, Role]
Line = tuple[Run, ...]

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


class Level(msgspec.Struct, frozen=True):
    """A price the trader has a stake at: drawn as a labelled line across the plot."""

    price: Decimal
    label: str  # what it is, shown before the price: "entry long", "liq", "TP", "sell 0.50"
    role: Role


class Marker(msgspec.Struct, frozen=True):
    """One of the trader's fills: a mark on the candle it happened in, at its price."""

    time: int  # ms
    price: Decimal
    buy: bool


class Picture(msgspec.Struct, frozen=True):
    lines: tuple[Line, ...]
    shown: int  # candles drawn
    body: int  # a candle's body width in columns


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


class _Grid:
    """Characters and roles, cell by cell, turned into runs at the end."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.chars = [[" "] * width for _ in range(height)]
        self.roles: list[list[Role]] = [[""] * width for _ in range(height)]

    def put(self, x: int, y: int, text: str, role: Role) -> None:
        for i, ch in enumerate(text):
            if 0 <= x + i < self.width and 0 <= y < len(self.chars):
                self.chars[y][x + i] = ch
                self.roles[y][x + i] = role

    def lines(self) -> tuple[Line, ...]:
        out = []
        for chars, roles in zip(self.chars, self.roles, strict=True):
            runs: list[Run] = []
            for ch, role in zip(chars, roles, strict=True):
                # a space shows no colour: it joins the run before it (fewer colour changes to write)
                if runs and (runs[-1][1] == role or (ch == " " and not runs[-1][1].startswith("last"))):
                    runs[-1] = (runs[-1][0] + ch, runs[-1][1])
                else:
                    runs.append((ch, role))
            out.append(tuple(runs))
        return tuple(out)


def message(width: int, height: int, text: str) -> Picture:
    grid = _Grid(width, height)
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
) -> Picture:
    """The pane's ``width`` x ``height`` cells: candles at ``slot`` columns each, the newest at the right, a price
    axis on the right with the last price marked, time labels below, a volume strip when there is volume, the
    ``levels`` as labelled lines (or at the edge when far off) and the ``markers`` on their candles."""
    if not candles:
        return message(width, height, "no candles yet")
    if height < 4 or width < 12:
        return message(width, height, "too small")
    volume_rows = (3 if height >= 20 else 2 if height >= 12 else 0) if any(c.volume > 0 for c in candles) else 0
    rows = height - 1 - volume_rows
    last = candles[-1].close
    top, bottom = max(k.high for k in candles), min(k.low for k in candles)
    reach = (top - bottom) * REACH
    near = [lv.price for lv in levels if bottom - reach <= lv.price <= top + reach]
    axis = 3 + max(len(fmt_price(c, tick)) for c in (top, bottom, last, *near))
    plot = width - axis
    if plot < 2:
        return message(width, height, "too small")
    shown = list(candles[-max(1, plot // slot) :])
    high, low = max(c.high for c in shown), min(c.low for c in shown)
    if high == low:  # a flat series: a band of ticks around it
        pad = tick * max(1, rows // 2)
        high, low = high + pad, low - pad
    reach = (high - low) * REACH
    near = [lv.price for lv in levels if low - reach <= lv.price <= high + reach]
    high, low = max([high, *near]), min([low, *near])
    span = float(high - low)

    def row(price: Decimal) -> int:
        return round(float(high - price) / span * (rows - 1))

    grid = _Grid(width, height)
    last_row = row(last)
    up_last = last >= candles[-1].open
    grid.put(0, last_row, "┄" * plot, "line")
    inside = [lv for lv in levels if low <= lv.price <= high]
    for lv in inside:
        grid.put(0, row(lv.price), LEVEL_LINE * plot, lv.role)
    body = body_width(slot)
    left = plot - len(shown) * slot  # the newest candle next to the axis
    for i, c in enumerate(shown):
        _candle(grid, left + i * slot, body, c, row)
    _markers(grid, shown, left, slot, body, markers, row, rows, STEP_MS.get(resolution, 60_000))
    _level_labels(grid, inside, levels, high, low, row, rows, plot, tick)
    _axis(grid, plot, rows, last_row, [(row(p), fmt_price(p, tick)) for p in price_labels(low, high, rows, tick)])
    grid.put(plot + 2, last_row, fmt_price(last, tick).ljust(axis - 3), "last-up" if up_last else "last-down")
    _time_labels(grid, shown, left, slot, body, height - 1, plot, resolution)
    if volume_rows:
        _volume(grid, shown, left, slot, body, rows, volume_rows)
    return Picture(grid.lines(), len(shown), body)


def _candle(grid: _Grid, x: int, body: int, c: Candle, to_row: Callable[[Decimal], int]) -> None:
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


def _axis(grid: _Grid, x: int, rows: int, last_row: int, labels: list[tuple[int, str]]) -> None:
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
    grid: _Grid, shown: Sequence[Candle], left: int, slot: int, body: int, y: int, plot: int, res: str
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


def _volume(grid: _Grid, shown: Sequence[Candle], left: int, slot: int, body: int, rows: int, strip: int) -> None:
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
    grid: _Grid,
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


def _level_labels(
    grid: _Grid,
    inside: Sequence[Level],
    levels: Sequence[Level],
    high: Decimal,
    low: Decimal,
    to_row: Callable[[Decimal], int],
    rows: int,
    plot: int,
    tick: Decimal,
) -> None:
    """Each line's label at the plot's left, side by side when two share a row; the levels off the scale are
    said at the top (above it, highest first) and the bottom (below it, lowest last)."""
    ends: dict[int, int] = {}  # row -> the column after the last label put on it

    def say(y: int, lv: Level, arrow: str) -> None:
        """The longest of the label and price, its first word and price, its first word, that fits the row."""
        x, price, word = ends.get(y, 0), fmt_price(lv.price, tick), lv.label.split(" ")[0]
        pad = "" if arrow else " "
        for text in (
            f"{arrow}{pad}{lv.label} {price}{pad}",
            f"{arrow}{pad}{word} {price}{pad}",
            f"{arrow}{pad}{word}{pad}",
        ):
            if x + len(text) <= plot:
                grid.put(x, y, text, lv.role)
                ends[y] = x + len(text) + 1
                return

    for lv in sorted(inside, key=lambda v: v.price, reverse=True):
        say(to_row(lv.price), lv, "")
    for lv in sorted((v for v in levels if v.price > high), key=lambda v: v.price):
        say(0, lv, "↑ ")
    for lv in sorted((v for v in levels if v.price < low), key=lambda v: v.price, reverse=True):
        say(rows - 1, lv, "↓ ")
