"""Snapshots with the figures that used to run together (a cross short's far liquidation price, a take-profit's
six-digit trigger), at 160x48, 120x30 and 80x24; the confirmation dialog; the watch-only dashboard.

Built as ``test_snapshots`` builds its pictures (a seeded exchange, a frozen clock, a pinned budget).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import QUIET_WS
from tests.ui.conftest import seeded_market, settle
from tests.ui.test_snapshots import ALICE, MINUTES, PinnedGovernor, loaded, snapshot_app
from tui.api.client import Client
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.app import XtuiApp, make_app
from tui.ui.screens.confirm import ConfirmScreen


@pytest.fixture
def frozen() -> FrozenClock:
    return FrozenClock()


@pytest.fixture
def exchange(frozen: FrozenClock) -> Iterator[EmbeddedExchange]:
    """A cross short of 0.01 BTC (its liquidation price is far away), a take-profit above 100,000 and a bid."""
    with seeded_market(frozen, MINUTES) as ex:

        async def trade() -> None:
            async with Client(ex.url, signer=ALICE, clock_ms=frozen.now_ms, testnet=True) as c:
                await c.cancel_all()  # the faucet
                book = await c.orderbook("BTC-PERP", depth=5)
                await c.place_order([order_item(1, "s", book.bids[0].price, "0.01", tif="IOC")])
                trigger = (book.bids[0].price * 99 / 100).quantize(book.bids[0].price)
                take_profit = order_item(
                    1, "b", "0", "0.01", tif="IOC", reduce_only=True, trigger_px=trigger, is_market=True, tpsl="tp"
                )
                await c.place_order([take_profit])
                await c.place_order([order_item(1, "b", book.bids[4].price, "0.05", cloid="snap-bid")])

        asyncio.run(trade())
        yield ex


@pytest.mark.parametrize("size", [(160, 48), (120, 30), (80, 24)], ids=["160x48", "120x30", "80x24"])
def test_long_figures(
    snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, size: tuple[int, int]
) -> None:
    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=size, run_before=loaded)


def test_the_confirmation_dialog(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock) -> None:
    async def ask(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("C")  # cancel every order: a question, No focused
        await settle(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the question")

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=(120, 40), run_before=ask)


def watch_only_app(ex: EmbeddedExchange, frozen: FrozenClock) -> XtuiApp:
    client = Client(ex.url, clock_ms=frozen.now_ms, governor=PinnedGovernor(), testnet=True)
    app = make_app(
        client,
        ex.url.replace("http://", "ws://") + "/ws/",
        None,
        account=ALICE.address,
        clock=lambda: 0.0,
        wall_clock=lambda: frozen.now_ms() / 1000,
        feed_options={"poll_s": 3600.0, "ws_options": QUIET_WS},
        close_client=True,
    )
    app.feed.state.status.clock_drift_ms = 0
    app.animation_level = "none"
    return app


def test_watch_only(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock) -> None:
    assert snap_compare(watch_only_app(exchange, frozen), terminal_size=(120, 40), run_before=loaded)
