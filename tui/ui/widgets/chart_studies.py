"""The chart's indicators drawn, without Textual: SMA, EMA and VWAP as marks on each candle's column over the
candles, each in its own colour and mark (so the monochrome theme reads them too), the volume profile as bars
between the candles and the price axis, RSI in a pane of its own under the candles with its 30 and 70 guides."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal

from tui.api.models import Candle
from tui.feed.indicators import volume_profile

from .chart_grid import Grid, Role

__all__ = ["MARKS", "draw_lines", "draw_profile", "draw_rsi", "profile_width", "study_mark", "study_role"]

MARKS = {"SMA": "•", "EMA": "◦", "VWAP": "+", "RSI": "•"}
PROFILE_BAR = "█"
RSI_GUIDES = (70, 30)
Values = Sequence[Decimal | None]


def study_role(name: str) -> Role:
    """The colour a study takes: ``ind-`` and its name in lower case ("ind-sma20")."""
    return f"ind-{name.lower()}"


def study_mark(name: str) -> str:
    return next((mark for prefix, mark in MARKS.items() if name.startswith(prefix)), "•")


def profile_width(plot: int) -> int:
    """Columns the volume profile takes beside the axis: an eighth of the plot, 3 to 12."""
    return max(3, min(12, plot // 8))


def draw_lines(
    grid: Grid,
    studies: dict[str, Values],
    columns: Sequence[int],
    to_row: Callable[[Decimal], int],
    rows: int,
) -> None:
    """Each study's value at each candle (``columns``: the candles' middle columns) as its mark."""
    for name, values in studies.items():
        role, mark = study_role(name), study_mark(name)
        for x, v in zip(columns, values[-len(columns) :] if columns else [], strict=False):
            if v is not None and 0 <= (y := to_row(v)) < rows:
                grid.put(x, y, mark, role)


def draw_profile(
    grid: Grid, shown: Sequence[Candle], x: int, width: int, high: Decimal, low: Decimal, rows: int
) -> None:
    """The volume of the candles shown by price, a bar per row growing from the axis leftwards."""
    half = (high - low) / (2 * max(1, rows - 1))  # a band per row, centred on the row's price
    bands = volume_profile(shown, low - half, high + half, rows)
    most = max(bands, default=Decimal(0))
    if most <= 0:
        return
    for y, v in enumerate(bands):
        n = min(width, max(1 if v > 0 else 0, round(float(v / most) * width)))
        if n:
            grid.put(x + width - n, y, PROFILE_BAR * n, "profile")


def draw_rsi(
    grid: Grid,
    name: str,
    values: Values,
    columns: Sequence[int],
    top: int,
    height: int,
    plot: int,
    axis_x: int,
) -> tuple[int, int, str]:
    """RSI in rows ``top`` to ``top + height``: the guides at 70 and 30 across the plot and on the axis, the value
    at each candle, the last value on the axis, the study's name at the pane's top left; where the name went."""

    def row(v: float) -> int:
        return top + round((100 - v) / 100 * (height - 1))

    for y in range(top, top + height):
        grid.put(axis_x, y, "│", "axis")
    last = next((v for v in reversed(values) if v is not None), None)
    last_row = row(float(last)) if last is not None else -1
    for guide in RSI_GUIDES:
        grid.put(0, row(guide), "┄" * plot, "axis")
        if row(guide) != last_row:
            grid.put(axis_x, row(guide), f"┤ {guide}", "axis")
    role = study_role(name)
    for x, v in zip(columns, values[-len(columns) :] if columns else [], strict=False):
        if v is not None:
            grid.put(x, row(float(v)), study_mark(name), role)
    if last is not None:
        grid.put(axis_x, last_row, f"┤ {last:.1f}", role)
    text = f" {name} {last:.1f} " if last is not None else f" {name} "
    grid.put(0, top, text, role)
    return top, 0, text
