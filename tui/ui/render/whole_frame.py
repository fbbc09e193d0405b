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

Only what is certain is kept out. The record starts at a whole frame and follows only what it can follow exactly:
chops written whole. A frame that writes part of a chop or lies outside the record, or any other kind of frame,
ends the record and is written as it is, until the next whole frame. So does a suspension
of the app (``forget``): a terminal given back to the shell and taken again may show anything.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import RenderableType
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.geometry import Region
from textual.strip import Strip

__all__ = ["TerminalLines"]


class TerminalLines:
    """The terminal's lines as the frames written left them, while that is known exactly."""

    def __init__(self) -> None:
        self._region: Region | None = None
        self._lines: list[Strip] = []

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
            kept = self._chops_to_write(update)
            if kept is not None:
                chops, rows = kept
                # only rows with something to write: a row left empty would still end with a line feed, which
                # moves the cursor from wherever the last frame left it (a scroll, on the bottom row)
                spans = [span for span in update.spans if span[0] in rows]
                return ChopsUpdate(chops, spans, update.chop_ends) if spans else None
        self._region, self._lines = None, []
        return update

    def _chops_to_write(self, update: ChopsUpdate) -> tuple[list[Mapping[int, Strip | None]], set[int]] | None:
        """The update's chops, those the terminal already shows made None and the others spliced into the
        record, and the rows that still write something; None when the update writes something the record
        cannot follow."""
        assert self._region is not None
        left, top, rows = self._region.x, self._region.y, len(self._lines)
        spans: dict[int, list[tuple[int, int]]] = {}  # a row may be named more than once (two regions on it)
        for y, x1, x2 in update.spans:
            spans.setdefault(y, []).append((x1, x2))
        if not all(top <= y < top + rows for y in spans):
            return None
        chops = list(update.chops)
        lines = list(self._lines)
        rows_left: set[int] = set()
        for y, row_spans in spans.items():
            line, row = lines[y - top], dict(chops[y])
            for end, (x, strip) in zip(update.chop_ends[y], chops[y].items(), strict=False):
                # written where a span reaches into it, as ``ChopsUpdate.render_segments`` decides: one that
                # starts where a span ends gets a move of the cursor and no cell
                reached = [(x1, x2) for x1, x2 in row_spans if x < x2 and end > x1]
                if strip is None or not reached:
                    continue
                if not any(x1 <= x and end <= x2 for x1, x2 in reached):
                    return None  # written in part: not followed
                start, stop = x - left, end - left
                if _shows_same(strip, line.crop(start, stop)):
                    row[x] = None
                else:
                    line = Strip.join([line.crop(0, start), strip, line.crop(stop)])
                    rows_left.add(y)
            chops[y], lines[y - top] = row, line
        self._lines = lines
        return chops, rows_left


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
