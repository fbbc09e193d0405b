"""The watchlist: the instruments a trader picked to see at a glance, in the trader's order, kept on disk per
profile so they survive a restart.

The file is JSON (``{"symbols": ["BTC-PERP", ...]}``), written whole and atomically (a temporary file, then a
rename). A file that cannot be read is never overwritten: it is moved aside (``watchlist-NAME.json.bad-<time>``)
and the reason is kept in ``Watchlist.problem`` for the dashboard to show, as price alerts do.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tui.paths import profile_file

from .kept_files import set_aside, write_json

__all__ = ["MAX_WATCHED", "Watchlist", "watchlist_path"]

MAX_WATCHED = 100
_SYMBOL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,39}")  # an instrument name as the exchange writes it


def watchlist_path(data_dir: Path, profile: str) -> Path:
    """Where a profile's watchlist lives: ``<data dir>/watchlist-<profile>.json``."""
    return profile_file(data_dir, "watchlist", profile)


def _symbols(raw: object) -> list[str]:
    """The instrument names of a watchlist file's JSON; ValueError naming what is wrong."""
    if not isinstance(raw, dict) or not isinstance(raw.get("symbols"), list):
        raise ValueError('expected {"symbols": [...]}')
    out: list[str] = []
    for item in raw["symbols"]:
        if not isinstance(item, str) or not _SYMBOL.fullmatch(item):
            raise ValueError(f"{item!r} is not an instrument name")
        if item not in out:
            out.append(item)
    return out[:MAX_WATCHED]


class Watchlist:
    """A profile's watched instruments (in order) and their file."""

    def __init__(self, path: Path, symbols: list[str] | None = None, problem: str = "") -> None:
        self.path = path
        self.symbols = symbols or []
        self.problem = problem  # why the file could not be read (it was moved aside), for the trader to see

    @classmethod
    def load(cls, path: Path) -> Watchlist:
        if not path.exists():
            return cls(path)
        try:
            return cls(path, _symbols(json.loads(path.read_text(encoding="utf-8"))))
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            return cls(path, problem=set_aside(path, exc))

    def save(self) -> None:
        write_json(self.path, {"symbols": self.symbols})

    def __contains__(self, symbol: object) -> bool:
        return symbol in self.symbols

    def add(self, symbol: str) -> bool:
        """Watch ``symbol`` (last in the list); False when it already was. Saved at once (OSError if not)."""
        if symbol in self.symbols:
            return False
        if len(self.symbols) >= MAX_WATCHED:
            raise ValueError(f"at most {MAX_WATCHED} instruments in the watchlist")
        self.symbols = [*self.symbols, symbol]
        self._save_or_undo([s for s in self.symbols if s != symbol])
        return True

    def remove(self, symbol: str) -> bool:
        """Stop watching ``symbol``; False when it was not watched."""
        if symbol not in self.symbols:
            return False
        before = self.symbols
        self.symbols = [s for s in before if s != symbol]
        self._save_or_undo(before)
        return True

    def move(self, symbol: str, step: int) -> bool:
        """Move ``symbol`` ``step`` places (-1: up); False when it cannot move that way."""
        if symbol not in self.symbols:
            return False
        i = self.symbols.index(symbol)
        j = i + step
        if not 0 <= j < len(self.symbols):
            return False
        before = self.symbols
        moved = list(before)
        moved[i], moved[j] = moved[j], moved[i]
        self.symbols = moved
        self._save_or_undo(before)
        return True

    def _save_or_undo(self, before: list[str]) -> None:
        """Save; if the file cannot be written, the list is as it was (what is shown is what is kept)."""
        try:
            self.save()
        except OSError:
            self.symbols = before
            raise
