"""Measure what a headless feed (default options) does when a real `xtui sim` process dies or freezes.

    .venv/bin/python -m tests.feed.measure_outages [--runs 5]

Prints, per run: the time from the restarted exchange saying it listens to the feed saying ``live`` again
(after 1 s and 5 s outages, kill -9), and the time from SIGSTOP to the feed leaving ``live`` and to it
taking the socket for dead.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import statistics

from tests.feed.sim_process import SimProcess, free_port, running_feed


async def outage(runs: int, down_s: float) -> list[float]:
    sim = SimProcess(free_port())
    await sim.start()
    feed, watcher, task, client = await running_feed(sim)
    status = feed.state.status
    figures = []
    try:
        for _ in range(runs):
            await sim.kill()
            await watcher.until(lambda: status.connection != "live", 30)
            await asyncio.sleep(down_s)  # the outage itself: real time is the point here
            returned = await sim.start()
            live = await watcher.until(lambda: status.connection == "live", 60)
            figures.append(live - returned)
    finally:
        await feed.stop()
        await task
        await client.aclose()
        await sim.stop()
    return figures


async def frozen(runs: int) -> list[tuple[float, float]]:
    sim = SimProcess(free_port())
    await sim.start()
    feed, watcher, task, client = await running_feed(sim)
    status = feed.state.status
    loop = asyncio.get_running_loop()
    figures = []
    try:
        for _ in range(runs):
            start = loop.time()
            sim.signal(signal.SIGSTOP)
            noticed = await watcher.until(lambda: status.connection != "live", 60)
            dead = await watcher.until(lambda: status.connection == "reconnecting", 60)
            sim.signal(signal.SIGCONT)
            await watcher.until(lambda: status.connection == "live", 60)
            figures.append((noticed - start, dead - start))
    finally:
        await feed.stop()
        await task
        await client.aclose()
        await sim.stop()
    return figures


def show(name: str, values: list[float]) -> None:
    cells = " ".join(f"{v:.2f}" for v in values)
    print(f"{name}: {cells}  (max {max(values):.2f} s, median {statistics.median(values):.2f} s)")


async def main(runs: int) -> None:
    for down in (1.0, 5.0):
        show(f"live again after a {down:.0f} s outage (s from the exchange's return)", await outage(runs, down))
    marks = await frozen(min(runs, 3))
    show("frozen exchange (SIGSTOP): not live after (s)", [a for a, _ in marks])
    show("frozen exchange (SIGSTOP): taken for dead after (s)", [b for _, b in marks])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    logging.disable(logging.WARNING)  # the feed's warnings about the outages it is put through
    asyncio.run(main(parser.parse_args().runs))
