"""The names on the chart's lines, without Textual, laid out so that no two ever cover each other.

* A line in view is named at the plot's left on its own row, or on a free row next to it (one above or below)
  when another line's name took that row: lines within a row of one another are stacked.
* When no free row next to it is left, its name joins the one beside it: "entry · TP", or "TP ×2" for two of a
  kind, each part in its line's colour; the longest wording that fits the plot is used (each with its price,
  each's first word with its price, the words counted, the words alone).
* Lines above or below the view are said together on the plot's top or bottom row, nearest first, after an arrow
  ("↑ liq 120,000.0 · TP 105,000.0"); those rows are then kept for them.
* One legend, on the chart's last line, says what each colour and mark is: the indicators (with their last value),
  the volume profile, the kinds of line (entry, liq, buy, sell), the last price and the fills.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal

from .chart_grid import Grid, Level, Role

__all__ = ["Label", "legend", "level_labels"]

Label = tuple[int, int, str]  # row, column, text: where a name was put (a test checks that none overlap)
Part = tuple[str, Role]
SEP = " · "
LEVEL_KINDS = (("lv-entry", "entry"), ("lv-liq", "liq"), ("lv-buy", "buy"), ("lv-sell", "sell"))


def _wordings(group: Sequence[Level], tick: Decimal, fmt: Callable[[Decimal, Decimal], str]) -> list[list[Part]]:
    """A group's name, longest first: each with its full label and price, each's first word and price, the first
    words counted ("TP ×2"), the first words alone, the first word and how many more."""
    first = [lv.label.split(" ")[0] for lv in group]
    counted: dict[str, tuple[int, Role]] = {}
    for word, lv in zip(first, group, strict=True):
        counted[word] = (counted.get(word, (0, lv.role))[0] + 1, counted.get(word, (0, lv.role))[1])
    out = [
        [(f"{lv.label} {fmt(lv.price, tick)}", lv.role) for lv in group],
        [(f"{w} {fmt(lv.price, tick)}", lv.role) for w, lv in zip(first, group, strict=True)],
        [(w if n == 1 else f"{w} ×{n}", role) for w, (n, role) in counted.items()],
        [(w, role) for w, (_, role) in counted.items()],
    ]
    if len(group) > 1:
        out.append([(f"{first[0]} +{len(group) - 1}", group[0].role)])
    return out


def _put(grid: Grid, y: int, x: int, parts: list[Part], room: int, pad: str, arrow: str) -> Label | None:
    """``parts`` joined by " · " at (x, y) between ``pad``/``arrow`` if they fit in ``room`` columns."""
    text = arrow + pad + SEP.join(t for t, _ in parts) + pad
    if len(text) > room:
        return None
    role = parts[0][1]
    grid.put(x, y, arrow + pad, role)
    at = x + len(arrow + pad)
    for i, (t, r) in enumerate(parts):
        if i:
            grid.put(at, y, SEP, "axis")
            at += len(SEP)
        grid.put(at, y, t, r)
        at += len(t)
    grid.put(at, y, pad, role)
    return y, x, text


def _say(grid: Grid, y: int, group: Sequence[Level], plot: int, tick: Decimal, arrow: str,
         fmt: Callable[[Decimal, Decimal], str]) -> Label:  # fmt: skip
    pad = "" if arrow else " "
    wordings = _wordings(group, tick, fmt)
    for parts in wordings:
        if (put := _put(grid, y, 0, parts, plot, pad, arrow)) is not None:
            return put
    text = (arrow + wordings[-1][0][0])[:plot]  # not even the shortest fits: as much of it as does
    grid.put(0, y, text, group[0].role)
    return y, 0, text


def level_labels(
    grid: Grid,
    inside: Sequence[Level],
    levels: Sequence[Level],
    high: Decimal,
    low: Decimal,
    to_row: Callable[[Decimal], int],
    rows: int,
    plot: int,
    tick: Decimal,
    fmt: Callable[[Decimal, Decimal], str],
) -> list[Label]:
    """Name every level (the rules above); where each name went."""
    above = sorted((v for v in levels if v.price > high), key=lambda v: v.price)
    below = sorted((v for v in levels if v.price < low), key=lambda v: v.price, reverse=True)
    first, last = (1 if above else 0), rows - (2 if below else 1)
    groups: list[tuple[int, list[Level]]] = []
    for lv in sorted(inside, key=lambda v: v.price, reverse=True):
        want = to_row(lv.price)
        at = min(max(want, first, groups[-1][0] + 1 if groups else 0), max(first, last))
        if groups and (at <= groups[-1][0] or abs(at - want) > 1):
            groups[-1][1].append(lv)  # no free row next to its line: its name joins the one beside it
        else:
            groups.append((at, [lv]))
    edges = [(0, above, "↑ "), (rows - 1, below, "↓ ")]
    if rows < 3 or last < first:  # no room for rows of their own: the edges and the lines share the top row
        edges = [(0, [*above, *(lv for _, g in groups for lv in g), *below], "↕ ")]
        groups = []
    out = [_say(grid, y, group, plot, tick, "", fmt) for y, group in groups]
    for y, group, arrow in edges:
        if group:
            out.append(_say(grid, y, group, plot, tick, arrow, fmt))
    return out


def legend(
    grid: Grid,
    y: int,
    width: int,
    studies: Sequence[tuple[str, str, Role, str]],
    levels: Sequence[Level],
    fills: bool,
) -> Label:
    """The chart's one legend on row ``y``: ``studies`` as (mark, name, role, value), then the kinds of line drawn,
    the last price and the fills; closer together, then without the lines' values, when it does not fit; what
    still does not is left off, said by "…"."""
    roles = {lv.role for lv in levels}
    kinds = [("╌", word, role) for role, word in LEVEL_KINDS if role in roles]
    kinds += [("┄", "last", "line")] + ([("▲▼", "fills", "fill-buy")] if fills else [])
    full = [(mark, f"{name} {value}".strip(), role) for mark, name, role, value in studies]
    # the lines' values go first (they can be read off the axis); RSI's, said nowhere else in a small pane, stays
    bare = [
        (mark, f"{name} {value}".strip() if name.startswith("RSI") else name, role)
        for mark, name, role, value in studies
    ]
    tries = [(full + kinds, "  "), (full + kinds, " "), (bare + kinds, " ")]
    items, sep = next(((i, s) for i, s in tries if len(s.join(f"{m} {n}" for m, n, _ in i)) <= width), tries[-1])
    x, shown = 0, []
    for i, (mark, name, role) in enumerate(items):
        text = f"{mark} {name}"
        more = i < len(items) - 1
        if x + len(text) + (len(sep) + 1 if more else 0) > width:  # room kept for the "…" that says there is more
            grid.put(x, y, "…", "axis")
            shown.append("…")
            break
        grid.put(x, y, mark, role)
        grid.put(x + len(mark) + 1, y, name, role if role.startswith("ind-") else "axis")
        shown.append(text)
        x += len(text) + len(sep)
    return y, 0, sep.join(shown)
