"""A reverse whose placeOrder answer is lost, or whose placeOrder never arrives, through a proxy in front of the local
exchange: what happened is read from the exchange's record by cloid before anything is said, and nothing is sent
again."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

from tests.fault_proxy import FaultProxy
from tests.ui.conftest import Notes, asked, settle
from tests.ui.test_place_faults import held, long_on_screen
from tui.api.client import Client
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange


async def reverse(pilot: Any, notes: Notes, said: str) -> None:
    await asked(pilot, "3", "ctrl+r")
    await pilot.press("y")
    await settle(pilot, lambda: any(said in m for m in notes.messages), timeout_s=30, what=said)


async def test_a_reverse_whose_answer_is_lost_is_read_back(
    sim: LocalExchange, clock: FrozenClock, proxied: tuple[FaultProxy, Client]
) -> None:
    """Long 0.01; ctrl+r, y; the reverse reaches the exchange, its answer is lost. The trader is told it is
    unconfirmed, then, from the record, that the position went short 0.01; it is sent once."""
    proxy, client = proxied
    async with long_on_screen(sim, clock, client) as (_app, pilot, notes):
        proxy.place_fault = "lose_answer"
        await reverse(pilot, notes, "reversed BTC-PERP: long 0.01 → short 0.01")
    assert any("unconfirmed: waiting for the exchange" in m for m in notes.messages)
    assert await held(client) == D("-0.01")
    assert proxy.forwarded.count("/exchange") == 3  # the first cancel-all, the buy, the reverse: nothing again


async def test_a_reverse_that_never_arrives_says_nothing_was_placed(
    sim: LocalExchange, clock: FrozenClock, proxied: tuple[FaultProxy, Client]
) -> None:
    """Long 0.01; ctrl+r, y; the placeOrder is dropped before the exchange. The record has no such order: the trader
    is told nothing was placed and sending again is safe; the position is still long 0.01."""
    proxy, client = proxied
    async with long_on_screen(sim, clock, client) as (_app, pilot, notes):
        proxy.place_fault = "drop"
        await reverse(pilot, notes, "nothing was placed; sending again is safe")
    assert await held(client) == D("0.01")
