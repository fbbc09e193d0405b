"""Snapshots of the dashboard at 120x40 and 80x24, of the order form (and its risk at 160x48 and 80x24), and of the
help screen.

The picture must not move between runs: the exchange is seeded and its clock frozen (stepped a fixed
number of times before the app starts); the app's monotonic clock is constant, so every age reads 0s;
its wall clock is the exchange's; nothing polls during the test; the rate-limit budget shown is pinned.
The exchange runs in its own thread, as ``xtui`` runs it, because ``snap_compare`` runs the app in an
event loop of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from textual.widgets import Input, Static

from tests.conftest import ALICE_KEY, QUIET_WS
from tests.ui.conftest import feed_ready, seeded_market, settle
from tui.api.client import Client
from tui.api.limits import Budget, Governor, GovernorStatus
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.config.launch import DashboardOptions
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.app import XtuiApp, make_app

ALICE = Signer(ALICE_KEY)
MINUTES = 20  # of synthetic market before the pictures: twenty one-minute candles


@pytest.fixture
def frozen() -> FrozenClock:
    return FrozenClock()


@pytest.fixture
def exchange(frozen: FrozenClock) -> Iterator[EmbeddedExchange]:
    with seeded_market(frozen, MINUTES) as ex:

        async def trade() -> None:
            async with Client(ex.url, signer=ALICE, clock_ms=frozen.now_ms, testnet=True) as c:
                await c.cancel_all()  # the faucet
                book = await c.orderbook("BTC-PERP", depth=5)
                await c.place_order([order_item(1, "b", book.bids[4].price, "0.05", cloid="snap-bid")])
                await c.place_order([order_item(1, "b", book.asks[0].price, "0.02", tif="IOC")])

        asyncio.run(trade())
        yield ex


class PinnedGovernor(Governor):
    """Paces like any governor, but shows a fixed budget: how many polls ran before the socket came up
    depends on the machine's speed, and that count is not what these pictures are about."""

    def status(self) -> GovernorStatus:
        return GovernorStatus(Budget(10, 5000), Budget(10, 200_000), Budget(0, 20_000), 0.0, None)


def snapshot_app(ex: EmbeddedExchange, frozen: FrozenClock, options: DashboardOptions | None = None) -> XtuiApp:
    client = Client(ex.url, signer=ALICE, clock_ms=frozen.now_ms, governor=PinnedGovernor(), testnet=True)
    app = make_app(
        client,
        ex.url.replace("http://", "ws://") + "/ws/",
        ALICE,
        options=options,
        clock=lambda: 0.0,
        wall_clock=lambda: frozen.now_ms() / 1000,
        feed_options={"poll_s": 3600.0, "ws_options": QUIET_WS},
        close_client=True,
    )
    app.feed.state.status.clock_drift_ms = 0
    app.animation_level = "none"  # a tab's underline slides for 0.3 s: a slow machine would catch it midway
    return app


async def loaded(pilot: Any) -> None:
    """Everything the panes show has arrived and been drawn."""
    app = pilot.app
    state = app.feed.state
    await feed_ready(app)
    await settle(
        pilot,
        lambda: (
            state.status.connection == "live"
            and state.market.candles
            and state.market.trades
            and state.account.positions
            and state.account.open_orders
        ),
        what="market and account data",
    )


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_main_screen(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, size: tuple[int, int]) -> None:
    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=size, run_before=loaded)


async def open_form(pilot: Any, size: str = "") -> None:
    """The sell form, its leverage in force read (the figures follow it), ``size`` typed."""
    await loaded(pilot)
    await pilot.press("s")
    await settle(pilot, lambda: pilot.app.screen is not pilot.app.main, what="the form")
    risk = pilot.app.screen.query_one("#risk", Static)
    await settle(pilot, lambda: "leverage 10x" in str(risk.render()), what="the leverage in force")
    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False  # a blinking cursor would be on or off at random in the picture
    if size:
        pilot.app.screen.query_one("#size", Input).value = size
    await pilot.pause()


def test_order_form(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock) -> None:
    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=(120, 40), run_before=open_form)


@pytest.mark.parametrize("size", [(160, 48), (80, 24)], ids=["160x48", "80x24"])
def test_order_form_with_its_risk(
    snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, size: tuple[int, int]
) -> None:
    """Selling 0.05 against the 0.02 long: margin, fee, liquidation price after (a short of 0.03), available
    after, the leverage in force and the margin mode, at the largest and the smallest terminal."""

    async def typed(pilot: Any) -> None:
        await open_form(pilot, "0.05")

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=size, run_before=typed)


def test_help_screen(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock) -> None:
    async def open_help(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("question_mark")
        await settle(pilot, lambda: pilot.app.screen is not pilot.app.main, what="the help")

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=(120, 40), run_before=open_help)
