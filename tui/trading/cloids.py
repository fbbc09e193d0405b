"""The one client-order-id scheme: ``<prefix>[<run>x]<stamp>-<leg><n>``, the prefix naming the tool that placed it.

``run`` is the tool's own run (a chase's or a TWAP's id), ``n`` the order's number in that run (or in its batch),
``leg`` a letter for tools with two kinds of order (OCO: ``t``/``s``). The stamp is this process's: the wall clock
in ms when first drawn, then strictly increasing, so two cloids of one session never repeat and a later session's
do not repeat an earlier one's (a settle reads an order back by its cloid: a repeat would read the wrong order).
Nothing else makes a cloid; ``tool_forms.tool_of`` reads the chase and OCO ones back.
"""

from __future__ import annotations

import threading
import time
from typing import Literal

import msgspec

from .orders import OrderPlan

__all__ = ["PREFIXES", "Tool", "make_cloid", "next_stamp", "tool_named", "with_tool_cloids"]

Tool = Literal["order", "group", "scale", "panic", "reverse", "amend", "twap", "chase", "oco", "trailing"]
PREFIXES: dict[Tool, str] = {
    "order": "xt", "group": "ex", "scale": "sc", "panic": "pa", "reverse": "rv", "amend": "am", "twap": "tw",
    "chase": "ch", "oco": "oc", "trailing": "tr",
}  # fmt: skip
STAMP_MOD = 10**10  # ms, ~115 days: short ids, and a repeat only across sessions that far apart

_lock = threading.Lock()
_last = 0


def next_stamp() -> int:
    """This session's next stamp: the wall clock's ms (mod ``STAMP_MOD``), or one more than the last, if larger."""
    global _last
    with _lock:
        _last = max(_last + 1, time.time_ns() // 1_000_000 % STAMP_MOD)
        return _last


def tool_named(prefix: str) -> Tool:
    """The tool whose cloids start with ``prefix``; ``ValueError`` for a prefix no tool has."""
    for tool, known in PREFIXES.items():
        if known == prefix:
            return tool
    raise ValueError(f"no tool places cloids with the prefix {prefix!r}")


def make_cloid(tool: Tool, n: int, *, run: int | None = None, leg: str = "", stamp: int | None = None) -> str:
    """A new cloid of ``tool``: ``ch3x1712345678-2`` is chase 3's second order."""
    stamp = next_stamp() if stamp is None else stamp
    return f"{PREFIXES[tool]}{'' if run is None else f'{run}x'}{stamp}-{leg}{n}"


def with_tool_cloids(plans: list[OrderPlan], tool: Tool, *, run: int | None = None) -> list[OrderPlan]:
    """``plans``, each without a cloid given one of ``tool`` (one stamp for the batch, numbered from 1)."""
    if all(p.cloid for p in plans):
        return list(plans)
    stamp = next_stamp()
    return [
        p if p.cloid else msgspec.structs.replace(p, cloid=make_cloid(tool, n, run=run, stamp=stamp))
        for n, p in enumerate(plans, 1)
    ]
