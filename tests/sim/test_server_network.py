"""The network the local exchange plays: which account a key is, and how the exchange says which network.

A signature recovers some address under either source ("Testnet", "Mainnet"); the exchange reads only its own
network's (protocol-notes 9.7). A signature that is a known key's only under the other source is refused in words,
never credited, never funded.
"""

from __future__ import annotations

import argparse
import json
from decimal import Decimal

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.sim.signed_bodies import add_agent, body, orders, submit
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.engine.instruments import USDC_ID
from tui.sim.options import add_sim_arguments
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits

KEY = Signer("0x" + "4e" * 32)
AGENT = Signer("0x" + "4a" * 32)


@pytest.fixture(params=["testnet", "mainnet"])
def sim_config(request: pytest.FixtureRequest) -> SimConfig:
    return SimConfig(seed=7, market=False, limits=Limits(), network=request.param)


def test_the_default_network_is_the_test_network() -> None:
    assert SimConfig().network == "testnet"
    parser = argparse.ArgumentParser()
    add_sim_arguments(parser)
    assert parser.parse_args([]).network == "testnet"
    assert parser.parse_args(["--network", "mainnet"]).network == "mainnet"
    with pytest.raises(SystemExit):
        parser.parse_args(["--network", "devnet"])


def _usdc(sim: LocalExchange, address: str) -> Decimal:
    acct = sim.engine.core.accounts.get(address.lower())
    return acct.balances.get(USDC_ID, Decimal(0)) if acct is not None else Decimal(0)


def _order(nonce: int) -> dict[str, object]:
    return orders({"cloid": f"c{nonce}"})


async def test_a_new_key_is_its_own_account_signing_for_the_exchanges_network(
    sim: LocalExchange, clock: FrozenClock
) -> None:
    """Tried: a new key's first action signed for the exchange's network: its own account, funded."""
    own = sim.config.network == "testnet"
    assert (await submit(sim, body(KEY, "cancelAll", {}, clock.now_ms(), testnet=own)))["address"] == KEY.address
    assert _usdc(sim, KEY.address) == sim.config.faucet


async def test_a_known_account_signing_for_the_other_network_is_refused_in_words_and_not_credited(
    sim: LocalExchange, clock: FrozenClock
) -> None:
    """Tried: a funded account's order signed for the other network (what a mainnet-configured SDK sends to a
    testnet). Refused naming both networks, nothing applied: no order, no new account, the balance unchanged (the
    old code applied it to the account, read under either source)."""
    own = sim.config.network == "testnet"
    n = clock.now_ms()
    await submit(sim, body(KEY, "cancelAll", {}, n, testnet=own))
    before, accounts = _usdc(sim, KEY.address), len(sim.engine.core.accounts)
    refused = await submit(sim, body(KEY, "placeOrder", _order(n + 1), n + 1, testnet=not own))
    other, mine = ("mainnet", "testnet") if own else ("testnet", "mainnet")
    assert refused["error"].startswith(f"signed for {other}; this exchange plays {mine}")
    assert KEY.address in refused["error"] and refused["address"] == "" and refused["tx_hash"] == ""
    assert _usdc(sim, KEY.address) == before and len(sim.engine.core.accounts) == accounts
    assert not sim.engine.core.accounts[KEY.address.lower()].orders


async def test_a_new_key_signing_for_the_other_network_is_never_funded(sim: LocalExchange, clock: FrozenClock) -> None:
    """Tried: a brand-new key signing for the other network. A body carries no address, so under the auto faucet it
    is a new account of the address the signature recovers here, never the key's own: the key is not funded."""
    own = sim.config.network == "testnet"
    envelope = await submit(sim, body(KEY, "cancelAll", {}, clock.now_ms(), testnet=not own))
    assert envelope["error"] == "" and envelope["address"] != KEY.address
    assert KEY.address.lower() not in sim.engine.core.accounts and _usdc(sim, KEY.address) == 0


async def test_agents_and_former_agents_are_read_under_the_exchanges_network_only(
    sim: LocalExchange, clock: FrozenClock
) -> None:
    """Tried: a valid agent signing for the other network (refused in words, nothing applied), then revoked and
    signing under both (refused by name under the exchange's network, in words under the other)."""
    own = sim.config.network == "testnet"
    n = clock.now_ms()
    assert (await submit(sim, add_agent(KEY, AGENT, n, testnet=own)))["address"] == KEY.address
    assert (await submit(sim, body(AGENT, "cancelAll", {}, n + 1, testnet=own)))["address"] == KEY.address
    misread = await submit(sim, body(AGENT, "placeOrder", _order(n + 2), n + 2, testnet=not own))
    assert misread["error"].startswith("signed for ") and misread["address"] == ""
    assert not sim.engine.core.accounts[KEY.address.lower()].orders
    revoke = body(KEY, "revokeAgent", {"agent": AGENT.address, "forAccount": ""}, n + 3, testnet=own)
    assert (await submit(sim, revoke))["error"] == ""
    refused = await submit(sim, body(AGENT, "cancelAll", {}, n + 4, testnet=own))
    assert refused["error"].startswith(f"agent {AGENT.address}") and "was revoked" in refused["error"]
    assert refused["address"] == KEY.address
    refused = await submit(sim, body(AGENT, "cancelAll", {}, n + 5, testnet=not own))
    assert refused["error"].startswith("signed for ") and refused["address"] == ""
    assert AGENT.address.lower() not in sim.engine.core.accounts


async def test_every_http_response_and_the_socket_say_which_network(sim: LocalExchange) -> None:
    network = sim.config.network
    async with httpx.AsyncClient(base_url=sim.url) as h:
        responses = [
            await h.post("/info", content=b'{"method": "ticker", "params": {"symbol": "BTC-PERP"}}'),
            await h.post("/info", content=b"nope"),
            await h.post("/exchange", content=b"{}"),
            await h.post("/explorer", content=b'{"method": "blocks", "params": {}}'),
            await h.get("/nowhere"),
        ]
    assert [r.headers["X-Hotstuff-Network"] for r in responses] == [network] * 5
    assert [r.headers["X-Xtui-Faucet"] for r in responses] == ["auto"] * 5  # the dashboard learns of the faucet
    async with connect(sim.ws_url) as ws:
        assert ws.response is not None and ws.response.headers["X-Hotstuff-Network"] == network
        assert ws.response.headers["X-Xtui-Faucet"] == "auto"
        await ws.send(json.dumps({"jsonrpc": "2.0", "method": "ping", "id": "1"}))
        pong = json.loads(await ws.recv())
        assert pong["result"]["pong"] is True and pong["result"]["network"] == network
