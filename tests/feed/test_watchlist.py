"""The watchlist's file: kept per profile, in order, each instrument once; a file that cannot be read is moved
aside with the reason, never overwritten; a change that cannot be saved is not shown as made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.feed.watchlist import MAX_WATCHED, Watchlist, watchlist_path


def test_kept_per_profile_in_order(tmp_path: Path) -> None:
    path = watchlist_path(tmp_path, "My Desk")
    assert path.name == "watchlist-my_desk.json"
    watched = Watchlist.load(path)
    assert watched.symbols == [] and not watched.problem and not path.exists()
    assert watched.add("BTC-PERP") and watched.add("ETH-PERP") and watched.add("BTC/USDC")
    assert not watched.add("ETH-PERP")  # once
    assert watched.move("BTC/USDC", -1) and not watched.move("BTC-PERP", -1) and not watched.move("NOPE", 1)
    assert watched.remove("BTC-PERP") and not watched.remove("BTC-PERP")
    assert json.loads(path.read_text()) == {"symbols": ["BTC/USDC", "ETH-PERP"]}
    assert Watchlist.load(path).symbols == ["BTC/USDC", "ETH-PERP"]
    assert Watchlist.load(watchlist_path(tmp_path, "other")).symbols == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{not json", "could not be read"),
        ('{"symbols": "BTC-PERP"}', 'expected {"symbols": [...]}'),
        ('{"symbols": ["BTC-PERP", 7]}', "7 is not an instrument name"),
        ('{"symbols": ["BTC PERP; rm"]}', "is not an instrument name"),
    ],
)
def test_a_bad_file_is_moved_aside_never_lost(tmp_path: Path, text: str, said: str) -> None:
    path = watchlist_path(tmp_path, "LOCAL")
    path.write_text(text)
    watched = Watchlist.load(path)
    assert watched.symbols == [] and said in watched.problem and not path.exists()
    [aside] = tmp_path.glob("watchlist-local.json.bad-*")
    assert aside.read_text() == text and aside.name in watched.problem
    watched.add("BTC-PERP")  # a new list is saved beside what was moved aside
    assert aside.read_text() == text and Watchlist.load(path).symbols == ["BTC-PERP"]


def test_a_change_that_cannot_be_saved_is_undone(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    watched = Watchlist(blocked / "watchlist-local.json", ["BTC-PERP"])
    with pytest.raises(OSError):
        watched.add("ETH-PERP")
    assert watched.symbols == ["BTC-PERP"]
    with pytest.raises(OSError):
        watched.remove("BTC-PERP")
    assert watched.symbols == ["BTC-PERP"]


def test_at_most_max_watched(tmp_path: Path) -> None:
    watched = Watchlist(tmp_path / "w.json", [f"X{i}-PERP" for i in range(MAX_WATCHED)])
    with pytest.raises(ValueError, match="at most"):
        watched.add("BTC-PERP")
    assert len(watched.symbols) == MAX_WATCHED
