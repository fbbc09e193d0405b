"""Saved layouts: which panes, where, at what size, and (for several markets at once) which instruments, kept per
profile so a trader does not rebuild the screen every session.

The file is JSON (``{"layouts": [{"name": ..., "columns": [...], "rows": [...], "panes": [...]}]}``), written whole
and atomically, read within limits (64 KiB, nested at most 8 deep) and checked whole: sizes are ``"Nfr"`` (a share
of what is left, N 1-9) or a number of cells (3-200); every pane names a known kind and a cell of the grid, spans
it within the grid and overlaps no other. A file that fails any check is moved aside (``layouts-NAME.json.bad-<time>``)
with a notice saying where and why, never written over; one of more than ``MAX_LAYOUTS`` is set aside whole and the
first ``MAX_LAYOUTS`` loaded and written back, as the watchlist does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import msgspec

from tui.paths import profile_file

from .kept_files import KeptFile, KeptStore
from .watchlist import SYMBOL_RE

__all__ = [
    "ACCOUNT_PANES",
    "MARKET_PANES",
    "MAX_INSTRUMENTS",
    "MAX_LAYOUTS",
    "Layout",
    "LayoutBook",
    "PaneSpot",
    "default_layout",
    "layout_from_json",
    "layouts_path",
]

MAX_LAYOUTS = 20
MAX_FILE_BYTES = 64 << 10  # 20 layouts of 12 panes take ~20 KB
MAX_TRACKS = 6  # columns, and rows, of a layout's grid
MAX_PANES = 12
# other instruments than the selected one a layout follows at once: each holds 3 channels (book, trades, chart) of
# the exchange's 1,000 subscriptions per address, beside every ticker and the account's
MAX_INSTRUMENTS = 6
MARKET_PANES = frozenset({"chart", "book", "tape", "ticker"})  # of one instrument (none named: the selected one)
ACCOUNT_PANES = frozenset({"markets", "positions", "orders", "fills"})  # of the account or of every instrument
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.:+-]{0,31}")
SIZE_RE = re.compile(r"([1-9])fr")
MIN_CELLS, MAX_CELLS = 3, 200


class PaneSpot(msgspec.Struct, frozen=True):
    """One pane of a layout: its kind, its top-left cell (from 0), how many columns and rows it spans, and for a
    market pane the instrument it follows (None: the one selected on the dashboard)."""

    pane: str
    row: int
    col: int
    rows: int = 1
    cols: int = 1
    instrument: str | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"pane": self.pane, "row": self.row, "col": self.col}
        if self.rows != 1:
            out["rows"] = self.rows
        if self.cols != 1:
            out["cols"] = self.cols
        if self.instrument is not None:
            out["instrument"] = self.instrument
        return out


class Layout(msgspec.Struct, frozen=True):
    """A named grid of panes: ``columns`` and ``rows`` are the tracks' sizes (``"2fr"`` or a number of cells)."""

    name: str
    columns: tuple[str, ...]
    rows: tuple[str, ...]
    panes: tuple[PaneSpot, ...]

    @property
    def instruments(self) -> list[str]:
        """The instruments its panes name, each once, in the panes' order."""
        return list(dict.fromkeys(p.instrument for p in self.panes if p.instrument is not None))

    def min_size(self) -> tuple[int, int]:
        """The smallest grid (columns, lines) its panes can be drawn in: fixed tracks as they are, a share of what
        is left at least 24 columns (a chart's axis and a few candles) and 7 lines (a book's best two levels a
        side, its header and spread, in its border)."""
        width = sum(int(s) if s.isdigit() else 24 for s in self.columns)
        height = sum(int(s) if s.isdigit() else 7 for s in self.rows)
        return width, height

    def with_name(self, name: str) -> Layout:
        return msgspec.structs.replace(self, name=check_name(name))

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "columns": [_size_json(s) for s in self.columns],
            "rows": [_size_json(s) for s in self.rows],
            "panes": [p.to_json() for p in self.panes],
        }


def _size_json(size: str) -> int | str:
    """A track's size as the file writes it: cells as a number, shares as ``"2fr"``."""
    return int(size) if size.isdigit() else size


