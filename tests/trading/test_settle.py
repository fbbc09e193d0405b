"""Settling an order by its cloid against a real `xtui sim` process: an order the record does not hold is "not
placed" only once the exchange's own clock is past the order's expiry (before that it may still arrive); a
placed one is found with what it filled and at what price, even behind more than a page of newer orders."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.conftest import ALICE_KEY, BOB_KEY
from tests.feed.sim_process import SimProcess
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.trading.settle import Unsettled, settle_order

D = Decimal
ALICE = Signer(ALICE_KEY)


async def test_an_absent_order_is_unsettled_until_its_expiry_has_passed(exchange: SimProcess) -> None:
    """A cloid never sent: with its expiry 10 s ahead of the exchange's clock it may still arrive (Unsettled);
    with its expiry 5 s behind, it is settled as not placed."""
    async with Client(exchange.url, signer=ALICE, testnet=True) as alice:
        await alice.open_orders(ALICE.address)  # an answer, so the exchange's Date is known
        now = alice.server_clock.now_ms()
        with pytest.raises(Unsettled, match="may still arrive"):
            await settle_order(alice, ALICE.address, "never-sent", expires_ms=now + 10_000)
        gone = await settle_order(alice, ALICE.address, "never-sent", expires_ms=now - 5_000)
    assert not gone.found and gone.filled == 0


async def test_a_filled_order_is_found_behind_a_page_of_newer_ones(exchange: SimProcess) -> None:
    """Alice buys 0.02 at market (cloid "mine") from Bob's two asks, then rests 120 newer orders: the settle finds
    "mine" past the first page of the history, filled 0.02 at the two asks' average."""
    async with (
        Client(exchange.url, signer=Signer(BOB_KEY), testnet=True) as bob,
        Client(exchange.url, signer=ALICE, testnet=True) as alice,
    ):
        await bob.place_order([order_item(1, "s", "100000", "0.01"), order_item(1, "s", "100010", "0.01")])
        await alice.place_order([order_item(1, "b", "100100", "0.02", tif="IOC", cloid="mine")])
        for batch in range(3):
            await alice.place_order([order_item(1, "b", str(50_000 + batch * 100 + i), "0.001") for i in range(40)])
        settled = await settle_order(alice, ALICE.address, "mine", expires_ms=0)
    assert settled.found and not settled.open and settled.filled == D("0.02") and settled.priced == D("0.02")
    assert settled.value / settled.priced == D(100005)
