"""The network the local exchange plays: which account a key is, and how the exchange says which network.

A signature recovers some address under either source ("Testnet", "Mainnet"): a new key is read under
the exchange's own network, a key the exchange knows (account, agent, former agent) under either.
"""

from __future__ import annotations

import argparse
import json

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.sim.signed_bodies import add_agent, body, submit
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
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


async def test_a_new_key_is_its_own_account_signing_for_the_exchanges_network(
    sim: LocalExchange, clock: FrozenClock
) -> None:
    own = sim.config.network == "testnet"
    n = clock.now_ms()
    assert (await submit(sim, body(KEY, "cancelAll", {}, n, testnet=own)))["address"] == KEY.address
    # now known: recognised under the other source too
    assert (await submit(sim, body(KEY, "cancelAll", {}, n + 1, testnet=not own)))["address"] == KEY.address
    assert KEY.address.lower() in sim.engine.accounts


async def test_a_new_key_signing_for_the_other_network_is_not_its_own_account(
    sim: LocalExchange, clock: FrozenClock
) -> None:
    """What the test-network SDK saw on a main-network exchange: an action on a stranger's account."""
    own = sim.config.network == "testnet"
    envelope = await submit(sim, body(KEY, "cancelAll", {}, clock.now_ms(), testnet=not own))
    assert envelope["error"] == "" and envelope["address"] != KEY.address
    assert KEY.address.lower() not in sim.engine.accounts


async def test_agents_and_former_agents_are_recognised_under_either_source(
    sim: LocalExchange, clock: FrozenClock
) -> None:
    own = sim.config.network == "testnet"
    n = clock.now_ms()
    assert (await submit(sim, add_agent(KEY, AGENT, n, testnet=own)))["address"] == KEY.address
    assert (await submit(sim, body(AGENT, "cancelAll", {}, n + 1, testnet=not own)))["address"] == KEY.address
    revoke = body(KEY, "revokeAgent", {"agent": AGENT.address, "forAccount": ""}, n + 2, testnet=own)
    assert (await submit(sim, revoke))["error"] == ""
    # still known under either source, and refused by name under both: never a new account of its own
    for nonce, testnet in ((n + 3, not own), (n + 4, own)):
        refused = await submit(sim, body(AGENT, "cancelAll", {}, nonce, testnet=testnet))
        assert refused["error"].startswith(f"agent {AGENT.address}") and "was revoked" in refused["error"]
        assert refused["address"] == KEY.address
    assert AGENT.address.lower() not in sim.engine.accounts


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
    async with connect(sim.ws_url) as ws:
        assert ws.response is not None and ws.response.headers["X-Hotstuff-Network"] == network
        await ws.send(json.dumps({"jsonrpc": "2.0", "method": "ping", "id": "1"}))
        pong = json.loads(await ws.recv())
        assert pong["result"]["pong"] is True and pong["result"]["network"] == network
