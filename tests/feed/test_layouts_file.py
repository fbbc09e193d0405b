"""The layouts file: every layout checked whole (sizes, panes, cells, spans, overlaps, instruments, names), a file
that fails any check set aside (never lost, never written over) with a notice naming where and why; over the cap the
first are loaded and every one kept aside; saving replaces by name; the dashboard's own layouts at each size pass the
same checks they are saved under."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.feed.layouts import (
    MAX_INSTRUMENTS,
    MAX_LAYOUTS,
    Layout,
    LayoutBook,
    PaneSpot,
    default_layout,
    layout_from_json,
    layouts_path,
)

NESTED = "[" * 100_000 + "]" * 100_000


def _layout(name: str = "two", **over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": name,
        "columns": ["1fr", "1fr"],
        "rows": ["2fr", 8],
        "panes": [
            {"pane": "chart", "row": 0, "col": 0, "instrument": "BTC-PERP"},
            {"pane": "chart", "row": 0, "col": 1, "instrument": "ETH-PERP"},
            {"pane": "positions", "row": 1, "col": 0, "cols": 2},
        ],
    }
    return {**base, **over}


def _aside(path: Path) -> Path:
    [aside] = path.parent.glob(path.name + ".bad-*")
    return aside


def test_a_layout_round_trips_through_its_file(tmp_path: Path) -> None:
    """Tried: a two-market layout saved, then loaded: the same layout, fixed sizes written as numbers."""
    path = layouts_path(tmp_path, "My Profile")
    assert path.name == "layouts-my_profile.json"
    book = LayoutBook.load(path)
    assert book.layouts == [] and book.problem == ""
    layout = layout_from_json(_layout())
    assert layout.instruments == ["BTC-PERP", "ETH-PERP"] and layout.rows == ("2fr", "8")
    assert book.keep(layout) is False
    assert json.loads(path.read_text())["layouts"][0]["rows"] == ["2fr", 8]
    again = LayoutBook.load(path)
    assert again.layouts == [layout] and again.problem == ""
    moved = layout_from_json(_layout(columns=["1fr", 60]))
    assert again.keep(moved) is True  # the same name: replaced in place
    assert LayoutBook.load(path).layouts == [moved]


@pytest.mark.parametrize(("width", "height"), [(160, 48), (120, 30), (100, 40), (80, 24)])
def test_the_dashboards_own_layout_passes_the_files_checks(width: int, height: int) -> None:
    """Tried: "save the current layout" on the dashboard at each of its sizes: what it keeps loads back."""
    layout = default_layout(width, height)
    assert layout_from_json(layout.to_json()) == layout
    assert {p.pane for p in layout.panes} >= {"markets", "book", "positions", "orders"}


@pytest.mark.parametrize(
    ("layout", "said"),
    [
        (_layout(columns=["0fr", "1fr"]), "'0fr' is not a size"),
        (_layout(columns=["10fr", "1fr"]), "'10fr' is not a size"),
        (_layout(columns=["1fr", 2]), "2 is not a size"),
        (_layout(columns=["1fr", 201]), "201 is not a size"),
        (_layout(columns=["1fr", -5]), "-5 is not a size"),
        (_layout(columns=["1fr", True]), "True is not a size"),
        (_layout(columns=["1fr", 1.5]), "Decimal('1.5') is not a size"),
        (_layout(columns=["1fr", "50%"]), "'50%' is not a size"),
        (_layout(columns=[]), "columns must be a list of 1 to 6"),
        (_layout(rows=["1fr"] * 7), "rows must be a list of 1 to 6"),
        (_layout(rows="1fr"), "rows must be a list"),
        (_layout(panes=[]), "panes must be a list of 1 to 12"),
        (_layout(panes=[{"pane": "heatmap-3d", "row": 0, "col": 0}]), "unknown pane 'heatmap-3d'"),
        (_layout(panes=[{"pane": ["chart"], "row": 0, "col": 0}]), "unknown pane ['chart']"),
        (_layout(panes=[{"pane": "chart", "row": 2, "col": 0}]), "row 2 is not a whole number from 0 to 1"),
        (_layout(panes=[{"pane": "chart", "row": 0, "col": 0, "cols": 3}]), "cols 3 is not a whole number from 1"),
        (_layout(panes=[{"pane": "chart", "row": 0, "col": 0, "rows": 0}]), "rows 0 is not a whole number"),
        (_layout(panes=[{"pane": "chart", "row": "0", "col": 0}]), "row '0' is not a whole number"),
        (_layout(panes=[{"pane": "chart", "row": 0, "col": 0, "size": 3}]), "a pane must be"),
        (_layout(panes=["chart"]), "a pane must be"),
        (
            _layout(panes=[{"pane": "chart", "row": 0, "col": 0, "rows": 2}, {"pane": "book", "row": 1, "col": 0}]),
            "the book pane overlaps the chart pane at row 1, column 0",
        ),
        (_layout(panes=[{"pane": "positions", "row": 0, "col": 0, "instrument": "BTC-PERP"}]), "no one instrument"),
        (_layout(panes=[{"pane": "chart", "row": 0, "col": 0, "instrument": "BTC PERP; rm"}]), "not an instrument"),
        (_layout(panes=[{"pane": "chart", "row": 0, "col": 0, "instrument": 7}]), "7 is not an instrument"),
        (
            _layout(
                columns=["1fr"] * 6,
                rows=["1fr"] * 2,
                panes=[
                    {"pane": "ticker", "row": r, "col": c, "instrument": f"X{r}{c}-PERP"}
                    for r in range(2)
                    for c in range(4)
                ],
            ),
            f"8 instruments, more than the {MAX_INSTRUMENTS}",
        ),
        (_layout(name=""), "'' is not a layout name"),
        (_layout(name="x" * 33), "is not a layout name"),
        (_layout(name="bad\x1b[31mname"), "is not a layout name"),
        (_layout(name=" padded"), "is not a layout name"),
        (_layout(extra=1), 'a layout must be {"name", "columns", "rows", "panes"}'),
    ],
)
def test_a_bad_layout_sets_the_file_aside(tmp_path: Path, layout: dict[str, Any], said: str) -> None:
    """Tried: sizes of 0fr, 10fr, 2 and 201 cells, negative, true, 1.5, 50%; no tracks and too many; no pane;
    unknown panes (a string, a list); cells outside the grid, spans past it, a row as text; an unknown key; two
    panes on one cell; an instrument on an account pane, a hostile one, a number; 8 instruments; empty, long,
    escape-laden and padded names. Each: the file set aside whole, the notice names it, why and where it went."""
    path = layouts_path(tmp_path, "local")
    text = json.dumps({"layouts": [_layout("good"), layout]})  # 1.5 is a JSON number, read as a Decimal
    path.write_text(text)
    book = LayoutBook.load(path)
    assert book.layouts == [] and said in book.problem, book.problem
    assert str(_aside(path)) in book.problem and f"{path} could not be read" in book.problem
    assert _aside(path).read_text() == text and not path.exists()


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"\xff\xfe\x00garbage\x80", "can't decode"),
        (b"{not json", "Expecting property name"),
        (b'{"layouts": {}}', 'expected {"layouts": [...]}'),
        (b'{"layouts": [], "more": 1}', 'expected {"layouts": [...]}'),
        (b"[]", 'expected {"layouts": [...]}'),
        (b'{"layouts": [{"name": "a", "columns": [' + b"9" * 5000 + b"]}]}", "a number of 5,000 characters"),
        (json.dumps({"layouts": [_layout("same"), _layout("same")]}).encode(), "two layouts are named 'same'"),
        (b'{"layouts": [' + b'"x", ' * 20_000 + b'"x"]}', "more than the 65.5 KB it may be"),
    ],
    ids=["binary", "junk", "object", "extra-key", "array", "long-number", "twice", "huge"],
)
def test_junk_and_huge_files_are_set_aside(tmp_path: Path, data: bytes, said: str) -> None:
    """Tried: binary garbage, broken JSON, the wrong shapes, a 5,000-digit number, one name twice, a 100 KB file
    (over the 64 KiB a layouts file may be: not read past that)."""
    path = layouts_path(tmp_path, "local")
    path.write_bytes(data)
    book = LayoutBook.load(path)
    assert book.layouts == [] and said in book.problem, book.problem
    assert _aside(path).read_bytes() == data


def test_a_file_nested_100_000_deep_is_set_aside_not_a_crash(tmp_path: Path) -> None:
    """Tried: a layouts file nested 100,000 deep (in a 64 KiB file: 30,000), loaded in a child with the recursion
    limit at 100,000 as after a keystore is unlocked: set aside, said, the child alive."""
    path = layouts_path(tmp_path, "local")
    body = '{"layouts": ' + "[" * 30_000 + "]" * 30_000 + "}"
    path.write_text(body)
    code = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        sys.setrecursionlimit(100_000)
        from tui.feed.layouts import LayoutBook
        print(LayoutBook.load(Path({str(path)!r})).problem)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "nested more than 8 deep" in done.stdout and str(_aside(path)) in done.stdout
    assert _aside(path).read_text() == body


def test_over_the_cap_the_first_are_loaded_and_every_one_kept(tmp_path: Path) -> None:
    """Tried: 25 layouts (the cap is 20): the first 20 loaded and written back, all 25 kept aside, and said."""
    path = layouts_path(tmp_path, "local")
    text = json.dumps({"layouts": [_layout(f"l{i}") for i in range(25)]})
    path.write_text(text)
    book = LayoutBook.load(path)
    assert book.names() == [f"l{i}" for i in range(MAX_LAYOUTS)]
    assert "holds 25 layouts, more than the 20" in book.problem and str(_aside(path)) in book.problem
    assert _aside(path).read_text() == text
    assert LayoutBook.load(path).names() == book.names()
    with pytest.raises(ValueError, match="at most 20 layouts"):
        book.keep(layout_from_json(_layout("one more")))


def test_a_save_that_cannot_be_written_leaves_the_book_as_it_was(tmp_path: Path) -> None:
    """Tried: the data dir cannot take the file (a directory is in its place): OSError, nothing changed."""
    path = layouts_path(tmp_path, "local")
    book = LayoutBook.load(path)
    path.mkdir(parents=True)
    with pytest.raises(OSError):
        book.keep(layout_from_json(_layout()))
    assert book.layouts == []


def test_min_size_counts_fixed_tracks_and_shares() -> None:
    layout = Layout("x", ("1fr", "46", "2fr"), ("10", "1fr"), (PaneSpot("chart", 0, 0),))
    assert layout.min_size() == (24 + 46 + 24, 10 + 7)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-300, 300) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)
pane_like = st.fixed_dictionaries(
    {"pane": st.sampled_from(["chart", "book", "tape", "ticker", "markets", "fills", "x"]),
     "row": st.integers(-1, 6), "col": st.integers(-1, 6)},
    optional={"rows": st.integers(-1, 7), "cols": st.integers(-1, 7), "instrument": json_values},
)  # fmt: skip
sizes = st.lists(st.integers(0, 250) | st.sampled_from(["1fr", "9fr", "0fr"]), min_size=1, max_size=7)
layout_like = st.fixed_dictionaries(
    {"name": st.sampled_from(["one", "two"]) | st.text(max_size=40), "columns": sizes, "rows": sizes,
     "panes": st.lists(pane_like, max_size=14)},
)  # fmt: skip

plausible_pane = st.fixed_dictionaries(
    {"pane": st.sampled_from(["chart", "book", "ticker", "positions"]),
     "row": st.integers(0, 2), "col": st.integers(0, 2)},
    optional={"rows": st.integers(1, 2), "cols": st.integers(1, 2)},
)  # fmt: skip
plausible_sizes = st.lists(st.sampled_from(["1fr", "2fr", 10]), min_size=1, max_size=3)
plausible = st.fixed_dictionaries(
    {"name": st.sampled_from(["one", "two"]), "columns": plausible_sizes, "rows": plausible_sizes,
     "panes": st.lists(plausible_pane, min_size=1, max_size=4)},
)  # fmt: skip


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    raw=json_values | st.fixed_dictionaries({"layouts": st.lists(plausible | layout_like | json_values, max_size=4)})
)
def test_any_file_loads_or_is_set_aside(tmp_path: Path, raw: object) -> None:
    """Property: whatever JSON the file holds, loading never raises; either every layout loaded passes the checks
    again (its panes inside its grid, none overlapping) or the file was set aside with a notice."""
    path = layouts_path(tmp_path, "local")
    for old in tmp_path.glob("layouts-*"):
        old.unlink()
    path.write_text(json.dumps(raw))
    book = LayoutBook.load(path)
    if book.problem:
        assert book.layouts == [] and "could not be read" in book.problem
        return
    for layout in book.layouts:
        assert layout_from_json(layout.to_json()) == layout
        cells = [(r, c) for p in layout.panes
                 for r in range(p.row, p.row + p.rows) for c in range(p.col, p.col + p.cols)]  # fmt: skip
        assert len(cells) == len(set(cells))
        assert all(r < len(layout.rows) and c < len(layout.columns) for r, c in cells)
