"""Signed /exchange bodies, posted raw: any key, signing for either network, with no client checking whose
account the exchange applied them to (that is what these tests look at)."""

from __future__ import annotations

from typing import Any

import httpx

from tui.api import wire
from tui.api.signing import Signer
from tui.sim.server.local_exchange import LocalExchange

HOUR_MS = 3_600_000


def body(signer: Signer, name: str, fields: dict[str, Any], nonce: int, *, testnet: bool) -> dict[str, Any]:
    """``name`` with ``fields`` (expiresAfter filled in where needed), signed as the SDKs sign it."""
    if name in wire.EXPIRING:
        fields = {"expiresAfter": nonce + HOUR_MS, **fields}
    data = wire.action_data(name, fields, nonce)
    return wire.build_body(name, data, signer.sign_action(data, wire.tx_type(name, "sdk"), testnet=testnet), "sdk")


def orders(*items: dict[str, Any]) -> dict[str, Any]:
    """placeOrder's fields: ``items`` over a GTC buy of 0.01 BTC-PERP at 50,000 (each item's keys replace those)."""
    base = {"instrumentId": 1, "side": "b", "positionSide": "BOTH", "price": "50000", "size": "0.01",
            "tif": "GTC", "ro": False, "po": False, "cloid": "", "triggerPx": "", "isMarket": False, "tpsl": "",
            "grouping": ""}  # fmt: skip
    return {"orders": [{**base, **item} for item in items], "brokerConfig": {"broker": "", "fee": ""}}


def add_agent(owner: Signer, agent: Signer, nonce: int, *, testnet: bool) -> dict[str, Any]:
    """The owner's addAgent, with the agent's own signature of {signer, nonce} inside."""
    inner = agent.sign_action({"signer": owner.address, "nonce": nonce}, 1201, testnet=testnet)
    fields = {"agentName": "bot", "agent": agent.address, "forAccount": "", "signature": inner,
              "validUntil": nonce + HOUR_MS}  # fmt: skip
    return body(owner, "addAgent", fields, nonce, testnet=testnet)


async def submit(sim: LocalExchange, signed: dict[str, Any]) -> dict[str, Any]:
    """POST the body; the envelope (HTTP 200)."""
    async with httpx.AsyncClient() as h:
        resp = await h.post(sim.url + "/exchange", json=signed)
    assert resp.status_code == 200, resp.text
    envelope: dict[str, Any] = resp.json()
    return envelope
