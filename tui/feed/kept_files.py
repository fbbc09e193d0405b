"""The files a profile keeps (price alerts, the watchlist): each written whole or not at all, read within limits
(``tui.edges.bounded_parse``), and one that cannot be read moved aside, never lost and never written over."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from tui.edges.bounded_parse import parse_json, read_capped
from tui.edges.regular_files import replace_with

__all__ = ["KeptFile", "KeptStore", "NotKept", "read_kept", "set_aside", "write_json"]

T = TypeVar("T")


class NotKept(OSError):
    """A change not saved because the file it would replace could not be read nor moved aside."""


def read_kept(path: Path, max_bytes: int, max_depth: int = 8) -> Any | None:
    """The JSON in ``path`` (None when there is no such file, or its directory is not one); ValueError when it is
    over a limit or not JSON, OSError when it cannot be read or is not a regular file (a link is not followed:
    xtui writes these files, and would replace the link, not write where it points)."""
    try:
        data = read_capped(path, max_bytes, follow=False)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return parse_json(data, max_depth)


def set_aside(path: Path) -> Path:
    """Move ``path`` aside, to ``NAME.bad-<time>`` (never over an earlier one); where it went, or OSError."""
    stamp = int(time.time())
    aside = path.with_name(f"{path.name}.bad-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        if n > 99:
            raise FileExistsError(f"{aside} and 98 more already exist")
        aside = path.with_name(f"{path.name}.bad-{stamp}-{n}")
    path.rename(aside)
    return aside


class KeptFile:
    """What a store knows of its file: why it was set aside and where (``problem``, for the trader to see), and
    whether saving is barred because it could not be (writing would lose the file that was not read)."""

    def __init__(self, path: Path, problem: str = "") -> None:
        self.path = path
        self.problem = problem
        self.barred = False

    def load(self, parse: Callable[[Any], T], max_bytes: int, max_depth: int = 8) -> T | None:
        """What ``parse`` makes of the file's JSON (a ValueError of its own: not what the file should hold); None
        when there is no file, or when it cannot be read or parsed: then it is set aside (``aside``)."""
        try:
            raw = read_kept(self.path, max_bytes, max_depth)
            return None if raw is None else parse(raw)
        except (OSError, ValueError) as exc:  # UnicodeDecodeError and the JSON and limit errors are ValueErrors
            self.aside(exc)
            return None

    def aside(self, why: object) -> None:
        """The file could not be read for ``why``: set it aside; the notice says where it went."""
        try:
            aside = set_aside(self.path)
        except OSError as exc:
            self._stuck(f"{self.path} could not be read ({why})", exc)
            return
        self.problem = f"{self.path} could not be read ({why}); it was kept as {aside}, and xtui goes on without it"

    def over_cap(self, count: int, cap: int, what: str, save: Callable[[], None]) -> None:
        """The file held ``count`` ``what``, more than the ``cap`` loaded from it: it is set aside whole and the
        ``cap`` loaded are written back with ``save``, so every one is kept and the trader is told where."""
        said = f"{self.path} holds {count:,} {what}, more than the {cap} xtui keeps"
        try:
            aside = set_aside(self.path)
        except OSError as exc:
            self._stuck(said, exc)
            return
        self.problem = f"{said}: all {count:,} were kept as {aside}, and the first {cap} are loaded"
        try:
            save()
        except OSError as exc:
            self.problem += f" (they could not be written back: {exc})"

    def _stuck(self, said: str, exc: OSError) -> None:
        self.problem = f"{said}, nor moved aside ({exc}): it is left as it is, and nothing is saved over it"
        self.barred = True

    def write(self, data: Any) -> None:
        """``data`` as the file's JSON; NotKept when barred, OSError when it cannot be written."""
        if self.barred:
            raise NotKept(f"not saved: {self.path} could not be read nor moved aside, and is not written over")
        write_json(self.path, data)


class KeptStore:
    """What a profile keeps in a file (``file``): alerts, the watchlist, layouts, indicators, tools."""

    file: KeptFile

    @property
    def problem(self) -> str:
        """Why the file was set aside at start (and where it went), for the trader to see; "" when it was read."""
        return self.file.problem


def write_json(path: Path, data: Any) -> None:
    """``data`` as JSON in ``path``, through a temporary file renamed over it (a crash leaves the old one);
    ``NotRegularFile`` (an OSError) when a link, a directory or a FIFO is in its place."""
    replace_with(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))
