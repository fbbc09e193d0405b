"""Agents over the wire: add (with the agent's own signature), trade for the owner, revoke; what a revoked or
expired agent signs is refused, naming it, and applied to no account (the owner's orders stay open, no account
of the agent key's own is made). Each test says what was tried."""

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
from tui.sim.server.local_exchange import LocalExchange

ALICE = Signer(ALICE_KEY)
AGENT = Signer("0x" + "a9" * 32)


async def bot(sim: LocalExchange, name: str, fields: dict[str, Any], nonce: int) -> dict[str, Any]:
    """The agent key signs ``name`` itself (for the main network, the exchange these tests run)."""
    return await submit(sim, body(AGENT, name, fields, nonce, testnet=False))


async def test_agent_round_trip(sim: LocalExchange, alice: Client, clock: FrozenClock) -> None:
    """Tried: approve an agent, order with it (the owner's), revoke it, order with it again: refused by name,
    applied to no account."""
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
    refused = await bot(sim, "placeOrder", own, clock.now_ms() + 2)
    assert refused["error"].startswith(f"agent {AGENT.address} ('desk-bot') of account {ALICE.address} was revoked")
    assert (refused["tx_hash"], refused["address"]) == ("", ALICE.address)
    assert [o.cloid for o in (await alice.open_orders(ALICE.address)).data] == ["bot-1"]
    assert AGENT.address.lower() not in sim.engine.accounts


@pytest.mark.parametrize("wait_for_the_tick", [False, True])
async def test_an_expired_agents_orders_and_cancel_all_are_refused_by_name(
    sim: LocalExchange, alice: Client, clock: FrozenClock, wait_for_the_tick: bool
) -> None:
    """Tried: an agent past its validUntil (dropped by the exchange's tick, or not yet) places an order and
    sends cancelAll: both refused, naming the agent and when it expired; the owner's order stays open."""
    until = clock.now_ms() + 60_000
    await alice.add_agent(AGENT, "short-lived", until)
    await alice.place_order([wire.order_item(1, "b", "90000", "0.01", cloid="owner-1")])
    if wait_for_the_tick:
        sim.step(61_000)  # the exchange's clock removes the expired agent
    else:
        clock.advance(61_000)  # expired, still in the registry until the next tick
    order = {"orders": [wire.order_item(1, "b", "90000", "0.01", cloid="late-1")]}
    for name, fields, n in (("placeOrder", order, 1), ("cancelAll", {}, 2)):
        refused = await bot(sim, name, fields, clock.now_ms() + n)
        said = f"agent {AGENT.address} ('short-lived') of account {ALICE.address} expired at "
        assert refused["error"].startswith(said) and f"(validUntil {until})" in refused["error"], refused
        assert (refused["tx_hash"], refused["address"]) == ("", ALICE.address)
    assert [o.cloid for o in (await alice.open_orders(ALICE.address)).data] == ["owner-1"]
    assert AGENT.address.lower() not in sim.engine.accounts


async def test_a_revoked_agent_sending_cancel_all_leaves_the_owners_orders_open(
    sim: LocalExchange, alice: Client, clock: FrozenClock
) -> None:
    """Tried: the owner rests an order, approves and revokes an agent, then the agent sends cancelAll (on the
    old code: applied to a new, funded account of the agent key's own, and the owner's order left open unsaid)."""
    await alice.place_order([wire.order_item(1, "b", "90000", "0.01", cloid="owner-1")])
    await alice.add_agent(AGENT, "bot", clock.now_ms() + 3_600_000)
    await alice.revoke_agent(AGENT.address)
    refused = await bot(sim, "cancelAll", {}, clock.now_ms() + 5)
    assert "was revoked" in refused["error"] and AGENT.address in refused["error"]
    assert [o.cloid for o in (await alice.open_orders(ALICE.address)).data] == ["owner-1"]
    assert AGENT.address.lower() not in sim.engine.accounts


async def test_an_agent_added_again_acts_for_its_owner_again(
    sim: LocalExchange, alice: Client, clock: FrozenClock
) -> None:
    """Tried: approve, revoke, approve the same key again, and cancel with it: the owner's cancel, done."""
    await alice.add_agent(AGENT, "bot", clock.now_ms() + 3_600_000)
    await alice.revoke_agent(AGENT.address)
    await alice.add_agent(AGENT, "bot", clock.now_ms() + 3_600_000)
    ack = await bot(sim, "cancelAll", {}, clock.now_ms() + 5)
    assert (ack["error"], ack["address"]) == ("", ALICE.address)


async def test_a_key_that_was_an_account_first_is_that_account_again(
    sim: LocalExchange, alice: Client, clock: FrozenClock
) -> None:
    """Tried: a key with an account of its own is approved as an agent, then revoked: what it signs is its own
    account's again, as before it was an agent (nothing of its own is locked out)."""
    assert (await bot(sim, "cancelAll", {}, clock.now_ms() + 1))["address"] == AGENT.address  # its own account
    await alice.add_agent(AGENT, "bot", clock.now_ms() + 3_600_000)
    assert (await bot(sim, "cancelAll", {}, clock.now_ms() + 2))["address"] == ALICE.address
    await alice.revoke_agent(AGENT.address)
    ack = await bot(sim, "cancelAll", {}, clock.now_ms() + 3)
    assert (ack["error"], ack["address"]) == ("", AGENT.address)


async def test_agent_cannot_move_its_owners_funds_nor_its_own_after_revocation(
    sim: LocalExchange, alice: Client, clock: FrozenClock
) -> None:
    """Tried: an agent withdraws, before and after its revocation: refused both times, no account of its own."""
    await alice.add_agent(AGENT, "bot", clock.now_ms() + 3_600_000)
    withdraw = {"collateralId": 1, "amount": "1", "chainId": 11155111}
    refused = await bot(sim, "derivativeWithdrawRequest", withdraw, clock.now_ms() + 1)
    assert "own key, not an agent" in refused["error"]
    assert (refused["tx_type"], refused["address"]) == (1003, ALICE.address)
    await alice.revoke_agent(AGENT.address)
    refused = await bot(sim, "derivativeWithdrawRequest", withdraw, clock.now_ms() + 2)
    assert "was revoked" in refused["error"] and refused["address"] == ALICE.address
    assert AGENT.address.lower() not in sim.engine.accounts  # no new account, funded by the faucet, to withdraw


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
