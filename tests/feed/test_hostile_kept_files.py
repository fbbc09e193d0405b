"""Hostile alerts and watchlist files: each is set aside (never lost) with a notice naming where it went, and the
store starts empty; over the cap, every entry is kept and the trader told; an alert that fires is returned even
when its file cannot be written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.feed.alerts import MAX_ALERTS, Alert, AlertBook, alerts_path
from tui.feed.kept_files import NotKept
from tui.feed.watchlist import MAX_WATCHED, Watchlist, watchlist_path

D = Decimal
NESTED = "[" * 100_000 + "]" * 100_000


def _alert(i: int, **over: object) -> dict[str, object]:
    return {"id": i, "symbol": "BTC-PERP", "source": "last", "condition": "above", "level": "101000", **over}


def _aside(path: Path) -> Path:
    [aside] = path.parent.glob(path.name + ".bad-*")
    return aside


def _load_in_child(kind: str, path: Path) -> subprocess.CompletedProcess[str]:
    """Load ``path`` in a child process, its recursion limit raised as importing eth-keyfile does (py_ecc sets
    100,000): a parser that recursed would kill the child (SIGSEGV), not the test run."""
    code = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        import eth_keyfile.keyfile  # py_ecc raises the recursion limit to 100,000
        assert sys.getrecursionlimit() >= 100_000
        from tui.feed.alerts import AlertBook
        from tui.feed.watchlist import Watchlist
        store = {kind}.load(Path({str(path)!r}))
        print(store.problem)
        """
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("kind", "body", "said"),
    [
        ("AlertBook", '{"alerts": ' + NESTED + "}", "nested more than 8 deep"),
        ("AlertBook", NESTED, "nested more than 8 deep"),
        ("Watchlist", '{"symbols": ' + NESTED + "}", "200.0 KB, more than the 65.5 KB it may be"),
        ("Watchlist", '{"symbols": ' + "[" * 30_000 + "]" * 30_000 + "}", "nested more than 8 deep"),
    ],
    ids=["alerts", "bare-array", "watchlist-100k", "watchlist-30k"],
)
def test_a_file_nested_100_000_deep_is_set_aside_not_a_crash(tmp_path: Path, kind: str, body: str, said: str) -> None:
    """Tried: an alerts or watchlist file nested 100,000 (and 30,000) deep, loaded with the recursion limit at
    100,000 (as after a keystore is unlocked). Before, json.loads overflowed the C stack: the child died of
    SIGSEGV, on every start."""
    path = tmp_path / ("alerts-local.json" if kind == "AlertBook" else "watchlist-local.json")
    path.write_text(body)
    done = _load_in_child(kind, path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert said in done.stdout and str(_aside(path)) in done.stdout
    assert _aside(path).read_text() == body and not path.exists()


@pytest.mark.parametrize(
    ("alert", "said"),
    [
        (_alert(1, level="1e999999999"), "level must be a number above 0"),
        (_alert(1, level=1e300), "level must be a number above 0"),
        (_alert(1, level="0.0000000000000000001"), "18 places"),
        (_alert(1, level="NaN"), "level must be"),
        (_alert(1, level="-5"), "level must be"),
        (_alert(1, condition="move", level="150", window_s=60), "at most 100"),
        (_alert(1, level=True), "level must be a number"),
        (_alert(1, level=[1]), "level must be a number"),
        (_alert(1, symbol=["BTC"]), "must be strings"),
        (_alert(1, symbol="BTC PERP; rm -rf"), "not an instrument name"),
        (_alert(1, bell="false"), "bell must be true or false"),
        (_alert(1, window_s=1.5), "window_s must be a whole number"),
        (_alert(1, window_s=10**12), "window_s must be 0 to 7 days"),
        (_alert(True), "id must be a whole number"),
        (_alert(0), "id must be 1 to"),
        (_alert(1, extra=1), "unknown key 'extra'"),
    ],
)
def test_values_out_of_bounds_set_the_file_aside(tmp_path: Path, alert: dict[str, object], said: str) -> None:
    """Tried: an alert whose level is 1e999999999 (before: it loaded, then the first price crashed the dashboard
    on every start), NaN, negative, too fine; wrong types for every field; an unknown key."""
    path = alerts_path(tmp_path, "local")
    text = json.dumps({"alerts": [_alert(2), alert]})
    path.write_text(text)
    book = AlertBook.load(path)
    assert book.alerts == [] and said in book.problem, book.problem
    assert _aside(path).read_text() == text and str(_aside(path)) in book.problem


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"\xff\xfe\x00garbage\x80", "can't decode"),
        (b'{"alerts": [{"id": 1, "level": NaN}]}', "NaN is not a number"),
        (b'{"alerts": [{"id": ' + b"9" * 5000 + b"}]}", "a number of 5,000 characters"),
        (b'{"alerts": {}}', 'expected {"alerts": [...]}'),
        (b'{"alerts": [], "more": 1}', 'expected {"alerts": [...]}'),
        (b"[]", 'expected {"alerts": [...]}'),
        (json.dumps({"alerts": [_alert(1), _alert(1)]}).encode(), "alert 1 appears 2 times"),
    ],
)
def test_garbage_and_wrong_shapes_are_set_aside(tmp_path: Path, data: bytes, said: str) -> None:
    """Tried: binary garbage, NaN, a 5,000-digit number, the wrong shape, an id twice."""
    path = alerts_path(tmp_path, "local")
    path.write_bytes(data)
    book = AlertBook.load(path)
    assert book.alerts == [] and said in book.problem, book.problem
    assert _aside(path).read_bytes() == data