def layouts_path(data_dir: Path, profile: str) -> Path:
    """Where a profile's layouts live: ``<data dir>/layouts-<profile>.json``."""
    return profile_file(data_dir, "layouts", profile)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 44 else text[:40] + "..."


def check_name(name: object) -> str:
    """A layout's name as given; ValueError when it is not 1-32 letters, digits, spaces or ``_.:+-``."""
    if not isinstance(name, str) or not NAME_RE.fullmatch(name) or name != name.strip():
        raise ValueError(f"{_shown(name)} is not a layout name (1-32 letters, digits, spaces, _.:+-)")
    return name


def _sizes(raw: object, what: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_TRACKS:
        raise ValueError(f"{what} must be a list of 1 to {MAX_TRACKS} sizes")
    out = []
    for size in raw:
        if isinstance(size, int) and not isinstance(size, bool) and MIN_CELLS <= size <= MAX_CELLS:
            out.append(str(size))
        elif isinstance(size, str) and SIZE_RE.fullmatch(size):
            out.append(size)
        else:
            raise ValueError(f"{what}: {_shown(size)} is not a size (1fr to 9fr, or {MIN_CELLS} to {MAX_CELLS} cells)")
    return tuple(out)


def _int(raw: dict[str, object], key: str, default: int | None, low: int, high: int) -> int:
    value = raw.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"{key} {_shown(value)} is not a whole number from {low} to {high}")
    return value


def _pane(raw: object, columns: int, rows: int) -> PaneSpot:
    if not isinstance(raw, dict) or not set(raw) <= {"pane", "row", "col", "rows", "cols", "instrument"}:
        raise ValueError('a pane must be {"pane", "row", "col"} with "rows", "cols" and "instrument" if need be')
    kind = raw.get("pane")
    if not isinstance(kind, str) or kind not in MARKET_PANES | ACCOUNT_PANES:  # a list is not hashable: str first
        known = ", ".join(sorted(MARKET_PANES | ACCOUNT_PANES))
        raise ValueError(f"unknown pane {_shown(kind)} (known: {known})")
    row, col = _int(raw, "row", None, 0, rows - 1), _int(raw, "col", None, 0, columns - 1)
    instrument = raw.get("instrument")
    if instrument is not None:
        if kind not in MARKET_PANES:
            raise ValueError(f"a {kind} pane shows no one instrument")
        if not isinstance(instrument, str) or not SYMBOL_RE.fullmatch(instrument):
            raise ValueError(f"{_shown(instrument)} is not an instrument name")
    spans = _int(raw, "rows", 1, 1, rows - row), _int(raw, "cols", 1, 1, columns - col)
    return PaneSpot(kind, row, col, spans[0], spans[1], instrument)


def layout_from_json(raw: object) -> Layout:
    """One layout of the file; ValueError naming what is wrong."""
    if not isinstance(raw, dict) or set(raw) != {"name", "columns", "rows", "panes"}:
        raise ValueError('a layout must be {"name", "columns", "rows", "panes"}')
    name = check_name(raw["name"])
    try:
        columns, rows = _sizes(raw["columns"], "columns"), _sizes(raw["rows"], "rows")
        panes_raw = raw["panes"]
        if not isinstance(panes_raw, list) or not 1 <= len(panes_raw) <= MAX_PANES:
            raise ValueError(f"panes must be a list of 1 to {MAX_PANES}")
        panes = tuple(_pane(p, len(columns), len(rows)) for p in panes_raw)
        _no_overlap(panes)
        layout = Layout(name, columns, rows, panes)
        if len(layout.instruments) > MAX_INSTRUMENTS:
            raise ValueError(
                f"{len(layout.instruments)} instruments, more than the {MAX_INSTRUMENTS} one layout follows"
            )
    except ValueError as exc:
        raise ValueError(f"layout {name!r}: {exc}") from None
    return layout


def _no_overlap(panes: Iterable[PaneSpot]) -> None:
    taken: dict[tuple[int, int], str] = {}
    for p in panes:
        for cell in ((r, c) for r in range(p.row, p.row + p.rows) for c in range(p.col, p.col + p.cols)):
            if cell in taken:
                raise ValueError(
                    f"the {p.pane} pane overlaps the {taken[cell]} pane at row {cell[0]}, column {cell[1]}"
                )
            taken[cell] = p.pane


