"""The chart's picture, without Textual: any size, any series, draws exactly the pane's cells; the price axis
marks the last close; up bodies are hollow and down ones filled; time labels never touch."""

from __future__ import annotations

import itertools
import re
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.api.models import Candle
from tui.ui.widgets.chart_layout import SLOTS, VOLUME_BLOCKS, auto_slot, draw, price_labels, time_label, zoomed

TICK = Decimal("0.1")
T0 = 1_700_000_040_000  # a whole minute


def candle(i: int, o: str, h: str, low: str, c: str, volume: str = "1", step: int = 60_000) -> Candle:
    return Candle(Decimal(o), Decimal(h), Decimal(low), Decimal(c), Decimal(volume), T0 + i * step)


def texts(candles: list[Candle], width: int, height: int, slot: int = 2, res: str = "1") -> list[str]:
    pic = draw(candles, width, height, slot=slot, tick=TICK, resolution=res)
    return ["".join(t for t, _ in line) for line in pic.lines]


def roles(candles: list[Candle], width: int, height: int, slot: int = 2) -> list[list[tuple[str, str]]]:
    return [list(line) for line in draw(candles, width, height, slot=slot, tick=TICK, resolution="1").lines]


def walk(n: int) -> list[Candle]:
    out, price = [], Decimal(100)
    for i in range(n):
        close = price + Decimal((i * 7) % 5 - 2)
        hi, lo = max(price, close) + 1, min(price, close) - 1
        out.append(candle(i, str(price), str(hi), str(lo), str(close), str(1 + i % 4)))
        price = close
    return out


prices = st.decimals(min_value=Decimal("0.1"), max_value=Decimal(200_000), places=1)


@st.composite
def series(draw_: st.DrawFn) -> list[Candle]:
    out = []
    for i in range(draw_(st.integers(0, 40))):
        a, b, c, d = sorted(draw_(st.lists(prices, min_size=4, max_size=4)))
        o, cl = (b, c) if draw_(st.booleans()) else (c, b)
        out.append(candle(i, str(o), str(d), str(a), str(cl), str(draw_(st.integers(0, 50)))))
    return out


@settings(max_examples=150, deadline=None)
@given(series(), st.integers(0, 90), st.integers(0, 40), st.sampled_from(SLOTS))
def test_any_series_at_any_size_fills_exactly_the_pane(
    candles: list[Candle], width: int, height: int, slot: int
) -> None:
    lines = texts(candles, width, height, slot)
    assert len(lines) == height
    assert all(len(line) == width for line in lines)


def test_no_candles_says_so() -> None:
    assert any("no candles yet" in line for line in texts([], 40, 10))


def test_too_small_says_so_instead_of_garbage() -> None:
    assert texts(walk(5), 10, 10) == [" " * 10] * 5 + ["too small "] + [" " * 10] * 4


def test_one_candle_and_its_last_price() -> None:
    lines = texts([candle(0, "100.0", "103.0", "99.0", "102.0")], 40, 12)
    assert sum("102.0" in line for line in lines) == 1  # the last price, on its row
    assert any("┌" in line for line in lines) is False  # one column wide: no box
    assert any("┃" in line for line in lines)  # an up body, one column wide


def test_flat_series_draws_a_line_in_the_middle() -> None:
    flat = [candle(i, "50.0", "50.0", "50.0", "50.0", "0") for i in range(10)]
    lines = texts(flat, 40, 12)
    marked = [y for y, line in enumerate(lines) if "50.0" in line]
    assert len(marked) == 1 and 3 <= marked[0] <= 8
    assert "┃" in lines[marked[0]]  # the bodies sit on the last price's row


def test_the_marked_price_is_the_last_close_and_sits_on_its_candle_row() -> None:
    candles = walk(30)
    pic = roles(candles, 60, 20)
    last_rows = [y for y, line in enumerate(pic) if any(r.startswith("last-") for _, r in line)]
    assert len(last_rows) == 1
    label = next(t for t, r in pic[last_rows[0]] if r.startswith("last-")).strip()
    assert label == f"{candles[-1].close:,.1f}"
    # the labelled ticks (the last price's row has its tick alone: its label is the marked one)
    axis = [t.strip() for line in pic for t, r in line if r == "axis" and "┤ " in t and t.strip() != "┤"]
    values = [Decimal(a.replace("┤", "").replace(",", "")) for a in axis]
    step = values[0] - values[1]
    assert len(values) >= 3 and step in (Decimal("0.5"), 1, 2) and all(v % step == 0 for v in values)  # round


