"""xtui over a slow link: key to visible at the far end, the link's backlog and bytes a second.

``xtui`` (the built-in exchange: its market moves all the time) runs in a real pty, as in ``terminal``; what it
writes reaches the reader through ``Link``, a relay that holds a chosen bandwidth and round trip as an SSH
connection would: it takes bytes from the pty only while its send buffer (``WINDOW``) has room, sends them at
the bandwidth, and each arrives half a round trip after it was sent. When xtui writes faster than the link
carries, the buffer fills, the relay stops reading, the pty write blocks and xtui's driver sees its writes
queue up (what ``tui.ui.render.pacing`` draws less on).

At the far end a trader presses ``g`` (the book's grouping) every ``KEY_EVERY_S``; the key reaches xtui half a
round trip later, and it is visible when the far end's screen (``ScreenText``, fed what has arrived) shows the book's
new title (``×10``, ``×100``): a frame writes only the cells that changed, so the bytes need not hold the title.
The backlog (bytes in the relay not sent yet) is sampled every 100 ms: flat means the link keeps up.
"""

from __future__ import annotations

import os
import re
import select
import statistics
import sys
import time
from collections import deque
from dataclasses import dataclass, field

from .screen_text import ScreenText
from .terminal import FULL_FRAME, _xtui_in_pty

__all__ = ["Link", "SlowLinkRun", "measure_slow_link"]

WINDOW = 16 * 1024  # bytes the relay takes before it stops reading the pty (a TCP send buffer's order)
SEGMENT = 1448  # bytes a packet carries (a TCP segment over Ethernet)
KEY_EVERY_S = 1.0
KEY = b"g"
GROUPINGS = (1, 10, 100)  # the book's groupings, in the order ``g`` cycles them (tui.ui.widgets.book)
SAMPLE_S = 0.1  # the backlog is sampled this often
SETTLE_S = 5.0  # after the first full frame: the first frame's bytes out of the link before measuring


class Link:
    """A link of ``bandwidth`` bytes a second and ``rtt`` seconds round trip, fed by ``send``."""

    def __init__(self, bandwidth: float, rtt: float, window: int = WINDOW) -> None:
        self.bandwidth = bandwidth
        self.rtt = rtt
        self.window = window
        self._free_at = 0.0  # when the link has sent everything given to it so far
        self._in_flight: deque[tuple[float, float, bytes]] = deque()  # (sent by, arrives at, bytes)

    def backlog(self, now: float) -> int:
        """Bytes given to the link and not sent yet (a chunk being sent counts for what is left of it)."""
        left = 0
        for sent_by, _, data in self._in_flight:
            if sent_by > now:
                left += min(len(data), round((sent_by - now) * self.bandwidth))
        return left

    def room(self, now: float) -> int:
        return max(0, self.window - self.backlog(now))

    def send(self, data: bytes, now: float) -> None:
        """Send ``data`` in segments (``SEGMENT``), each arriving as soon as it is through, as over TCP."""
        for at in range(0, len(data), SEGMENT):
            part = data[at : at + SEGMENT]
            sent_by = max(self._free_at, now) + len(part) / self.bandwidth
            self._free_at = sent_by
            self._in_flight.append((sent_by, sent_by + self.rtt / 2, part))

    def arrived(self, now: float) -> bytes:
        """What has reached the far end by ``now`` and was not taken yet."""
        out = bytearray()
        while self._in_flight and self._in_flight[0][1] <= now:
            out += self._in_flight.popleft()[2]
        return bytes(out)


