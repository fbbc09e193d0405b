"""Snapshots of every data screen on one seeded exchange, shared by the module (the screens only read it).

As in ``test_snapshots``: the exchange is seeded, its clock frozen and stepped a fixed number of times,
the app's monotonic clock constant and its wall clock the exchange's; the screens poll once (the feed's
``poll_s`` is an hour), so each picture is the first load, fully drawn.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from tests.conftest import ALICE_KEY, BOB_KEY
from tests.ui.conftest import drawn, feed_ready, seeded_market
from tests.ui.screen_steps import until
from tests.ui.test_snapshots import snapshot_app
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.screens.data_screen import DataScreen

ALICE = Signer(ALICE_KEY)
BOB = Signer(BOB_KEY)
AGENT = Signer("0x" + "a9" * 32)
MINUTE = 60_000


@pytest.fixture(scope="module")
def frozen() -> FrozenClock:
    return FrozenClock()


@pytest.fixture(scope="module")
def exchange(frozen: FrozenClock) -> Iterator[EmbeddedExchange]:
    """A few minutes of market in which Alice trades, moves money, refers Bob, approves a broker and an agent."""
    with seeded_market(frozen, 3, MINUTE) as ex:
        asyncio.run(_history(ex, frozen))
        yield ex


async def _history(ex: EmbeddedExchange, frozen: FrozenClock) -> None:
    async with (
        Client(ex.url, signer=ALICE, clock_ms=frozen.now_ms, testnet=True) as alice,
        Client(ex.url, signer=BOB, clock_ms=frozen.now_ms, testnet=True) as bob,
    ):
        await alice.cancel_all()  # the faucet
        await bob.cancel_all()
        await alice.create_referral_code("SNAP")
        await bob.set_referrer("SNAP")
        for i, (instrument, symbol, size) in enumerate([(1, "BTC-PERP", "0.02"), (2, "ETH-PERP", "0.5")] * 3):
            ask = (await alice.orderbook(symbol, depth=1)).asks[0].price
            await alice.place_order([order_item(instrument, "b", ask, size, tif="IOC", cloid=f"snap-{i}")])
            bid = (await bob.orderbook(symbol, depth=1)).bids[0].price
            await bob.place_order([order_item(instrument, "s", bid, "0.01", tif="IOC")])
            ex.call(lambda sim: sim.step(MINUTE))  # a point of account history a minute
        await alice.place_order([order_item(1, "b", "95000", "0.01", cloid="snap-rest")])
        await alice.set_leverage(2, 5)
        await alice.transfer(1, Decimal(100), BOB.address)
        await alice.internal_transfer(1, Decimal(500), to_derivatives=False)
        vaults = (await alice.vaults()).vaults
        await alice.vault_deposit(vaults[1].vault_address, Decimal(1000))
        await alice.approve_broker_fee(BOB.address, Decimal("0.0005"))
        await alice.add_agent(AGENT, "snap-bot", frozen.now_ms() + 7 * 86_400_000)
        ex.call(lambda sim: sim.step(1000))  # seal the last transactions into blocks


def opens(key: str, *then: str) -> Any:
    def run_before_counting(loads: Counter[DataScreen]) -> Any:
        async def run_before(pilot: Any) -> None:
            app = pilot.app
            await feed_ready(app)
            await pilot.press(key)
            await until(pilot, lambda: isinstance(app.screen, DataScreen) and loads[app.screen] >= 1, f"screen {key}")
            for press in then:
                await pilot.press(press)
            await drawn(pilot)

        return run_before

    return run_before_counting


SCREENS = {
    "account": opens("A"),
    "account_chart": opens("A", "3"),
    "wallet": opens("W"),
    "history": opens("H"),
    "explorer": opens("E"),
    "reference": opens("M"),
    "referrals": opens("R"),
    "brokers": opens("B"),
    "agents": opens("G"),
}


@pytest.mark.parametrize("screen", list(SCREENS))
def test_screen(
    snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, screen_loads: Counter[DataScreen], screen: str
) -> None:
    run_before = SCREENS[screen](screen_loads)
    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=(120, 40), run_before=run_before)
