"""The trader's levels in the chart's picture, without Textual: a level near the candles widens the scale to
take it in, one far off is said at the edge with an arrow instead of flattening the candles; every picture with
levels and fills still fills exactly the pane; fills mark their candle with ▲ (buy) or ▼ (sell)."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.api.models import Candle
from tui.ui.widgets.chart_layout import BUY_MARK, SELL_MARK, Level, Marker, draw

TICK = Decimal("0.1")
T0 = 1_700_000_040_000


def candles(n: int = 40) -> list[Candle]:
    """Prices between 98 and 107."""
    return [
        Candle(Decimal(100 + i % 5), Decimal(103 + i % 5), Decimal(98 + i % 5), Decimal(101 + i % 3), Decimal(1),
               T0 + i * 60_000)
        for i in range(n)
    ]  # fmt: skip


def texts(levels: list[Level], markers: list[Marker] = [], width: int = 60, height: int = 20) -> list[str]:  # noqa: B006
    pic = draw(candles(), width, height, slot=2, tick=TICK, resolution="1", levels=levels, markers=markers)
    return ["".join(t for t, _ in line) for line in pic.lines]


def test_a_level_near_the_candles_is_drawn_on_a_widened_scale() -> None:
    """TP at 108.5, 1.5 over the highest high (range 9: within a quarter of it): a labelled line, and the axis
    reaches it; the top row is the line, not an edge note."""
    lines = texts([Level(Decimal("108.5"), "TP", "lv-sell")])
    row = next(i for i, line in enumerate(lines) if "TP 108.5" in line)
    assert "╌" in lines[row] and "↑" not in "".join(lines)
    assert row == 0


def test_a_far_level_is_said_at_the_edge_and_the_scale_stays() -> None:
    """Liquidation at 230.0 and a stop at 20.0: said at the top (↑) and at the bottom of the plot (↓); the axis
    still spans the candles only (its top label under 110)."""
    lines = texts([Level(Decimal("230"), "liq", "lv-liq"), Level(Decimal("20"), "stop buy 0.5", "lv-buy")])
    assert lines[0].startswith("↑ liq 230.0")
    assert any(line.startswith("↓ stop buy 0.5 20.0") for line in lines)
    labels = [Decimal(line.split("┤ ")[1]) for line in lines if "┤ " in line]
    assert max(labels) < 110 and min(labels) > 90


def test_two_levels_on_one_row_are_both_labelled_on_rows_next_to_it() -> None:
    """Two lines on one row: the higher named on it, the other on the free row under it (``chart_labels``)."""
    lines = texts([Level(Decimal("101"), "entry long 0.5", "lv-entry"), Level(Decimal("101.02"), "buy 1", "lv-buy")])
    row = next(i for i, line in enumerate(lines) if "buy 1" in line)
    assert "entry long 0.5" in lines[row + 1]


def test_fills_mark_their_candle_buy_up_sell_down() -> None:
    lines = texts(
        [], [Marker(T0 + 38 * 60_000 + 5_000, Decimal("101"), True), Marker(T0 + 39 * 60_000, Decimal("104"), False)]
    )
    assert lines[-1].startswith("┄ last  ▲▼ fills")  # the legend says what the marks are; the candles have one each
    assert sum(line.count(BUY_MARK) for line in lines[:-1]) == 1
    assert sum(line.count(SELL_MARK) for line in lines[:-1]) == 1
    old = texts([], [Marker(T0 - 3_600_000, Decimal("101"), True)])  # before the first candle: not drawn
    assert not any(BUY_MARK in line for line in old[:-1])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.decimals(min_value=1, max_value=10_000, places=1), max_size=6),
    st.integers(min_value=12, max_value=120),
    st.integers(min_value=4, max_value=40),
)
def test_any_levels_at_any_size_fill_exactly_the_pane(prices: list[Decimal], width: int, height: int) -> None:
    levels = [Level(p, "TP", "lv-sell") for p in prices]
    lines = texts(levels, [Marker(T0 + 60_000 * 39, Decimal("102"), True)], width=width, height=height)
    assert len(lines) == height and all(len(line) == width for line in lines)


def test_a_narrow_chart_keeps_what_the_line_is_and_its_price() -> None:
    """At 40 columns (an 80x24 terminal's chart) the full label does not fit: its first word and the price do."""
    lines = texts(
        [Level(Decimal("101"), "entry long 0.5000", "lv-entry"), Level(Decimal("230"), "liq", "lv-liq")], width=24
    )
    assert any(line.startswith(" entry 101.0 ") for line in lines), lines
    assert lines[0].startswith("↑ liq 230.0")
