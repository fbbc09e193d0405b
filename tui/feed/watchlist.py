"""The watchlist: the instruments a trader picked to see at a glance, in the trader's order, kept on disk per
profile so they survive a restart.

The file is JSON (``{"symbols": ["BTC-PERP", ...]}``), written whole and atomically (a temporary file, then a
rename), read within limits (64 KiB, nested at most 8 deep, names of at most 40 characters). A file that cannot be
read is never overwritten: it is moved aside (``watchlist-NAME.json.bad-<time>``) and ``Watchlist.problem`` says
where, for the dashboard to show, as price alerts do. A file of more than ``MAX_WATCHED`` instruments is moved
aside whole, the first ``MAX_WATCHED`` are loaded and written back, and the trader is told.
"""

from __future__ import annotations

import re
from pathlib import Path

from tui.paths import profile_file

from .kept_files import KeptFile, KeptStore

__all__ = ["MAX_WATCHED", "SYMBOL_RE", "Watchlist", "watchlist_path"]

MAX_WATCHED = 100
MAX_FILE_BYTES = 64 << 10  # 100 names of 40 characters take ~5 KB
SYMBOL_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,39}")  # an instrument name as the exchange writes it


def watchlist_path(data_dir: Path, profile: str) -> Path:
    """Where a profile's watchlist lives: ``<data dir>/watchlist-<profile>.json``."""
    return profile_file(data_dir, "watchlist", profile)


def _symbols(raw: object) -> list[str]:
    """The instrument names of a watchlist file's JSON; ValueError naming what is wrong."""
    if not isinstance(raw, dict) or set(raw) != {"symbols"} or not isinstance(raw["symbols"], list):
        raise ValueError('expected {"symbols": [...]}')
    out: list[str] = []
    for item in raw["symbols"]:
        if not isinstance(item, str) or not SYMBOL_RE.fullmatch(item):
            shown = repr(item)
            raise ValueError(f"{shown if len(shown) <= 44 else shown[:40] + '...'} is not an instrument name")
        if item not in out:  # the same name twice is watched once
            out.append(item)
    return out


class Watchlist(KeptStore):
    """A profile's watched instruments (in order) and their file."""

    def __init__(self, path: Path, symbols: list[str] | None = None, problem: str = "") -> None:
        self.path = path
        self.symbols = symbols or []
        self.file = KeptFile(path, problem)

    @classmethod
    def load(cls, path: Path) -> Watchlist:
        """The watchlist in ``path``; a file that cannot be read, or holds too many, is set aside with a notice."""
        watched = cls(path)
        symbols = watched.file.load(_symbols, MAX_FILE_BYTES) or []
        watched.symbols = symbols[:MAX_WATCHED]
        if len(symbols) > MAX_WATCHED:
            watched.file.over_cap(len(symbols), MAX_WATCHED, "instruments", watched.save)
        return watched

    def save(self) -> None:
        """Write the list; OSError (``NotKept`` when the unread file must not be written over) if it cannot."""
        self.file.write({"symbols": self.symbols})

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
