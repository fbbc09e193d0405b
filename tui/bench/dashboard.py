"""The dashboard's figures for ``xtui bench``: start-up, keypress to order acknowledged, feed under keys, CPU.

Each figure is measured in a fresh process (``python -m tui.bench.dashboard_probe WHAT ...``, see there) that
runs the app headless and prints one JSON line, so interpreter start and imports count where they should, and
nothing a previous figure left behind (garbage-collector settings, threads, memory) colours the next. These
functions run in ``xtui bench`` and return what their child measured.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from tui.bench.dashboard_probe import BOOK_HZ, FEED_RATES, KEY_TARGET_MS

__all__ = [
    "BOOK_HZ",
    "FEED_RATES",
    "KEY_TARGET_MS",
    "dashboard_cpu",
    "feed_under_keys",
    "order_ack_ms",
    "startup_seconds",
    "tick_to_screen",
]


# ---- the parent side: spawn, collect -------------------------------------------------------------------


def _child(*args: str, timeout: float = 300.0) -> dict[str, Any]:
    """Run ``python -m tui.bench.dashboard_probe ARGS`` and return the JSON object it printed last."""
    done = subprocess.run(
        [sys.executable, "-m", "tui.bench.dashboard_probe", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr or done.stdout).strip().splitlines()[-15:]
        raise RuntimeError(f"dashboard_probe {args[0]} failed (exit {done.returncode}):\n" + "\n".join(tail))
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def startup_seconds(runs: int) -> list[dict[str, float]]:
    """Process launch to the first frame with the book, markets and account showing data, ``runs`` times."""
    out = []
    for _ in range(runs):
        launched = time.time()  # passed to the child: its clock starts before the interpreter does
        out.append(_child("startup", repr(launched)))
    return out


def order_ack_ms(repeats: int) -> dict[str, Any]:
    """Enter in the order form to the app's acknowledgement, in ms (one app, ``repeats`` orders)."""
    return _child("order", str(repeats))


def tick_to_screen(seconds: float, rates: Sequence[int]) -> dict[str, Any]:
    """A book or trade message reaching the feed to the frame that shows it, ``seconds`` at each of ``rates``."""
    return _child("tick", str(seconds), *map(str, rates), timeout=120 + 2 * seconds * len(rates))


def feed_under_keys(presses: int) -> dict[str, Any]:
    """Rising feed rates, each with ``presses`` keys timed; also the help screen's keys with no feed load."""
    return _child("feed", str(presses))


async def dashboard_cpu(url: str, seconds: float) -> dict[str, Any]:
    """% of one core the dashboard uses on ``url``, idle and while the book changes ``BOOK_HZ`` times a second."""
    return await asyncio.to_thread(_child, "cpu", url, str(seconds))
