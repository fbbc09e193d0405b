"""The figures of the diagnostics overlay, live: what ``xtui bench`` measures, read once a second.

Each figure comes from a probe (``Probes``): the app's frame meter (a refresh tick of the panes to the frame
that shows it), the bytes the terminal driver wrote, the process's CPU time and resident memory, the feed's
pushes by channel and the rate governor's budget. ``Diagnostics.sample`` reads them all and turns counts into
rates over the time since the previous sample (the first one: since the app started). Tests pin the probes.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

import msgspec

from tui.api.limits import GovernorStatus

__all__ = [
    "Diagnostics",
    "Figures",
    "FrameMeter",
    "FrameStats",
    "Probes",
    "ProcessUsage",
    "TerminalBytes",
    "process_usage",
]

MIN_WINDOW_S = 0.5  # a sample closer than this to the previous one keeps the figures as they are


class TerminalBytes:
    """Bytes written to the terminal (UTF-8, as the terminal receives them), counted by the output driver."""

    def __init__(self) -> None:
        self.total = 0
        self.attached = False  # a driver counts into it (none does while headless)
        self.queued: Callable[[], int] = lambda: 0  # writes the driver holds that the terminal has not taken

    def add(self, text: str) -> None:
        self.total += len(text) if text.isascii() else len(text.encode("utf-8", "replace"))

    def read(self) -> int | None:
        """The bytes so far, or None while no driver counts them."""
        return self.total if self.attached else None


class FrameStats(msgspec.Struct, frozen=True):
    """Frames measured so far, their total time, and the slowest since the previous ``FrameMeter.take``."""

    count: int
    total_s: float
    worst_s: float


class FrameMeter:
    """Times frames: ``begin`` when the panes start re-reading the state, ``end`` once the screen has drawn
    what they changed (Textual's ``call_after_refresh``)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self._count = 0
        self._total = 0.0
        self._worst = 0.0

    def begin(self) -> float:
        return self._clock()

    def end(self, started: float) -> None:
        took = max(0.0, self._clock() - started)
        self._count += 1
        self._total += took
        self._worst = max(self._worst, took)

    def take(self) -> FrameStats:
        """The figures so far; the slowest frame starts again from here."""
        stats = FrameStats(self._count, self._total, self._worst)
        self._worst = 0.0
        return stats


class ProcessUsage(msgspec.Struct, frozen=True):
    cpu_s: float  # user + system, every thread (the built-in exchange's included)
    rss_bytes: int | None  # resident memory now; None where /proc is not there


def process_usage() -> ProcessUsage:
    """This process's CPU seconds (``os.times``) and resident memory (``/proc/self/statm``)."""
    times = os.times()
    try:
        resident_pages = int(Path("/proc/self/statm").read_text().split()[1])
        rss: int | None = resident_pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        rss = None
    return ProcessUsage(times.user + times.system, rss)


class Probes(msgspec.Struct):
    """Where each figure comes from. ``written`` is None when nothing counts the terminal's bytes (headless)."""

    messages: Callable[[], Mapping[str, int]]  # feed pushes received so far, by channel
    rate: Callable[[], GovernorStatus]
    frames: Callable[[], FrameStats]
    written: Callable[[], int | None]
    process: Callable[[], ProcessUsage] = process_usage
    clock: Callable[[], float] = time.perf_counter


class Figures(msgspec.Struct, frozen=True):
    """One sample: rates over ``window_s`` seconds."""

    window_s: float
    frames_per_s: float
    frame_ms: float | None  # mean frame time over the window; None: no frame in it
    worst_frame_ms: float | None
    bytes_per_s: float | None  # None: not counted here (headless, or not a POSIX terminal)
    cpu_pct: float  # of one core
    rss_bytes: int | None
    messages_per_s: dict[str, float] = msgspec.field(default_factory=dict)  # by channel, busiest first
    rate: GovernorStatus | None = None

    @property
    def total_messages_per_s(self) -> float:
        return sum(self.messages_per_s.values())


class _Reading(msgspec.Struct):
    at: float
    frames: FrameStats
    written: int | None
    process: ProcessUsage
    messages: Counter[str]


class Diagnostics:
    """Samples ``probes``; the first sample's rates count from when this was made (the app's start)."""

    def __init__(self, probes: Probes) -> None:
        self.probes = probes
        self._last = self._read()
        self.figures: Figures | None = None

    def _read(self) -> _Reading:
        p = self.probes
        return _Reading(p.clock(), p.frames(), p.written(), p.process(), Counter(p.messages()))

    def sample(self) -> Figures | None:
        """New figures, or the last ones when less than ``MIN_WINDOW_S`` passed since the previous sample."""
        if self.figures is not None and self.probes.clock() - self._last.at < MIN_WINDOW_S:
            return self.figures
        before, now = self._last, self._read()
        window = now.at - before.at
        if window <= 0:
            return self.figures
        frames = now.frames.count - before.frames.count
        frame_time = now.frames.total_s - before.frames.total_s
        written = None if now.written is None or before.written is None else now.written - before.written
        messages = {ch: (n - before.messages.get(ch, 0)) / window for ch, n in now.messages.most_common()}
        self.figures = Figures(
            window_s=window,
            frames_per_s=frames / window,
            frame_ms=frame_time / frames * 1000 if frames else None,
            worst_frame_ms=now.frames.worst_s * 1000 if frames else None,
            bytes_per_s=written / window if written is not None else None,
            cpu_pct=100 * (now.process.cpu_s - before.process.cpu_s) / window,
            rss_bytes=now.process.rss_bytes,
            messages_per_s=dict(sorted(messages.items(), key=lambda kv: (-kv[1], kv[0]))),
            rate=self.probes.rate(),
        )
        self._last = now
        return self.figures
