"""The client's record of signed actions in flight, against a real ``xtui sim`` process frozen with SIGSTOP: an
action open while unanswered, then closed with its transaction hash, its refusal, or "outcome unknown"."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator

import pytest

from tests.conftest import ALICE_KEY
from tests.feed.sim_process import SimProcess, free_port
from tui.api import wire
from tui.api.client import Client
from tui.api.errors import ActionRejected, RequestTimeout
from tui.api.in_flight import SentAction
from tui.api.signing import Signer

DEADLINE_S = 20.0


@pytest.fixture
async def sim() -> AsyncIterator[SimProcess]:
    process = SimProcess(free_port())
    await process.start()
    try:
        yield process
    finally:
        await process.stop()


async def opened(c: Client) -> SentAction:
    async with asyncio.timeout(DEADLINE_S):
        while not c.in_flight.open():
            await asyncio.sleep(0)  # the send task runs until its request is written
    [entry] = c.in_flight.open()
    return entry


async def test_an_action_is_open_until_answered_then_carries_its_tx_hash(sim: SimProcess) -> None:
    """A buy sent to a frozen exchange is open, with no outcome; thawed, it closes with the exchange's tx hash."""
    async with Client(sim.url, signer=Signer(ALICE_KEY), testnet=True, timeout=10) as c:
        await c.cancel_all()  # the faucet's account exists
        sim.signal(signal.SIGSTOP)
        send = asyncio.create_task(c.place_order([wire.order_item(1, "b", "90000", "0.001")]))
        entry = await opened(c)
        assert entry.name == "placeOrder" and not entry.done and entry.outcome == "outcome unknown (no answer yet)"
        assert '"size":"0.001"' in entry.describe() and "signature" not in entry.describe()
        sim.signal(signal.SIGCONT)
        resp = await asyncio.wait_for(send, DEADLINE_S)
        assert entry.known and entry.outcome == f"tx {resp.tx_hash}" and c.in_flight.open() == []


async def test_a_refusal_and_a_timeout_close_it_as_refused_and_unknown(sim: SimProcess) -> None:
    """A buy of an unknown instrument: refused, with the exchange's words. A buy to a frozen exchange whose answer
    does not come in the client's (short) timeout: outcome unknown."""
    async with Client(sim.url, signer=Signer(ALICE_KEY), testnet=True, timeout=0.5) as c:
        await c.cancel_all()
        send = asyncio.create_task(c.place_order([wire.order_item(999, "b", "90000", "0.001")]))
        entry = await opened(c)
        with pytest.raises(ActionRejected):
            await asyncio.wait_for(send, DEADLINE_S)
        assert entry.known and entry.outcome.startswith("refused: ")
        sim.signal(signal.SIGSTOP)
        try:
            send = asyncio.create_task(c.place_order([wire.order_item(1, "b", "90000", "0.001")]))
            entry = await opened(c)
            with pytest.raises(RequestTimeout):
                await asyncio.wait_for(send, DEADLINE_S)
        finally:
            sim.signal(signal.SIGCONT)
        assert not entry.known and entry.outcome.startswith("outcome unknown (exchange: no answer")
