"""Snapshots of the chase form and the OCO form (over the Chase and OCO screen, O), at 120x40 and 80x24: what each
tool does and that it runs only while xtui runs, the fields, and the OCO's size offered as Alice's whole position.

Built as ``test_snapshots`` builds its pictures: a seeded exchange, a frozen clock, a pinned budget; nothing is
started, so no client order id (which carries the time) is drawn.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from textual.widgets import Input

from tests.conftest import ALICE_KEY
from tests.ui.conftest import drawn, feed_ready, seeded_market, settle
from tests.ui.screen_steps import until
from tests.ui.test_snapshots import MINUTES, snapshot_app
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.screens.chase import ChaseScreen
from tui.ui.screens.data_screen import DataScreen
from tui.ui.screens.form import FormScreen

SIZES = [(120, 40), (80, 24)]


@pytest.fixture
def frozen() -> FrozenClock:
    return FrozenClock()


@pytest.fixture
def exchange(frozen: FrozenClock) -> Iterator[EmbeddedExchange]:
    """The seeded market, in which Alice has bought 0.02 BTC."""
    with seeded_market(frozen, MINUTES) as ex:
        asyncio.run(_long(ex, frozen))
        yield ex


async def _long(ex: EmbeddedExchange, frozen: FrozenClock) -> None:
    async with Client(ex.url, signer=Signer(ALICE_KEY), clock_ms=frozen.now_ms, testnet=True) as alice:
        await alice.cancel_all()  # the faucet
        ask = (await alice.orderbook("BTC-PERP", depth=1)).asks[0].price
        await alice.place_order([order_item(1, "b", ask, "0.02", tif="IOC")])


def opens_form(key: str, loads: Counter[DataScreen]) -> Any:
    async def run_before(pilot: Any) -> None:
        app = pilot.app
        await feed_ready(app)
        await settle(pilot, lambda: any(p.size for p in app.feed.state.account.positions), what="the position")
        await pilot.press("O")
        await until(pilot, lambda: isinstance(app.screen, ChaseScreen) and loads[app.screen] >= 1, "the screen")
        await pilot.press(key)
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the form")
        for box in app.screen.query(Input):
            box.cursor_blink = False  # a blinking cursor would be on or off at random in the picture (a loaded CI)
        await drawn(pilot)

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=["120x40", "80x24"])
@pytest.mark.parametrize("form", ["chase", "oco"])
def test_the_form(
    snap_compare: Any,
    exchange: EmbeddedExchange,
    frozen: FrozenClock,
    screen_loads: Counter[DataScreen],
    form: str,
    size: tuple[int, int],
) -> None:
    key = "n" if form == "chase" else "o"
    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=size, run_before=opens_form(key, screen_loads))