def _layouts(raw: object) -> list[Layout]:
    if not isinstance(raw, dict) or set(raw) != {"layouts"} or not isinstance(raw["layouts"], list):
        raise ValueError('expected {"layouts": [...]}')
    out: list[Layout] = []
    for item in raw["layouts"]:  # the file's size bounds how many (a few hundred at most)
        layout = layout_from_json(item)
        if any(x.name == layout.name for x in out):
            raise ValueError(f"two layouts are named {layout.name!r}")
        out.append(layout)
    return out


class LayoutBook(KeptStore):
    """A profile's saved layouts (in order) and their file."""

    def __init__(self, path: Path, layouts: list[Layout] | None = None, problem: str = "") -> None:
        self.path = path
        self.layouts = layouts or []
        self.file = KeptFile(path, problem)

    @classmethod
    def load(cls, path: Path) -> LayoutBook:
        """The layouts in ``path``; a file that cannot be read, or holds a bad layout, is set aside with a notice."""
        book = cls(path)
        layouts = book.file.load(_layouts, MAX_FILE_BYTES) or []
        book.layouts = layouts[:MAX_LAYOUTS]
        if len(layouts) > MAX_LAYOUTS:
            book.file.over_cap(len(layouts), MAX_LAYOUTS, "layouts", book.save)
        return book

    def save(self) -> None:
        """Write the layouts; OSError (``NotKept`` when the unread file must not be written over) if it cannot."""
        self.file.write({"layouts": [x.to_json() for x in self.layouts]})

    def names(self) -> list[str]:
        return [x.name for x in self.layouts]

    def get(self, name: str) -> Layout | None:
        return next((x for x in self.layouts if x.name == name), None)

    def keep(self, layout: Layout) -> bool:
        """Save ``layout`` under its name (in place of one so named); True when it replaced one. Saved at once:
        OSError if not, and the book is as it was."""
        before = self.layouts
        replaced = any(x.name == layout.name for x in before)
        if not replaced and len(before) >= MAX_LAYOUTS:
            raise ValueError(f"at most {MAX_LAYOUTS} layouts: delete one from {self.path} first")
        self.layouts = [layout if x.name == layout.name else x for x in before] if replaced else [*before, layout]
        try:
            self.save()
        except OSError:
            self.layouts = before
            raise
        return replaced


def default_layout(width: int, height: int, symbol: str | None = None) -> Layout:
    """The dashboard's own layout at a terminal of ``width`` x ``height`` as a layout (what "save the current layout"
    keeps from the dashboard), its market panes on ``symbol`` (None: the selected one). The dashboard itself keeps
    drawing from its CSS (``main_layout``); the breakpoints are the same."""

    def spot(kind: str, row: int, col: int, rows: int = 1, cols: int = 1) -> PaneSpot:
        return PaneSpot(kind, row, col, rows, cols, symbol if kind in MARKET_PANES else None)

    if height < 34:  # short: book, tape and chart take turns on the right; the dashboard's default is the book
        right = "40" if width < 110 else "46"
        panes: tuple[PaneSpot, ...] = (
            spot("markets", 0, 0), spot("book", 0, 1, rows=3), spot("positions", 1, 0), spot("orders", 2, 0),
        )  # fmt: skip
        return Layout("dashboard", ("1fr", right), ("10", "1fr", "1fr"), panes)
    if width < 110:  # narrow: book and tape take turns beside the markets and the chart
        panes = (
            spot("markets", 0, 0), spot("book", 0, 1, rows=2), spot("chart", 1, 0),
            spot("positions", 2, 0, cols=2), spot("orders", 3, 0, cols=2),
        )  # fmt: skip
        return Layout("dashboard", ("1fr", "40"), ("10", "1fr", "6", "7"), panes)
    panes = (
        spot("markets", 0, 0), spot("book", 0, 1, rows=2), spot("tape", 0, 2, rows=2), spot("chart", 1, 0),
        spot("positions", 2, 0, cols=3), spot("orders", 3, 0, cols=3),
    )  # fmt: skip
    return Layout("dashboard", ("1fr", "46", "30"), ("10", "1fr", "6", "7"), panes)
