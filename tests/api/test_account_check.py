"""Whom an action was applied to, and which network the exchange plays, checked by the client itself."""

from __future__ import annotations

import pytest

from tests.conftest import ALICE_KEY, BOB_KEY, client_for
from tui.api import wire
from tui.api.client import Client
from tui.api.errors import AccountMismatch, ActionRejected
from tui.api.network import mismatch_warning
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

ALICE, BOB = Signer(ALICE_KEY), Signer(BOB_KEY)
NEW_KEY = "0x" + "5e" * 32  # a key the exchange has never seen


async def test_a_new_key_signing_for_the_other_network_is_reported_not_done(
    sim: LocalExchange, clock: FrozenClock
) -> None:
    assert sim.config.network == "testnet"
    me = Signer(NEW_KEY)
    async with client_for(sim, NEW_KEY, clock, testnet=False) as c:  # signs for mainnet
        with pytest.raises(AccountMismatch) as err:
            await c.place_order([wire.order_item(1, "b", "90000", "0.01", cloid="lost")])
        mismatch = err.value
        assert mismatch.acting_for == me.address and mismatch.applied_to.lower() != me.address.lower()
        text = str(mismatch)
        assert me.address in text and mismatch.applied_to in text
        assert "signed for mainnet in the sdk dialect; the exchange says it plays testnet" in text
        assert "network" in text and "dialect" in text and mismatch.tx_hash.startswith("0x")
        # the order went to the account the exchange recovered, not to this key's
        assert (await c.open_orders(me.address)).data == []
        assert [o.cloid for o in (await c.open_orders(mismatch.applied_to)).data] == ["lost"]


async def test_the_account_compared_is_the_one_given_case_insensitively(
    sim: LocalExchange, clock: FrozenClock, alice: Client
) -> None:
    await alice.cancel_all()  # Alice's account exists
    sim.step(1_000)
    async with client_for(sim, ALICE_KEY, clock, account=BOB.address) as c:
        assert c.acting_for == BOB.address
        with pytest.raises(AccountMismatch) as err:
            await c.cancel_all()
        assert (err.value.applied_to, err.value.acting_for) == (ALICE.address, BOB.address)
    sim.step(1_000)  # nonces are the frozen time: Alice's next client starts after the last one's
    async with client_for(sim, ALICE_KEY, clock, account=ALICE.address.lower()) as c:
        ack = await c.cancel_all()
        assert ack.address == ALICE.address


async def test_a_refused_action_is_rejected_not_a_mismatch(sim: LocalExchange, clock: FrozenClock) -> None:
    async with client_for(sim, ALICE_KEY, clock, account=BOB.address) as c:
        with pytest.raises(ActionRejected, match="tick"):  # refused: nothing was applied to anyone
            await c.place_order([wire.order_item(1, "b", "90000.05", "0.001")])


async def test_the_exchanges_network_is_read_and_compared(sim: LocalExchange, clock: FrozenClock) -> None:
    async with client_for(sim, ALICE_KEY, clock) as agreeing:
        assert agreeing.server_network is None  # nothing heard yet
        await agreeing.ticker("BTC-PERP")
        assert agreeing.server_network == "testnet" and agreeing.network_mismatch is None

    heard: list[str] = []
    async with client_for(sim, ALICE_KEY, clock, testnet=False) as other:
        other.on_network_mismatch = heard.append
        await other.ticker("BTC-PERP")
        await other.bbo("BTC-PERP")
        expected = "the exchange plays testnet but xtui signs for mainnet: your orders would be applied to another"
        assert other.network_mismatch is not None and other.network_mismatch.startswith(expected)
        assert heard == [other.network_mismatch]  # told once, not at every answer

    async with client_for(sim, None, clock, testnet=False) as watching:  # signs nothing: nothing to warn of
        await watching.ticker("BTC-PERP")
        assert watching.server_network == "testnet" and watching.network_mismatch is None


def test_no_header_is_nothing_to_compare() -> None:
    assert mismatch_warning(None, testnet=False) is None
    assert mismatch_warning("mainnet", testnet=False) is None
    assert mismatch_warning("testnet", testnet=True) is None
    assert "plays mainnet but xtui signs for testnet" in (mismatch_warning("mainnet", testnet=True) or "")


async def test_the_client_speaks_the_sdk_dialect_by_default(sim: LocalExchange, clock: FrozenClock) -> None:
    cancel = {"cancels": [{"cloid": "x", "instrumentId": 1}]}
    async with client_for(sim, ALICE_KEY, clock) as c:
        assert c.dialect == "sdk"
        assert c.sign("placeOrder", {"orders": [wire.order_item(1, "b", "90000", "0.01")]})["action"]["type"] == "1301"
        await c.place_order([wire.order_item(1, "b", "90000", "0.01", cloid="x")])
        body = c.sign("cancelByCloid", cancel)
        assert body["action"]["type"] == "1312"
        assert (await c.submit(body))["tx_type"] == 1312  # the code the exchange read the signature under
    sim.step(1_000)  # past the first client's nonces
    async with client_for(sim, ALICE_KEY, clock, dialect="seed") as seed:
        await seed.place_order([wire.order_item(1, "b", "90000", "0.01", cloid="x")])
        body = seed.sign("cancelByCloid", cancel)
        assert body["action"]["type"] == "cancelByCloid"
        assert (await seed.submit(body))["tx_type"] == 1303