@dataclass
class SlowLinkRun:
    kbit: float
    rtt_ms: float
    seconds: float
    delivered: int = 0
    key_ms: list[float] = field(default_factory=list)
    out_ms: list[float] = field(default_factory=list)  # key reaching xtui -> its mark shown by what xtui wrote
    ahead: list[int] = field(default_factory=list)  # bytes on the link up to the mark: its backlog + xtui's answer
    backlog: list[int] = field(default_factory=list)  # bytes, every SAMPLE_S

    @property
    def bytes_per_s(self) -> float:
        return self.delivered / self.seconds

    def p(self, q: int, values: list[float] | None = None) -> float:
        values = self.key_ms if values is None else values
        if len(values) < 2:
            return values[0] if values else float("nan")
        return statistics.quantiles(values, n=100, method="inclusive")[q - 1]

    def backlog_trend(self) -> tuple[float, float]:
        """The mean backlog over the first and the last fifth of the run (bytes)."""
        n = max(1, len(self.backlog) // 5)
        return statistics.fmean(self.backlog[:n] or [0]), statistics.fmean(self.backlog[-n:] or [0])


def measure_slow_link(
    seconds: float, kbit: float, rtt_ms: float, size: tuple[int, int] = (160, 48), extra_args: tuple[str, ...] = ()
) -> SlowLinkRun:
    """Run ``xtui`` behind a ``kbit`` kbit/s link with ``rtt_ms`` round trip for ``seconds`` after its first full
    frame (and ``SETTLE_S``), pressing ``g`` every ``KEY_EVERY_S`` at the far end."""
    link = Link(kbit * 1000 / 8, rtt_ms / 1000)
    run = SlowLinkRun(kbit, rtt_ms, seconds)
    with _xtui_in_pty(size, extra_args) as (_, master):
        far = bytearray()
        found: set[bytes] = set()
        keys: deque[tuple[float, bytes]] = deque()  # (reaches xtui at, key)
        pending: tuple[float, re.Pattern[str]] | None = None  # (typed at, the title it should bring)
        near_screen, far_screen = ScreenText(*size), ScreenText(*size)  # as xtui wrote it, as the far end shows it
        grouping = 0  # index in GROUPINGS
        started = measuring = end = next_key = next_sample = 0.0
        deadline = time.perf_counter() + 60.0

        near = [0]  # bytes xtui wrote since the key reached it, until its mark is out
        reached: list[float] = []  # when the pending key reached xtui, once it has
        backlog_then: list[int] = []  # the link's backlog then

        def pump(now: float) -> bytes:
            ready, _, _ = select.select([master], [], [], 0.002)
            room = link.room(now)
            if ready and room > 0:
                try:
                    chunk = os.read(master, min(room, 65536))
                except OSError:
                    chunk = b""
                if chunk:
                    link.send(chunk, time.perf_counter())
                    near_screen.feed(chunk)
                    if pending is not None and reached:
                        near[0] += len(chunk)
                        if near_screen.shows(pending[1]):
                            run.out_ms.append((time.perf_counter() - reached.pop()) * 1000)
                            run.ahead.append(backlog_then.pop() + near[0])
            if keys and keys[0][0] <= now and pending is not None:
                reached[:] = [now]
                backlog_then[:] = [link.backlog(now)]
                near[0] = 0
            while keys and keys[0][0] <= now:
                os.write(master, keys.popleft()[1])
            arrived = link.arrived(time.perf_counter())
            far_screen.feed(arrived)
            return arrived

        while True:
            now = time.perf_counter()
            got = pump(now)
            if not measuring:  # the first full frame, then a few seconds for its bytes to get through
                far += got
                found.update(m for m in FULL_FRAME if m in far)
                if len(found) == len(FULL_FRAME) and not started:
                    started = now
                if started and now - started >= SETTLE_S:
                    measuring, end = now, now + seconds
                    next_key = next_sample = now
                    far.clear()
                if now > deadline and not started:
                    raise TimeoutError("xtui drew no full frame through the link in time")
                continue
            if now >= end:
                break
            run.delivered += len(got)
            if pending is not None and far_screen.shows(pending[1]):
                run.key_ms.append((now - pending[0]) * 1000)
                pending = None
            if now >= next_sample:  # not in step with the keys: a sample just before each would see the link idle
                run.backlog.append(link.backlog(time.perf_counter()))
                next_sample += SAMPLE_S
            if now >= next_key and pending is None:
                grouping = (grouping + 1) % len(GROUPINGS)
                keys.append((now + link.rtt / 2, KEY))
                if GROUPINGS[grouping] != 1:  # "×10": the book's title; ×1 shows no mark to wait for
                    pending = (now, re.compile(f"\u00d7{GROUPINGS[grouping]}(?!\\d)"))
                next_key = now + KEY_EVERY_S
        run.seconds = time.perf_counter() - measuring
    return run


def report(run: SlowLinkRun, label: str = "") -> list[str]:
    first, last = run.backlog_trend()
    return [
        f"{run.kbit:g} kbit/s, {run.rtt_ms:g} ms round trip{label}: {run.bytes_per_s:,.0f} B/s over {run.seconds:.0f}s",
        f"  key to visible at the far end: p50 {run.p(50):.0f} ms, p99 {run.p(99):.0f} ms ({len(run.key_ms)} keys;"
        f" goal p50 <= {run.rtt_ms + 40:.0f} ms)",
        f"  of which in xtui (key in -> its mark written to the pty): p50 {run.p(50, run.out_ms):.0f} ms;"
        f" bytes on the link up to the mark: p50 {run.p(50, [float(b) for b in run.ahead]):,.0f}",
        f"  link backlog (mean): first fifth {first:,.0f} B, last fifth {last:,.0f} B;"
        f" most {max(run.backlog, default=0):,} B",
    ]


def main() -> None:  # python -m tui.bench.slow_link [SECONDS] [KBIT] [RTT_MS] [-- xtui args]
    args = sys.argv[1:]
    extra: tuple[str, ...] = ()
    if "--" in args:
        i = args.index("--")
        args, extra = args[:i], tuple(args[i + 1 :])
    seconds = float(args[0]) if args else 60.0
    kbit = float(args[1]) if len(args) > 1 else 256.0
    rtt = float(args[2]) if len(args) > 2 else 100.0
    run = measure_slow_link(seconds, kbit, rtt, extra_args=extra)
    print("\n".join(report(run, " " + " ".join(extra) if extra else "")))


if __name__ == "__main__":
    main()
