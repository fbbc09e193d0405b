"""What the protective tools keep on disk so that they outlive the terminal: each running trailing stop (what it
trails, the peak it has seen, the stop it keeps on the exchange), per profile and account.

The file is JSON (``tools-<profile>.json``), written whole and atomically at every change of a trail (a temporary
file, then a rename), read within limits (16 KiB, nested at most 6 deep, at most ``MAX_KEPT`` trails) and checked
field by field: a file that cannot be read, or holds a bad entry, is moved aside with a notice, never written over,
never half-used. On the next start xtui finds each kept trail's stop on the exchange by its cloid and asks once to
resume it (``tui.ui.resume``).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import msgspec

from tui.feed.kept_files import KeptFile, read_kept
from tui.paths import profile_file

from .trail_plan import TrailSpec

__all__ = ["MAX_KEPT", "KeptTrail", "ToolBook", "tool_book_path"]

MAX_KEPT = 32
MAX_FILE_BYTES = 16 << 10
VERSION = 1
_ACCOUNT = re.compile(r"0x[0-9a-fA-F]{40}")
_SYMBOL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,39}")
_CLOID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_BIG = Decimal(10) ** 15


class KeptTrail(msgspec.Struct, frozen=True):
    """A trailing stop as kept: enough to find its stop on the exchange and go on trailing from where it was."""

    account: str
    id: int
    spec: TrailSpec
    peak: Decimal | None
    cloid: str  # its stop's
    trigger: Decimal
    size: Decimal

    def words(self) -> str:
        extreme = self.spec.extreme
        peak = f", {extreme} {self.peak.normalize():f}" if self.peak is not None else ""
        return (
            f"trailing stop {self.id}: {self.spec.side.upper()} {self.size.normalize():f} {self.spec.symbol} stop at"
            f" {self.trigger.normalize():f}, {self.spec.distance_words} behind the {self.spec.source}{peak}"
        )


def tool_book_path(data_dir: Path, profile: str) -> Path:
    """Where a profile's kept tools live: ``<data dir>/tools-<profile>.json``."""
    return profile_file(data_dir, "tools", profile)


def _number(raw: object, what: str, *, positive: bool = True) -> Decimal:
    if not isinstance(raw, str) or len(raw) > 40:
        raise ValueError(f"{what}: expected a number written as a string")
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise ValueError(f"{what}: {raw[:20]!r} is not a number") from None
    if not value.is_finite() or abs(value) >= _BIG or (positive and value <= 0):
        raise ValueError(f"{what}: {raw[:20]!r} is out of range")
    return value


def _trail(raw: object) -> KeptTrail:
    """One kept trail from the file's JSON; ValueError naming what is wrong."""
    fields = {"account", "id", "symbol", "side", "distance", "percent", "source", "peak", "cloid", "trigger", "size"}
    if not isinstance(raw, dict) or set(raw) != fields:
        raise ValueError(f"a trail has the fields {sorted(fields)}")
    account, symbol, cloid = raw["account"], raw["symbol"], raw["cloid"]
    if not isinstance(account, str) or not _ACCOUNT.fullmatch(account):
        raise ValueError("a trail's account is not an address")
    if not isinstance(symbol, str) or not _SYMBOL.fullmatch(symbol):
        raise ValueError("a trail's symbol is not an instrument name")
    if not isinstance(cloid, str) or not _CLOID.fullmatch(cloid):
        raise ValueError("a trail's cloid is not a client order id")
    if not isinstance(raw["id"], int) or isinstance(raw["id"], bool) or not 0 < raw["id"] < 1_000_000:
        raise ValueError("a trail's id is not a small whole number")
    if (
        raw["side"] not in ("buy", "sell")
        or raw["source"] not in ("mark", "last")
        or not isinstance(raw["percent"], bool)
    ):
        raise ValueError("a trail's side, source or percent is not one xtui writes")
    spec = TrailSpec(symbol, raw["side"], _number(raw["distance"], "distance"), raw["percent"], raw["source"])
    peak = None if raw["peak"] is None else _number(raw["peak"], "peak")
    return KeptTrail(
        account, raw["id"], spec, peak, cloid, _number(raw["trigger"], "trigger"), _number(raw["size"], "size")
    )


def _raw(t: KeptTrail) -> dict[str, Any]:
    return {
        "account": t.account, "id": t.id, "symbol": t.spec.symbol, "side": t.spec.side,
        "distance": str(t.spec.distance), "percent": t.spec.percent, "source": t.spec.source,
        "peak": None if t.peak is None else str(t.peak), "cloid": t.cloid, "trigger": str(t.trigger),
        "size": str(t.size),
    }  # fmt: skip


class ToolBook:
    """A profile's kept tools and their file."""

    def __init__(self, path: Path, trails: list[KeptTrail] | None = None, problem: str = "") -> None:
        self.path = path
        self.trails = trails or []
        self.file = KeptFile(path, problem)

    @property
    def problem(self) -> str:
        """Why the file was set aside at start (and where it went), for the trader to see; "" when it was read."""
        return self.file.problem

    @classmethod
    def load(cls, path: Path) -> ToolBook:
        """The tools kept in ``path``; a file that cannot be read, or holds a bad entry, is set aside with a notice."""
        book = cls(path)
        try:
            raw = read_kept(path, MAX_FILE_BYTES, max_depth=6)
            if raw is None:
                return book
            if not isinstance(raw, dict) or raw.get("version") != VERSION or not isinstance(raw.get("trails"), list):
                raise ValueError(f'expected {{"version": {VERSION}, "trails": [...]}}')
            if len(raw["trails"]) > MAX_KEPT:
                raise ValueError(f"more than {MAX_KEPT} trails")
            book.trails = [_trail(t) for t in raw["trails"]]
        except (OSError, ValueError) as exc:  # UnicodeDecodeError and the JSON and limit errors are ValueErrors
            book.file.aside(exc)
        return book

    def of(self, account: str) -> list[KeptTrail]:
        """The trails kept for ``account``."""
        return [t for t in self.trails if t.account.lower() == account.lower()]

    def keep(self, account: str, trails: list[KeptTrail]) -> None:
        """``account``'s trails are now ``trails`` (the others' stay as they are); saved at once (OSError if not)."""
        others = [t for t in self.trails if t.account.lower() != account.lower()]
        kept = (others + trails)[-MAX_KEPT:]
        if kept == self.trails:
            return
        self.file.write({"version": VERSION, "trails": [_raw(t) for t in kept]})
        self.trails = kept
