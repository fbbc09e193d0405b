"""A client trading as an agent whose approval has ended: what it sends is refused, and the error says so in
words (which agent, revoked or expired, for which account, how to add a new one), not "network or dialect".
Against a real local exchange with a frozen clock. Each test says what was tried."""

from __future__ import annotations

import pytest

from tests.conftest import ALICE_KEY, client_for
from tui.api import wire
from tui.api.client import Client
from tui.api.errors import ADD_AGENT, AccountMismatch, ActionRejected, AgentRefused, agent_refusal
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

ALICE = Signer(ALICE_KEY)
AGENT_KEY = "0x" + "a9" * 32
AGENT = Signer(AGENT_KEY)


async def test_a_revoked_agents_orders_and_cancel_all_say_revoked(
    sim: LocalExchange, alice: Client, clock: FrozenClock
) -> None:
    """Tried: Alice rests an order and approves an agent; a client trading for her with the agent key places an
    order (done, hers); Alice revokes the agent; the client places an order and sends cancelAll. On the old code:
    AccountMismatch blaming the network or dialect, and Alice's orders left open."""
    await alice.place_order([wire.order_item(1, "b", "90000", "0.01", cloid="alice-1")])
    await alice.add_agent(AGENT, "desk-bot", clock.now_ms() + 3_600_000)
    async with client_for(sim, AGENT_KEY, clock, account=ALICE.address) as bot:
        assert (await bot.place_order([wire.order_item(1, "b", "90000", "0.01", cloid="bot-1")])).address == (
            ALICE.address
        )
        await alice.revoke_agent(AGENT.address)
        for send in (
            lambda: bot.place_order([wire.order_item(1, "b", "90000", "0.01", cloid="late-1")]),
            bot.cancel_all,
        ):
            with pytest.raises(AgentRefused) as err:
                await send()
            refusal = err.value
            assert (refusal.agent, refusal.account, refusal.agent_status) == (AGENT.address, ALICE.address, "revoked")
            text = str(refusal)
            assert text.startswith(f"agent {AGENT.address} was revoked: the exchange no longer lets it act for ")
            assert ADD_AGENT in text and "Agents screen" in text
            assert "network" not in text.split("(the exchange said")[0] and "dialect" not in text
    assert sorted(o.cloid for o in (await alice.open_orders(ALICE.address)).data) == ["alice-1", "bot-1"]


async def test_an_expired_agent_says_expired(sim: LocalExchange, alice: Client, clock: FrozenClock) -> None:
    """Tried: the agent's validUntil passes (the exchange's clock stepped past it), then it sends cancelAll."""
    await alice.add_agent(AGENT, "short", clock.now_ms() + 60_000)
    sim.step(61_000)
    async with client_for(sim, AGENT_KEY, clock, account=ALICE.address) as bot:
        with pytest.raises(AgentRefused) as err:
            await bot.cancel_all()
    assert err.value.agent_status == "expired"
    assert str(err.value).startswith(f"agent {AGENT.address} has expired: the exchange no longer lets it act for")


async def test_an_exchange_that_takes_the_agent_key_as_its_own_account_is_named_as_that(
    sim: LocalExchange, alice: Client, clock: FrozenClock
) -> None:
    """Tried: the agent key has an account of its own, is approved for Alice and revoked; a client trading for
    Alice with it sends cancelAll, which the exchange applies to the key's own account (as an exchange that does
    not refuse former agents would). The error says the key is no longer Alice's agent, not "network or
    dialect"."""
    async with client_for(sim, AGENT_KEY, clock) as itself:
        await itself.cancel_all()  # the key's own account
    sim.step(1_000)  # past that client's nonces
    await alice.add_agent(AGENT, "bot", clock.now_ms() + 3_600_000)
    await alice.revoke_agent(AGENT.address)
    async with client_for(sim, AGENT_KEY, clock, account=ALICE.address) as bot:
        with pytest.raises(AccountMismatch) as err:
            await bot.cancel_all()
    text = str(err.value)
    assert (err.value.applied_to, err.value.acting_for) == (AGENT.address, ALICE.address)
    assert f"took the agent key {AGENT.address} as an account of its own" in text
    assert "revoked, or past its validUntil" in text and ADD_AGENT in text and "dialect" not in text


def test_other_refusals_are_not_agent_refusals() -> None:
    """Tried: refusals that merely mention an agent or an account: plain refusals, no agent words."""
    assert agent_refusal("addAgent: the agent's signature does not recover the agent address", {}) is None
    assert agent_refusal("derivativeWithdrawRequest must be signed by the account's own key, not an agent", {}) is None
    assert isinstance(ActionRejected("x", {}), ActionRejected)
