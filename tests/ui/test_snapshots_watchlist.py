"""A snapshot of the watchlist: five instruments (perps and a spot pair) with last, 24h change, funding and their
sparklines, at 120x30 and 80x24.

Built as ``test_snapshots`` builds its pictures: a seeded exchange, a frozen clock, a pinned budget; the screen
loads once (the feed's ``poll_s`` is an hour) and its sparklines come from the exchange's seeded past.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from tests.ui.conftest import seeded_market, settle
from tests.ui.test_snapshots import MINUTES, snapshot_app
from tui.feed.watchlist import Watchlist, watchlist_path
from tui.paths import data_dir
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.screens.data_screen import DataScreen
from tui.ui.screens.watchlist import WatchlistScreen

WATCHED = ["BTC-PERP", "ETH-PERP", "SOL-PERP", "HYPE-PERP", "BTC/USDC"]


@pytest.fixture
def frozen() -> FrozenClock:
    return FrozenClock()


@pytest.fixture
def exchange(frozen: FrozenClock) -> Iterator[EmbeddedExchange]:
    with seeded_market(frozen, MINUTES) as ex:
        yield ex


@pytest.mark.parametrize("size", [(120, 30), (80, 24)], ids=["120x30", "80x24"])
def test_the_watchlist(
    snap_compare: Any,
    exchange: EmbeddedExchange,
    frozen: FrozenClock,
    screen_loads: Counter[DataScreen],
    size: tuple[int, int],
) -> None:
    Watchlist(watchlist_path(data_dir(), "LOCAL"), WATCHED).save()

    async def open_watchlist(pilot: Any) -> None:
        state = pilot.app.feed.state
        await pilot.app.feed.wait_ready()
        await settle(pilot, lambda: state.status.connection == "live" and set(WATCHED) <= set(state.market.tickers))
        await pilot.press("w")

        def ready() -> bool:
            screen = pilot.app.screen
            return (
                isinstance(screen, WatchlistScreen) and screen_loads[screen] >= 1 and len(screen.sparks) == len(WATCHED)
            )

        await settle(pilot, ready, what="the watchlist and its sparklines")

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=size, run_before=open_watchlist)
