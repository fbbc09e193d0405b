"""What each patch of ``tui.ui.render`` kept for speed or bytes earns against Textual as it is: the default run
(``xtui``, built-in exchange, a real pty at 160x48) with every patch, then with each one left out (``XTUI_PLAIN``),
on the dashboard and with the order form open over it (a dialog: what is drawn behind it), and the start to the
first full frame. A patch whose gain is under 10% of its figure on all of them is not worth Textual's private API."""

from __future__ import annotations

import os
import statistics
import sys

__all__ = ["bench_render_patches"]

KEEP_FROM = 0.10  # a patch earns its place by at least this share of one figure


def _run(plain: str, seconds: float, starts: int) -> tuple[float, float, float, float]:
    """(B/s on the dashboard, B/s with the order form open, CPU % on the dashboard, start ms) with ``plain`` out."""
    from tui.bench.terminal import measure_default_run, start_to_full_frame

    os.environ["XTUI_PLAIN"] = plain  # the dashboard in the pty inherits it
    try:
        board = measure_default_run(seconds)
        form = measure_default_run(seconds, keys="b")
        start = statistics.median(start_to_full_frame() * 1000 for _ in range(starts))
    finally:
        os.environ.pop("XTUI_PLAIN", None)
    return board.bytes_per_s, form.bytes_per_s, board.cpu_pct, start


def _line(name: str, value: float, unit: str, note: str = "") -> None:
    sys.stdout.write(f"{name:<48} {value:>12,.1f} {unit}{'  ' + note if note else ''}\n")
    sys.stdout.flush()


def bench_render_patches(seconds: float, starts: int) -> None:
    from tui.ui.render import PATCHES

    base = _run("", seconds, starts)
    names = ("dashboard bytes", "order form open, bytes", "dashboard CPU", "start to full frame")
    units = ("B/s", "B/s", "%", "ms")
    for name, value, unit in zip(names, base, units, strict=True):
        _line(f"render, every patch: {name}", value, unit)
    for patch, what in PATCHES.items():
        without = _run(patch, seconds, starts)
        gains = [(w - b) / w if w else 0.0 for b, w in zip(base, without, strict=True)]
        for name, value, unit, gain in zip(names, without, units, gains, strict=True):
            _line(f"  without {patch}: {name}", value, unit, f"(the patch saves {gain:+.0%})")
        verdict = "earns its place" if max(gains) >= KEEP_FROM else "under 10% on every figure"
        sys.stdout.write(f"  {patch} ({what}): {verdict}\n")
