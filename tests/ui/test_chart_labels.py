"""The chart's names never cover each other (``chart_labels``): many lines close together, at any size, are named
on rows of their own next to their lines or merged ("TP ×2", "entry · TP"); lines off the view are said at the
edge with an arrow; one legend says what the colours are, the indicators with their values. Every level is named
somewhere, every name is drawn whole where it was put, and no two names overlap."""

from __future__ import annotations

import itertools
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.api.models import Candle
from tui.feed.indicators import INDICATORS, Tracker, studies_for
from tui.ui.widgets.chart_layout import Level, Marker, Picture, draw

TICK = Decimal("0.1")
T0 = 1_700_000_040_000
WORDS = [("TP", "lv-sell"), ("SL", "lv-buy"), ("entry long 0.5", "lv-entry"), ("liq", "lv-liq"),
         ("sell 0.25", "lv-sell"), ("buy 1.5", "lv-buy"), ("stop buy 0.1", "lv-buy"),
         ("stale sell 2", "lv-sell")]  # fmt: skip


def candles(n: int = 200) -> list[Candle]:
    """Prices between 98 and 107, some volume."""
    return [
        Candle(Decimal(100 + i % 5), Decimal(103 + i % 5), Decimal(98 + i % 5), Decimal(101 + i % 3),
               Decimal(1 + i % 4), T0 + i * 60_000)
        for i in range(n)
    ]  # fmt: skip


def picture(levels: list[Level], width: int, height: int, chosen: tuple[str, ...] = ()) -> Picture:
    series = candles()
    tracker = Tracker(studies_for(chosen))
    tracker.update(series)
    shown = series[-width:]
    return draw(shown, width, height, slot=2, tick=TICK, resolution="1", levels=levels,
                markers=[Marker(series[-1].time, Decimal(101), True)], studies=tracker.tail(len(shown)),
                profile="profile" in chosen)  # fmt: skip


def text(pic: Picture) -> list[str]:
    return ["".join(t for t, _ in line) for line in pic.lines]


def check(pic: Picture, levels: list[Level]) -> None:
    """No two names overlap, each is drawn whole where it was put, and every level's first word is in one."""
    lines = text(pic)
    for (y1, x1, t1), (y2, x2, t2) in itertools.combinations(pic.labels, 2):
        assert y1 != y2 or x1 + len(t1) <= x2 or x2 + len(t2) <= x1, (t1, t2)
    for y, x, t in pic.labels:
        assert lines[y][x : x + len(t)] == t, (t, lines[y])
    said = " ".join(t for _, _, t in pic.labels)
    for lv in levels:
        assert lv.label.split(" ")[0] in said, (lv.label, said)


def test_lines_within_a_row_stack_on_free_rows_then_merge() -> None:
    """Three lines on one row: the first two named on their row and the next, the third joins the second's name."""
    levels = [Level(Decimal(101), "TP", "lv-sell"), Level(Decimal(101), "TP", "lv-sell"),
              Level(Decimal(101), "entry long 0.5", "lv-entry")]  # fmt: skip
    pic = picture(levels, 100, 30)
    check(pic, levels)
    named = sorted((y, t.strip()) for y, _, t in pic.labels if "101.0" in t)
    assert [t for _, t in named] == ["TP 101.0", "TP 101.0 · entry long 0.5 101.0"]
    assert named[1][0] == named[0][0] + 1


def test_no_room_for_the_full_names_counts_them() -> None:
    """Five lines on one row of a narrow chart: "TP ×2 · SL · sell" where the prices do not fit."""
    levels = [Level(Decimal("101.5"), w, r) for w, r in (WORDS[0], WORDS[0], WORDS[1], WORDS[4], WORDS[4])]
    pic = picture(levels, 40, 24)
    check(pic, levels)
    assert any("TP ×2" in t or "sell ×2" in t for _, _, t in pic.labels), pic.labels


def test_far_lines_are_said_together_at_the_edge_nearest_first() -> None:
    levels = [Level(Decimal(400), "liq", "lv-liq"), Level(Decimal(200), "TP", "lv-sell"),
              Level(Decimal(5), "SL", "lv-buy")]  # fmt: skip
    pic = picture(levels, 100, 30)
    check(pic, levels)
    lines = text(pic)
    assert lines[0].startswith("↑ TP 200.0 · liq 400.0")
    assert any(line.startswith("↓ SL 5.0") for line in lines)


def test_one_legend_says_the_indicators_with_their_values_and_the_kinds_of_line() -> None:
    levels = [Level(Decimal(101), "entry long 0.5", "lv-entry"), Level(Decimal(400), "liq", "lv-liq")]
    pic = picture(levels, 160, 40, ("sma", "vwap", "rsi"))
    check(pic, levels)
    legend = text(pic)[-1]
    for word in ("• SMA20 ", "• SMA50 ", "+ VWAP ", "• RSI14 ", "╌ entry", "╌ liq", "┄ last", "▲▼ fills"):
        assert word in legend, legend
    assert sum(1 for _, _, t in pic.labels if "SMA20" in t) == 1  # one legend


def test_no_legend_on_a_bare_chart() -> None:
    series = candles()
    pic = draw(series[-60:], 60, 20, slot=2, tick=TICK, resolution="1")
    assert pic.labels == () and "last" not in text(pic)[-1]


NEAR = st.decimals(min_value=95, max_value=110, places=1)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(NEAR | st.decimals(min_value=1, max_value=500, places=0), st.sampled_from(WORDS)),
        min_size=1, max_size=12,
    ),
    st.integers(min_value=60, max_value=160),
    st.integers(min_value=12, max_value=48),
    st.sets(st.sampled_from(INDICATORS)),
)  # fmt: skip
def test_many_close_lines_at_any_size_never_overlap_and_are_all_named(
    spots: list[tuple[Decimal, tuple[str, str]]], width: int, height: int, chosen: set[str]
) -> None:
    levels = [Level(price, word, role) for price, (word, role) in spots]
    pic = picture(levels, width, height, tuple(sorted(chosen)))
    assert len(pic.lines) == height and all(len(line) == width for line in text(pic))
    check(pic, levels)
