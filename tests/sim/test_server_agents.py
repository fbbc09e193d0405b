"""Agents over the wire: add (with the agent's own signature), trade for the owner, revoke, refused."""

from __future__ import annotations

import pytest

from tests.conftest import ALICE_KEY
from tui.api import wire
from tui.api.client import Client
from tui.api.errors import ActionRejected
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server import LocalExchange

ALICE = Signer(ALICE_KEY)
AGENT = Signer("0x" + "a9" * 32)


async def test_agent_round_trip(sim: LocalExchange, alice: Client, clock: FrozenClock) -> None:
    await alice.add_agent(AGENT, "desk-bot", clock.now_ms() + 3_600_000)
    [listed] = await alice.all_agents(ALICE.address)
    assert (listed.agent_address, listed.agent_name) == (AGENT.address, "desk-bot")

    async with Client(sim.url, signer=AGENT, clock_ms=clock.now_ms) as bot:
        ack = await bot.place_order([wire.order_item(1, "b", "90000", "0.01", cloid="bot-1")])
        assert ack.address == ALICE.address  # the order is the owner's, not the agent's
        orders = await alice.open_orders(ALICE.address)
        assert [o.cloid for o in orders.data] == ["bot-1"]
        assert (await alice.open_orders(AGENT.address)).data == []

        await alice.revoke_agent(AGENT.address)
        assert await alice.all_agents(ALICE.address) == []
        with pytest.raises(ActionRejected, match="revoked"):
            await bot.place_order([wire.order_item(1, "b", "90000", "0.01")])
    assert len((await alice.open_orders(ALICE.address)).data) == 1


async def test_expired_agent_is_refused(sim: LocalExchange, alice: Client, clock: FrozenClock) -> None:
    await alice.add_agent(AGENT, "short-lived", clock.now_ms() + 60_000)
    sim.step(61_000)
    async with Client(sim.url, signer=AGENT, clock_ms=clock.now_ms) as bot:
        with pytest.raises(ActionRejected, match="expired"):
            await bot.cancel_all()


async def test_agent_signature_must_recover_the_agent(sim: LocalExchange, alice: Client, clock: FrozenClock) -> None:
    impostor = Signer("0x" + "a8" * 32)
    nonce = alice.nonces.next()
    inner = impostor.sign_action({"signer": ALICE.address, "nonce": nonce}, 1201)
    body = alice.sign(
        "addAgent",
        {"agentName": "x", "agent": AGENT.address, "forAccount": "", "signature": inner,
         "validUntil": clock.now_ms() + 60_000},
        nonce=nonce,
    )  # fmt: skip
    with pytest.raises(ActionRejected, match="agent's signature"):
        await alice.submit(body)
    assert await alice.all_agents(ALICE.address) == []