def test_200_000_alerts_are_kept_aside_whole_and_said(tmp_path: Path) -> None:
    """Tried: 200,000 alerts in the file. Before: 500 kept, the rest dropped at the next save without a word. Now
    the file (~19 MB, over the 1 MiB an alerts file may be) is set aside whole, not read past its cap, and the
    notice says so and where it is."""
    path = alerts_path(tmp_path, "local")
    text = json.dumps({"alerts": [_alert(i) for i in range(1, 200_001)]})
    path.write_text(text)
    book = AlertBook.load(path)
    assert book.alerts == [] and "more than the 1.0 MB it may be" in book.problem
    assert _aside(path).read_text() == text and str(_aside(path)) in book.problem


def test_over_the_cap_the_first_are_loaded_and_every_one_kept(tmp_path: Path) -> None:
    """Tried: 812 alerts (within the file's size). The first 500 are loaded and written back; all 812 are kept
    in the file set aside, and the notice says how many, and where."""
    path = alerts_path(tmp_path, "local")
    text = json.dumps({"alerts": [_alert(i) for i in range(1, 813)]})
    path.write_text(text)
    book = AlertBook.load(path)
    assert [a.id for a in book.alerts] == list(range(1, MAX_ALERTS + 1))
    assert "holds 812 alerts, more than the 500" in book.problem and str(_aside(path)) in book.problem
    assert _aside(path).read_text() == text
    assert [a.id for a in AlertBook.load(path).alerts] == list(range(1, MAX_ALERTS + 1))  # written back


def test_a_watchlist_over_the_cap_is_kept_aside_and_said(tmp_path: Path) -> None:
    """Tried: a watchlist of 150 instruments (the cap is 100): before, 50 were dropped without a word."""
    path = watchlist_path(tmp_path, "local")
    names = [f"X{i}-PERP" for i in range(150)]
    path.write_text(json.dumps({"symbols": names}))
    watched = Watchlist.load(path)
    assert watched.symbols == names[:MAX_WATCHED] and "holds 150 instruments" in watched.problem
    assert json.loads(_aside(path).read_text())["symbols"] == names
    assert Watchlist.load(path).symbols == names[:MAX_WATCHED]


def test_a_file_that_cannot_be_moved_aside_is_never_written_over(tmp_path: Path) -> None:
    """Tried: a bad file whose aside names are all taken (the rename cannot happen). The notice says it was left
    as it is, and no save replaces it: the trader's file is not lost."""
    path = alerts_path(tmp_path, "local")
    path.write_text("{not json")
    now = int(__import__("time").time())
    for stamp in range(now, now + 3):
        (tmp_path / f"{path.name}.bad-{stamp}").write_text("")
        for n in range(2, 100):
            (tmp_path / f"{path.name}.bad-{stamp}-{n}").write_text("")
    book = AlertBook.load(path)
    assert "nor moved aside" in book.problem and "nothing is saved over it" in book.problem
    with pytest.raises(NotKept):
        book.put(Alert(1, "BTC-PERP", "last", "above", D(1)))
    assert book.alerts == [] and path.read_text() == "{not json"


def _blocked(path: Path) -> Path:
    """Writes to ``path`` fail as on a read-only data dir, even for root (which chmod does not stop): the file is
    moved to ``real`` and a link to it put in its place, which a save never replaces nor writes through."""
    real = path.with_name("real")
    path.rename(real)
    path.symlink_to(real)
    return real


