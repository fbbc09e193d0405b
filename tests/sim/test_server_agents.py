"""Agents over the wire: add (with the agent's own signature), trade for the owner, revoke; a revoked or
expired agent's key is once more just a key, its own account."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import ALICE_KEY
from tests.sim.signed_bodies import body, submit
from tui.api import wire
from tui.api.client import Client
from tui.api.errors import ActionRejected
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server import LocalExchange

ALICE = Signer(ALICE_KEY)
AGENT = Signer("0x" + "a9" * 32)


async def bot(sim: LocalExchange, name: str, fields: dict[str, Any], nonce: int) -> dict[str, Any]:
    """The agent key signs ``name`` itself (for the main network, the exchange these tests run)."""
    return await submit(sim, body(AGENT, name, fields, nonce, testnet=False))


async def test_agent_round_trip(sim: LocalExchange, alice: Client, clock: FrozenClock) -> None:
    await alice.add_agent(AGENT, "desk-bot", clock.now_ms() + 3_600_000)
    [listed] = await alice.all_agents(ALICE.address)
    assert (listed.agent_address, listed.agent_name) == (AGENT.address, "desk-bot")

    order = {"orders": [wire.order_item(1, "b", "90000", "0.01", cloid="bot-1")]}
    ack = await bot(sim, "placeOrder", order, clock.now_ms() + 1)
    assert ack["address"] == ALICE.address  # the order is the owner's, not the agent's
    assert [o.cloid for o in (await alice.open_orders(ALICE.address)).data] == ["bot-1"]
    assert (await alice.open_orders(AGENT.address)).data == []

    await alice.revoke_agent(AGENT.address)
    assert await alice.all_agents(ALICE.address) == []
    own = {"orders": [wire.order_item(1, "b", "90000", "0.01", cloid="own-1")]}
    ack = await bot(sim, "placeOrder", own, clock.now_ms() + 2)
    assert ack["error"] == "" and ack["address"] == AGENT.address  # its own (new, funded) account now
    assert [o.cloid for o in (await alice.open_orders(AGENT.address)).data] == ["own-1"]
    assert len((await alice.open_orders(ALICE.address)).data) == 1


@pytest.mark.parametrize("wait_for_the_tick", [False, True])
async def test_expired_agent_is_its_own_account(
    sim: LocalExchange, alice: Client, clock: FrozenClock, wait_for_the_tick: bool
) -> None:
    await alice.add_agent(AGENT, "short-lived", clock.now_ms() + 60_000)
    if wait_for_the_tick:
        sim.step(61_000)  # the exchange's clock removes the expired agent
    else:
        clock.advance(61_000)  # expired, still in the registry until the next tick
    assert (await bot(sim, "cancelAll", {}, clock.now_ms()))["address"] == AGENT.address


async def test_agent_cannot_move_its_owners_funds_but_can_after_revocation(
    sim: LocalExchange, alice: Client, clock: FrozenClock
) -> None:
    await alice.add_agent(AGENT, "bot", clock.now_ms() + 3_600_000)
    withdraw = {"collateralId": 1, "amount": "1", "chainId": 11155111}
    refused = await bot(sim, "derivativeWithdrawRequest", withdraw, clock.now_ms() + 1)
    assert "own key, not an agent" in refused["error"]
    assert (refused["tx_type"], refused["address"]) == (1003, ALICE.address)
    await alice.revoke_agent(AGENT.address)
    ack = await bot(sim, "derivativeWithdrawRequest", withdraw, clock.now_ms() + 2)
    assert (ack["error"], ack["address"]) == ("", AGENT.address)


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
