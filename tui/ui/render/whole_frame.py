"""What the terminal shows, line by line, so that a frame does not write again what is already there.

Right after its first whole frame, Textual draws the whole screen again, once or twice, mostly the same: its
resume handler asks for a repaint of the whole screen, and every widget's own refresh, queued while it mounted,
comes after the frame (~35 KB at 160x48, at start-up, when a slow link is busiest). Any later repaint of a region
that did not change is the same case, smaller.

``TerminalLines`` keeps the lines of the last whole frame written (``LayoutUpdate``) and, as partial frames
(``ChopsUpdate``) are written, the chops they write spliced into them: what the terminal shows. A partial frame
loses the chops that would write what their columns already show; one that loses them all is not written. A
whole frame over the same region is written as the lines it changes only (a dialog's screen is repainted whole
right after its first frame, and so is the dashboard's at start-up: ~20 KB each at 160x48, a few lines changed).

Only what is certain is kept out. The record starts at a whole frame and follows exactly the cells each partial
frame writes: a chop whole, or, when a span reaches only part of it (a table refreshing one row, a cursor), the
cells Textual writes of it (``_written``), so a table's row refresh no longer ends the record (it did,
and every later frame was written whole, region after region, until the next whole frame: most of a session).
A frame that lies outside the record, or any other kind of frame, ends the record and is written as it is, until
the next whole frame. So does a suspension of the app (``forget``): a terminal given back to the shell and taken
again may show anything.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.geometry import Region
from textual.strip import Strip

__all__ = ["TerminalLines", "first_row"]


class TerminalLines:
    """The terminal's lines as the frames written left them, while that is known exactly."""

    def __init__(self) -> None:
        self._region: Region | None = None
        self._lines: list[Strip] = []

    @property
    def following(self) -> bool:
        """Whether the terminal's lines are known (from the last whole frame on)."""
        return self._region is not None

    def forget(self) -> None:
        """The terminal's lines are not known any more (the app was suspended: its screen may be blank when it
        comes back): every frame is written as it is until the next whole one."""
        self._region, self._lines = None, []

    def to_write(self, update: RenderableType) -> RenderableType | None:
        """``update`` without what the terminal already shows (None: nothing); the record follows it as written."""
        if isinstance(update, LayoutUpdate):
            lines = [Strip.join(line) for line in update.strips]
            known = update.region == self._region
            old, self._region, self._lines = self._lines, update.region, lines
            if not known:
                return update
            changed = [i for i, (new, was) in enumerate(zip(lines, old, strict=True)) if not _shows_same(new, was)]
            return _lines_update(update.region, lines, changed) if changed else None
        if isinstance(update, ChopsUpdate) and self._region is not None:
            fresh = self._chops_to_write(update)
            if fresh is not None:
                return fresh if fresh.spans else None
        self._region, self._lines = None, []
        return update

    def _chops_to_write(self, update: ChopsUpdate) -> ChopsUpdate | None:
        """The cells ``update`` writes (``_written``: whole segments, as Textual writes them) less those the terminal
        already shows, spliced into the record; None when it writes outside the record."""
        assert self._region is not None
        left, top, rows = self._region.x, self._region.y, len(self._lines)
        spans: dict[int, list[tuple[int, int]]] = {}  # a row may be named more than once (two regions on it)
        for y, x1, x2 in update.spans:
            spans.setdefault(y, []).append((x1, x2))
        if not all(top <= y < top + rows for y in spans):
            return None
        lines = list(self._lines)
        chops: list[dict[int, Strip]] = [{} for _ in update.chops]
        ends: list[list[int]] = [[] for _ in update.chops]
        out_spans: list[tuple[int, int, int]] = []
        for y in sorted(spans):
            line = lines[y - top]
            for end, (x, strip) in zip(update.chop_ends[y], update.chops[y].items(), strict=False):
                if strip is None:
                    continue
                for a, b in _merged(w for x1, x2 in spans[y] if (w := _written(x, end, x1, x2)) is not None):
                    piece = strip if (a, b) == (x, end) else strip.crop(a - x, b - x)
                    start, stop = a - left, b - left
                    shown = line.crop(start, stop)
                    if _shows_same(piece, shown):
                        continue
                    line = Strip.join([line.crop(0, start), piece, line.crop(stop)])
                    p, q = _changed(piece, shown)  # the cells that differ, first to last: only they are written
                    if (p, q) != (0, b - a):
                        piece, a, b = piece.crop(p, q), a + p, a + q
                    if ends[y] and ends[y][-1] == a:  # next to the last piece: one run, one move of the cursor
                        at = out_spans[-1][1]
                        chops[y][at] = Strip.join([chops[y][at], piece])
                        ends[y][-1], out_spans[-1] = b, (y, at, b)
                    else:
                        chops[y][a] = piece
                        ends[y].append(b)
                        out_spans.append((y, a, b))
            lines[y - top] = Strip(line, line.cell_length)  # not the one cut above: it keeps every cut (~9 a row)
        self._lines = lines
        return ChopsUpdate(chops, out_spans, ends)