def test_an_alert_fires_even_when_its_file_cannot_be_written(tmp_path: Path) -> None:
    """Tried: the alerts file cannot be written (as with a read-only data dir), and an alert fires. Before, the
    save's OSError came out of ``check``: no notice, no bell, and the alert disarmed for the session unseen.
    Now it is returned, stays disarmed in memory (it fired), ``not_saved`` says why; a later save writes it."""
    path = alerts_path(tmp_path, "local")
    book = AlertBook.load(path)
    book.put(Alert(1, "BTC-PERP", "last", "above", D(100)))
    book.put(Alert(2, "BTC-PERP", "last", "below", D(50)))
    blocked = _blocked(path)
    [fired] = book.check({("BTC-PERP", "last"): D(101)}, 0)
    assert fired.alert.id == 1 and "it is a symbolic link, not a regular file" in book.not_saved
    assert [a.armed for a in book.alerts] == [False, True]  # right in memory
    assert book.check({("BTC-PERP", "last"): D(102)}, 1) == []  # fired once, not again
    with pytest.raises(OSError):
        book.remove(2)  # an edit that cannot be saved is not made
    assert [a.id for a in book.alerts] == [1, 2]
    blocked.replace(path)
    book.toggle(2)  # the next save writes the whole state, the fired alert's included
    assert book.not_saved == "" and [a.armed for a in AlertBook.load(path).alerts] == [False, False]


def test_a_data_dir_that_is_a_file_starts_empty_and_says_so_on_save(tmp_path: Path) -> None:
    """Tried: the data dir's path is a file. Loading finds no alerts (nothing to set aside); a save says why."""
    (tmp_path / "data").write_text("")
    book = AlertBook.load(alerts_path(tmp_path / "data", "local"))
    assert book.alerts == [] and book.problem == ""
    with pytest.raises(OSError):
        book.put(Alert(1, "BTC-PERP", "last", "above", D(1)))
    assert book.alerts == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_any_bytes_load_or_are_set_aside(tmp_path: Path, data: bytes) -> None:
    """Property: whatever bytes the file holds, loading never raises; either they are alerts, or the file is set
    aside with the same bytes."""
    path = tmp_path / f"alerts-{os.getpid()}.json"
    for old in tmp_path.glob(path.name + "*"):
        old.unlink()
    path.write_bytes(data)
    book = AlertBook.load(path)
    if book.problem:
        assert _aside(path).read_bytes() == data
    else:
        assert path.read_bytes() == data


_ANY = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
_GOOD = {
    "id": [1, 2, 10**9],
    "symbol": ["BTC-PERP", "ETH/USDC"],
    "source": ["last", "mark", "index"],
    "condition": ["above", "below", "move"],
    "level": ["1", "0.5", "100", "1e999999999", 1.5],
    "window_s": [0, 60, 604_800],
    "bell": [True, False],
    "armed": [True, False],
}
_REQUIRED = ("id", "symbol", "source", "condition", "level")


def _mostly(good: list[object]) -> st.SearchStrategy[object]:
    """A good value nine times in ten, anything JSON holds else: so that some files load and what loads is
    checked."""
    return st.integers(0, 9).flatmap(lambda n: st.sampled_from(good) if n else _ANY)


_FIELDS = st.fixed_dictionaries(
    {key: _mostly(good) for key, good in _GOOD.items() if key in _REQUIRED},
    optional={key: _mostly(good) for key, good in _GOOD.items() if key not in _REQUIRED},
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(alerts=st.lists(_FIELDS, max_size=4))
def test_any_alert_fields_load_within_bounds_or_are_set_aside(tmp_path: Path, alerts: list[dict[str, object]]) -> None:
    """Property: an alerts file of any fields of any JSON type either loads alerts that are each within bounds and
    describe themselves in a short line (what fires and is shown), or is set aside whole with a notice."""
    path = tmp_path / f"alerts-{os.getpid()}.json"
    for old in tmp_path.glob(path.name + "*"):
        old.unlink()
    text = json.dumps({"alerts": alerts})
    path.write_text(text)
    book = AlertBook.load(path)
    if book.problem:
        assert book.alerts == [] and _aside(path).read_text() == text
        return
    for alert in book.alerts:
        assert 0 < alert.level <= 10**15 and len(alert.describe()) < 120
        fired = book.check({(alert.symbol, alert.source): alert.level}, 0)
        assert all(len(f.text()) < 200 for f in fired)