def test_up_bodies_hollow_down_bodies_filled() -> None:
    up = texts([candle(0, "100.0", "110.0", "90.0", "108.0")], 30, 20, slot=4)
    down = texts([candle(0, "108.0", "110.0", "90.0", "100.0")], 30, 20, slot=4)
    assert any("┌┴┐" in line for line in up) and any("└┬┘" in line for line in up)
    assert not any("█" in line for line in up[:-4])  # bodies only: the volume strip is below
    assert any("███" in line for line in down) and not any("┌" in line for line in down)


def test_up_and_down_take_their_roles() -> None:
    pic = roles([candle(0, "100.0", "110.0", "90.0", "108.0"), candle(1, "108.0", "109.0", "95.0", "97.0")], 30, 20)
    found = {r for line in pic for t, r in line if t.strip() in ("┃", "█", "│")}
    assert {"up", "down"} <= found


def test_volume_strip_only_with_volume() -> None:
    with_volume = texts(walk(20), 50, 20)
    without = texts([novol(c) for c in walk(20)], 50, 20)
    assert any(set(line.strip()) & set(VOLUME_BLOCKS[1:]) for line in with_volume[-4:-1])
    assert not any(set(line) & set(VOLUME_BLOCKS[1:8]) for line in without)


def novol(c: Candle) -> Candle:
    return Candle(c.open, c.high, c.low, c.close, Decimal(0), c.time)


def test_newest_candle_next_to_the_axis() -> None:
    lines = texts(walk(3), 60, 12, slot=2)
    axis_x = lines[0].index("│", 40)
    drawn = [line[:axis_x].rstrip() for line in lines[:8]]
    assert max(len(d) for d in drawn) >= axis_x - 2


@given(st.sampled_from(["1", "5", "15", "30", "60", "240", "1D", "1W"]), st.sampled_from(SLOTS), st.integers(20, 120))
def test_time_labels_never_touch_and_fit_the_resolution(res: str, slot: int, width: int) -> None:
    step = {"1D": 86_400_000, "1W": 604_800_000}.get(res, 60_000 * int(res) if res.isdigit() else 0)
    candles = [candle(i, "100", "101", "99", "100", step=step) for i in range(200)]
    bottom = texts(candles, width, 14, slot, res)[-1]
    pattern = {"1W": r"[A-Z][a-z]{2} \d\d", "1D": r"\d\d-\d\d"}.get(res, r"(\d\d:\d\d|\d\d-\d\d)")
    assert re.fullmatch(rf"( *{pattern})* *", bottom), bottom
    spans = [m.span() for m in re.finditer(pattern, bottom)]
    assert all(b[0] - a[1] >= 1 for a, b in itertools.pairwise(spans))


def test_time_label_formats() -> None:
    assert time_label(T0 + 3 * 60_000, "1") == "22:17"
    assert time_label(1_700_006_400_000, "60") == "11-15"  # midnight: the date
    assert time_label(1_700_006_400_000, "1D") == "11-15"
    assert time_label(1_700_006_400_000, "1W") == "Nov 15"


def test_price_labels_are_whole_ticks_inside_the_range() -> None:
    labels = price_labels(Decimal("99.95"), Decimal("100.45"), 12, TICK)
    assert labels and all(Decimal("99.95") <= p <= Decimal("100.45") and p % TICK == 0 for p in labels)
    assert price_labels(Decimal(5), Decimal(5), 10, TICK) == [Decimal(5)]


def test_zoom_holds_at_the_ends_and_auto_prefers_wide_candles() -> None:
    assert zoomed(SLOTS[-1], 1) == SLOTS[-1] and zoomed(SLOTS[0], -1) == SLOTS[0]
    assert zoomed(2, 1) == 4 and zoomed(4, -1) == 2
    assert auto_slot(240, 300) == 8 and auto_slot(70, 300) == 2 and auto_slot(20, 300) == 1
    assert auto_slot(70, 10) == 6  # ten candles: as wide as fits
