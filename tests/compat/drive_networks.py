"""Signing sources across networks, and the explicit faucet, as the SDK meets them.

Usage (with the SDK's interpreter):
- ``drive_networks.py BASE_URL testnet|mainnet`` (the network the sim plays), per transport:
  ``own``: a new key signing for the sim's network is its own account, funded; the same key's order signed for
  the other network is refused in words and its balance is unchanged; ``agent``: an agent the account added trades
  for it, and signing for the other network is refused; ``stranger``: a new key signing for the other network
  first is never its own account and its own address is never funded.
- ``drive_networks.py BASE_URL testnet explicit KEY before|after``: on a sim with ``--faucet explicit``, the key's
  order before anyone funded it (refused: account does not exist), or after (placed).
"""

from __future__ import annotations

import sys
from typing import Any

from sdk_harness import Record, new_key, now_ms, point_sdk_at

HOUR_MS = 3_600_000


def main(base_url: str, sim_network: str, *explicit: str) -> None:
    point_sdk_at(base_url)
    rec = Record()
    if explicit:
        funded_or_not(rec, sim_network == "testnet", explicit[1], explicit[2])
    else:
        for transport in ("http", "ws"):
            signers(rec, transport, own_testnet=sim_network == "testnet")
    rec.dump()


def _order(cloid: str) -> Any:
    from hotstuff import UnitOrder

    return UnitOrder(1, "b", "BOTH", "90000", "0.01", "GTC", False, False, cloid=cloid)


def signers(rec: Record, transport: str, *, own_testnet: bool) -> None:
    from eth_account import Account
    from hotstuff import (
        AccountSummaryParams,
        AddAgentParams,
        CancelAllParams,
        ExchangeClient,
        InfoClient,
        NonceManager,
        OpenOrdersParams,
        PlaceOrderParams,
    )

    ws = transport == "ws"
    key, agent_key, stranger_key = new_key(), new_key(), new_key()
    wallet, agent, stranger = (Account.from_key(k) for k in (key, agent_key, stranger_key))
    nonce = NonceManager().get_nonce  # one key, two clients: one sequence of nonces
    same = ExchangeClient(wallet=wallet, nonce=nonce, websocket=ws, is_testnet=own_testnet)
    other = ExchangeClient(wallet=wallet, nonce=nonce, websocket=ws, is_testnet=not own_testnet)
    agent_same = ExchangeClient(wallet=agent, websocket=ws, is_testnet=own_testnet)
    agent_other = ExchangeClient(wallet=agent, websocket=ws, is_testnet=not own_testnet)
    stranger_other = ExchangeClient(wallet=stranger, websocket=ws, is_testnet=not own_testnet)
    info = InfoClient(websocket=ws, is_testnet=own_testnet)
    addresses = {"own": wallet.address, "agent": agent.address, "stranger": stranger.address}
    rec.note(f"{transport}.addresses", addresses)
    cancel_all = CancelAllParams(now_ms() + HOUR_MS)
    add = AddAgentParams("x", agent.address, "", now_ms() + HOUR_MS, agentPrivateKey=agent_key, signer=wallet.address)

    def collateral(user: str) -> Any:
        return info.account_summary(AccountSummaryParams(user=user)).get("collateral")

    def open_orders() -> int:
        return len(info.open_orders(OpenOrdersParams(user=wallet.address))["data"])

    def place(client: Any, cloid: str) -> Any:
        return client.place_order(PlaceOrderParams([_order(cloid)], now_ms() + HOUR_MS))

    rec.call(f"{transport}.own.first", lambda: same.cancel_all(cancel_all))
    rec.call(f"{transport}.own.collateral", lambda: collateral(wallet.address))
    rec.call(f"{transport}.own.order_other", lambda: place(other, "wrong-network"))
    rec.call(f"{transport}.own.collateral_after", lambda: collateral(wallet.address))
    rec.call(f"{transport}.own.open_after", open_orders)
    rec.call(f"{transport}.agent.added", lambda: same.add_agent(add))
    rec.call(f"{transport}.agent.signs_own", lambda: agent_same.cancel_all(cancel_all))
    rec.call(f"{transport}.agent.order_other", lambda: place(agent_other, "agent-wrong-network"))
    rec.call(f"{transport}.agent.open_after", open_orders)
    rec.call(f"{transport}.stranger.other", lambda: stranger_other.cancel_all(cancel_all))
    rec.call(f"{transport}.stranger.collateral", lambda: collateral(stranger.address))
    if ws:
        for c in (same, other, agent_same, agent_other, stranger_other, info):
            c.transport.disconnect()


def funded_or_not(rec: Record, testnet: bool, key: str, when: str) -> None:
    from eth_account import Account
    from hotstuff import ExchangeClient, PlaceOrderParams

    client = ExchangeClient(wallet=Account.from_key(key), is_testnet=testnet)
    rec.call(when, lambda: client.place_order(PlaceOrderParams([_order(f"explicit-{when}")], now_ms() + HOUR_MS)))


if __name__ == "__main__":
    main(*sys.argv[1:])
