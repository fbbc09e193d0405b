"""What a paper-trading exchange says about the market it mirrors: the ``X-Xtui-Mirror`` response header.

``xtui sim --mirror URL`` runs the local exchange with its index and mark prices following another
exchange (the source), read-only. Every HTTP answer of such a mirror carries::

    X-Xtui-Mirror: live; source=https://api.example; age_ms=420
    X-Xtui-Mirror: stale; source=https://api.example; age_ms=12000; reason=connection refused

``live``: the last poll of the source succeeded, prices follow it. ``stale``: the source is unreachable
(or answered nonsense); the mirror's prices are frozen where the source last was, ``age_ms`` ago. An
exchange that is not a mirror sends no such header, which real SDK clients ignore anyway.

A live mirror may still hold some instruments, whose prices the source's answer made no sense for (a jump past
the bound in one poll, a mark far from its index, an instrument left out); it names them, and says why::

    X-Xtui-Mirror: live; source=https://api.example; age_ms=420; stale=BTC-PERP; reason=BTC-PERP: mark 100020 -> ...
"""

from __future__ import annotations

from typing import Literal

import msgspec

from tui.edges.safe_text import printable

__all__ = ["PAPER_HEADER", "PaperStatus", "parse_paper"]

PAPER_HEADER = "X-Xtui-Mirror"
MirrorState = Literal["live", "stale"]
_REASON_CHARS = 80
_STALE_NAMES = 20  # at most this many instruments named
_NAME_CHARS = 40


class PaperStatus(msgspec.Struct, frozen=True):
    """The mirror's state as its header says it."""

    state: MirrorState
    source: str
    age_ms: int = 0  # since the source last answered with prices
    reason: str = ""  # why it is stale, in words
    stale: tuple[str, ...] = ()  # the instruments whose prices are held while the rest follow the source

    @property
    def live(self) -> bool:
        return self.state == "live"

    def header_value(self) -> str:
        """The header's value: printable ASCII, one ``key=value`` per ``;``-separated part."""
        parts = [self.state, f"source={_clean(self.source)}", f"age_ms={max(0, self.age_ms)}"]
        if self.stale:
            parts.append("stale=" + ",".join(_clean(name).replace(",", " ") for name in self.stale[:_STALE_NAMES]))
        if self.reason:
            parts.append(f"reason={_clean(self.reason)[:_REASON_CHARS]}")
        return "; ".join(parts)


def _clean(text: str) -> str:
    return "".join(c if " " <= c <= "~" and c != ";" else " " for c in text).strip()


def parse_paper(value: str | None) -> PaperStatus | None:
    """What an ``X-Xtui-Mirror`` value says; None when absent, blank or not understood."""
    parts = [p.strip() for p in (value or "").split(";")]
    state = parts[0].lower()
    if state not in ("live", "stale"):
        return None
    fields: dict[str, str] = {}
    for part in parts[1:]:
        key, eq, val = part.partition("=")
        if eq:
            fields[key.strip().lower()] = val.strip()
    age = fields.get("age_ms", "0")
    # a header carries no ESC, but 0x80-0x9f read as Latin-1 are C1 controls: escaped as every outside text is
    names = [printable(n.strip(), _NAME_CHARS) for n in fields.get("stale", "").split(",")[:_STALE_NAMES]]
    return PaperStatus(
        "live" if state == "live" else "stale",
        printable(fields.get("source", "")),
        int(age) if age.isascii() and age.isdigit() and len(age) < 16 else 0,
        printable(fields.get("reason", "")),
        tuple(n for n in names if n),
    )
