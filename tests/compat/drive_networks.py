"""Signing sources across networks: which account an SDK key becomes, signing for either network.

Usage (with the SDK's interpreter): drive_networks.py BASE_URL testnet|mainnet (the network the sim plays)
- ``own``: a new key signing for the sim's network is its own account; the same key signing for the other
  network afterwards is recognised as that account;
- ``other``: a new key signing for the other network first lands on the address its signature recovers
  under the sim's network (not its own); known accounts and agents are what either source recognises.
"""

from __future__ import annotations

import sys

from sdk_harness import Record, new_key, now_ms, point_sdk_at

HOUR_MS = 3_600_000


def main(base_url: str, sim_network: str) -> None:
    point_sdk_at(base_url)
    rec = Record()
    for transport in ("http", "ws"):
        signers(rec, transport, own_testnet=sim_network == "testnet")
    rec.dump()


def signers(rec: Record, transport: str, *, own_testnet: bool) -> None:
    from eth_account import Account
    from hotstuff import AddAgentParams, CancelAllParams, ExchangeClient, NonceManager

    ws = transport == "ws"
    key, agent_key, stranger_key = new_key(), new_key(), new_key()
    wallet, agent, stranger = (Account.from_key(k) for k in (key, agent_key, stranger_key))
    nonce = NonceManager().get_nonce  # one key, two clients: one sequence of nonces
    same = ExchangeClient(wallet=wallet, nonce=nonce, websocket=ws, is_testnet=own_testnet)
    other = ExchangeClient(wallet=wallet, nonce=nonce, websocket=ws, is_testnet=not own_testnet)
    agent_other = ExchangeClient(wallet=agent, websocket=ws, is_testnet=not own_testnet)
    stranger_other = ExchangeClient(wallet=stranger, websocket=ws, is_testnet=not own_testnet)
    addresses = {"own": wallet.address, "agent": agent.address, "stranger": stranger.address}
    rec.note(f"{transport}.addresses", addresses)
    cancel_all = CancelAllParams(now_ms() + HOUR_MS)
    add = AddAgentParams("x", agent.address, "", now_ms() + HOUR_MS, agentPrivateKey=agent_key, signer=wallet.address)
    rec.call(f"{transport}.own.first", lambda: same.cancel_all(cancel_all))
    rec.call(f"{transport}.own.then_other", lambda: other.cancel_all(cancel_all))
    rec.call(f"{transport}.agent.added_by_other", lambda: other.add_agent(add))
    rec.call(f"{transport}.agent.signs_other", lambda: agent_other.cancel_all(cancel_all))
    rec.call(f"{transport}.stranger.other", lambda: stranger_other.cancel_all(cancel_all))
    if ws:
        for c in (same, other, agent_other, stranger_other):
            c.transport.disconnect()


if __name__ == "__main__":
    main(*sys.argv[1:3])
