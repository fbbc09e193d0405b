"""The collector is held back through the first frame and comes back after it (``tui.ui.run``): once the
feed's first snapshot is in and the frame that shows it had its time, or when the feed is not ready in
time (tried: an exchange that is not there). What the first frames threw away is collected, not frozen, and the
old generation is collected as the dashboard runs (tried: objects that hold themselves, as Textual's strips do,
made old and then dropped)."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard
from tests.waiting import until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui import run

ALICE = Signer(ALICE_KEY)
# private: run_dashboard starts the two on a terminal, with the app; here each runs alone, beside a headless app
back_after_first_frame, collect_the_old = run._collector_back_after_first_frame, run._collect_the_old


@pytest.fixture
def held_back() -> Iterator[tuple[int, int, int]]:
    """The collector held back as at start-up; its thresholds as they were, put back after the test."""
    before = gc.get_threshold()
    gc.set_threshold(100_000, *before[1:])
    try:
        yield before
    finally:
        gc.set_threshold(*before)


async def test_the_thresholds_come_back_once_the_first_frame_is_drawn(
    sim: LocalExchange, clock: FrozenClock, trader: Client, held_back: tuple[int, int, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setattr(run, "FIRST_FRAME_S", 0.05)
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)):
        assert gc.get_threshold()[0] == 100_000
        await back_after_first_frame(app, held_back)
        assert app.feed.state.market.book.loaded
        assert gc.get_threshold() == held_back


async def test_a_feed_never_ready_does_not_hold_the_collector_back_for_ever(
    sim: LocalExchange, clock: FrozenClock, held_back: tuple[int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run, "FEED_READY_WAIT_S", 0.2)
    monkeypatch.setattr(run, "FIRST_FRAME_S", 0.0)
    async with Client("http://127.0.0.1:9", timeout=1) as client:  # nothing listens there: no snapshot comes
        app = dashboard(client, sim, clock, None)
        async with app.run_test(size=(120, 40)):
            await back_after_first_frame(app, held_back)
            assert not app.feed.state.market.instruments
            assert gc.get_threshold() == held_back


class HoldsItself:
    """Garbage only the collector frees: it holds itself, as a strip cut into one piece does."""

    def __init__(self) -> None:
        self.me = self


async def test_what_the_first_frames_threw_away_is_collected_not_frozen(
    sim: LocalExchange, clock: FrozenClock, trader: Client, held_back: tuple[int, int, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setattr(run, "FIRST_FRAME_S", 0.0)
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)):
        thrown = HoldsItself()
        gone = weakref.ref(thrown)
        del thrown
        try:
            await back_after_first_frame(app, held_back)
            assert gone() is None
        finally:
            gc.unfreeze()


async def test_old_garbage_is_collected_as_the_dashboard_runs(held_back: tuple[int, int, int]) -> None:
    kept = HoldsItself()
    gc.collect()  # it lived through a full collection: it is old now, out of the young collections' sight
    gone = weakref.ref(kept)
    del kept
    collecting = asyncio.create_task(collect_the_old(every_s=0.0))
    try:
        await until(lambda: gone() is None, what="the old object collected")
    finally:
        collecting.cancel()