def first_row(update: ChopsUpdate) -> tuple[ChopsUpdate, ChopsUpdate] | None:
    """``update`` as two frames that write the same: its first row, then the rest; None when it writes one row."""
    rows = [y for y, _, _ in update.spans]
    split = next((i for i, y in enumerate(rows) if y != rows[0]), 0)
    if not split:
        return None
    head, rest = update.spans[:split], update.spans[split:]
    return ChopsUpdate(update.chops, head, update.chop_ends), ChopsUpdate(update.chops, rest, update.chop_ends)


def _cells(segments: Iterable[Segment]) -> list[tuple[str, Style | None]] | None:
    """The cells of ``segments`` as (character, style); a wide character's second cell is ("", its style). None
    when a character is not one or two cells wide (a combining mark): such a strip is not cut."""
    out: list[tuple[str, Style | None]] = []
    for text, style, control in segments:
        if control:
            return None
        for ch in text:
            width = cell_len(ch)
            if width == 1:
                out.append((ch, style))
            elif width == 2:
                out += ((ch, style), ("", style))
            else:
                return None
    return out


def _changed(new: Strip, shown: Strip) -> tuple[int, int]:
    """The cells [p, q) of ``new`` from the first that differs from ``shown`` (as wide) to the last, whole wide
    characters included; all of it when the cells cannot be told apart one by one. Runs alike at either end are
    passed over whole; only the runs between are compared cell by cell (the render loop runs this)."""
    whole = (0, new.cell_length)
    a, b = list(new.discard_meta()), list(shown.discard_meta())
    head = tail = skipped = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        skipped += cell_len(a[head].text)
        head += 1
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    x, y = _cells(a[head : len(a) - tail]), _cells(b[head : len(b) - tail])
    if x is None or y is None or len(x) != len(y):
        return whole
    p = 0
    while p < len(x) and x[p] == y[p]:
        p += 1
    q = len(x)
    while q > p and x[q - 1] == y[q - 1]:
        q -= 1
    if p < len(x) and x[p][0] == "" and p > 0:  # inside a wide character: from its first cell
        p -= 1
    if q < len(x) and x[q][0] == "":  # the last cell written starts a wide character: both its cells
        q += 1
    return (skipped + p, skipped + q) if q > p else whole


def _written(x: int, end: int, x1: int, x2: int) -> tuple[int, int] | None:
    """The cells [a, b) of the chop at ``x``..``end`` that ``ChopsUpdate.render_segments`` writes for the span
    ``x1``..``x2``: a chop the span reaches is written from its own start (even one the span starts inside) up to
    the span's end."""
    if x > x2 or end <= x1:
        return None
    stop = end if x1 <= x and end <= x2 else min(end, x2)
    return (x, stop) if stop > x else None


def _merged(pieces: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching cell ranges of one chop as one."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(pieces):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return out


def _lines_update(region: Region, lines: list[Strip], changed: list[int]) -> ChopsUpdate:
    """A partial frame that writes ``lines[i]`` for each ``i`` of ``changed``, each whole, at its row of
    ``region``."""
    x, top = region.x, region.y
    chops: list[dict[int, Strip | None]] = [{} for _ in range(top + len(lines))]
    ends: list[list[int]] = [[] for _ in chops]
    spans = []
    for i in changed:
        line, y = lines[i], top + i
        chops[y], ends[y] = {x: line}, [x + line.cell_length]
        spans.append((y, x, x + line.cell_length))
    return ChopsUpdate(chops, spans, ends)


def _shows_same(a: Strip, b: Strip) -> bool:
    """Whether ``a`` and ``b`` look the same on a terminal: the same text (compared first: it is quick, and
    it is what differs most often), then the same styles, runs merged and without the meta only Textual reads."""
    return a.text == b.text and a.discard_meta().simplify() == b.discard_meta().simplify()
