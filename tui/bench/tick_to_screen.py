"""Tick to screen: from a book or trade message reaching the feed to the frame that shows it.

Runs in the dashboard probe's child process (``python -m tui.bench.dashboard_probe tick SECONDS RATE...``): the
app headless at the probe's size on a quiet built-in exchange, and book and trade messages put into the
feed's handlers at each rate, as its socket reader would. Each message is dated when it reaches the feed; a
message is on screen with the first frame painted after a refresh of its pane began (``call_after_refresh``
of the book or tape pane), and its tick to screen is that frame's time less its own.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.ui.app import XtuiApp

__all__ = ["tick_stage"]

BATCH = 64  # messages handled per loop turn while behind, as a socket reader drains a full buffer


def _percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


async def tick_stage(
    app: XtuiApp, rate: int, seconds: float, frames: tuple[bytes, list[tuple[bool, bytes]]]
) -> dict[str, Any]:
    """``rate`` messages a second for ``seconds``; the tick-to-screen p50, p99 and max in ms."""
    from tui.bench.feed import dated_frame as dated
    from tui.ui.widgets.book import OrderBookPane
    from tui.ui.widgets.tape import TradeTapePane

    feed = app.feed
    snapshot, stream = frames
    arrived: dict[bool, list[float]] = {True: [], False: []}  # is_book -> arrival times, not yet on screen
    latencies: list[float] = []

    def shown(is_book: bool, count: int) -> None:
        """The first ``count`` messages waiting for this pane are in the frame just painted."""
        now = time.perf_counter()
        waiting = arrived[is_book]
        latencies.extend((now - t) * 1000 for t in waiting[:count])
        del waiting[:count]

    def timed(pane: Any, is_book: bool) -> None:
        draw = pane.refresh_state

        def refresh_state() -> None:
            count = len(arrived[is_book])  # what this refresh reads: everything arrived so far
            draw()
            pane.call_after_refresh(shown, is_book, count)

        pane.refresh_state = refresh_state

    timed(app.main.query_one(OrderBookPane), True)
    timed(app.main.query_one(TradeTapePane), False)

    feed.frames.handle_book(dated(snapshot, True))
    await asyncio.sleep(0.3)
    arrived[True].clear()
    arrived[False].clear()
    latencies.clear()
    start = time.perf_counter()
    sent, i = 0, 0
    while (elapsed := time.perf_counter() - start) < seconds:
        due = min(int(elapsed * rate) - sent, BATCH)
        for _ in range(due):
            if i == len(stream):  # start the stream over from a fresh snapshot
                feed.frames.handle_book(dated(snapshot, True))
                i = 0
            is_book, raw = stream[i]
            i += 1
            (feed.frames.handle_book if is_book else feed.frames.handle_trades)(dated(raw, is_book))
            arrived[is_book].append(time.perf_counter())
        sent += max(0, due)
        await asyncio.sleep(0 if due == BATCH else 0.001)
    await asyncio.sleep(0.5)  # the last frames
    if not latencies:
        return {"rate": rate, "messages": sent, "p50": 0.0, "p99": 0.0, "max": 0.0}
    return {
        "rate": rate,
        "messages": sent,
        "achieved": sent / seconds,
        "p50": statistics.median(latencies),
        "p99": _percentile(latencies, 99),
        "max": max(latencies),
    }
