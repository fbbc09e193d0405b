"""Refusals: the envelope of a refused action (what it was, whose, why), and ``post`` over the socket, where a
refused action or a bad query is a JSON-RPC error the SDKs raise."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.conftest import ALICE_KEY
from tui.api import wire
from tui.api.client import Client
from tui.api.errors import ActionRejected
from tui.api.signing import Signer
from tui.api.ws import RpcError, WsClient
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

ALICE = Signer(ALICE_KEY)


def signed(name: str, fields: dict[str, Any], nonce: int, *, dialect: wire.Dialect = "sdk") -> dict[str, Any]:
    """A body signed by Alice for the main network (the exchange these tests run)."""
    data = wire.action_data(name, fields, nonce)
    return wire.build_body(name, data, ALICE.sign_action(data, wire.tx_type(name, dialect)), dialect)


async def exchange(sim: LocalExchange, body: dict[str, Any]) -> dict[str, Any]:
    async with httpx.AsyncClient() as h:
        resp = await h.post(sim.url + "/exchange", json=body)
    assert resp.status_code == 200
    envelope: dict[str, Any] = resp.json()
    return envelope


@pytest.fixture
async def funded(alice: Client) -> Client:
    await alice.cancel_all()  # the first signed action creates and funds the account
    return alice


@pytest.mark.parametrize(
    ("name", "fields", "dialect", "tx_type", "error"),
    [
        ("cancelByInstrument", {"instrumentId": 77, "expiresAfter": 2**41}, "sdk", 1313, "unknown instrument 77"),
        ("cancelByOid", {"cancels": [{"oid": 9, "instrumentId": 1}], "expiresAfter": 2**41}, "sdk", 1302,
         "order 9 is not an open order"),
        ("cancelByCloid", {"cancels": [{"cloid": "x", "instrumentId": 1}], "expiresAfter": 2**41}, "sdk", 1312,
         "cloid 'x' is not an open order"),
        ("cancelByCloid", {"cancels": [{"cloid": "x", "instrumentId": 1}], "expiresAfter": 2**41}, "seed", 1303,
         "cloid 'x' is not an open order"),
        ("derivativeWithdrawRequest", {"collateralId": 1, "amount": "1000000000", "chainId": 1}, "sdk", 1003,
         "insufficient"),
        ("claimReferralRewards", {"collateralId": 1, "spot": True}, "sdk", 1210, "no spot referral rewards"),
        ("cancelAll", {"expiresAfter": 1}, "sdk", 1311, "action expired"),
    ],
)  # fmt: skip
async def test_a_refused_envelope_says_what_whose_and_why(
    sim: LocalExchange,
    funded: Client,
    clock: FrozenClock,
    name: str,
    fields: dict[str, Any],
    dialect: wire.Dialect,
    tx_type: int,
    error: str,
) -> None:
    envelope = await exchange(sim, signed(name, fields, clock.now_ms() + 1, dialect=dialect))
    assert (envelope["tx_hash"], envelope["tx_type"], envelope["address"], envelope["data"]) == (
        "",
        tx_type,
        ALICE.address,
        {},
    )
    assert error in envelope["error"]
    cancels = name in ("cancelByOid", "cancelByCloid")
    assert envelope.get("success") is (False if cancels else None)  # cancels carry success: false as well


async def test_an_action_that_is_not_understood_is_a_malformed_body(sim: LocalExchange) -> None:
    body = {"action": {"type": "mintMoney", "data": {"nonce": 1}}, "signature": "0x" + "00" * 65, "nonce": 1}
    async with httpx.AsyncClient() as h:
        resp = await h.post(sim.url + "/exchange", json=body)
    assert resp.status_code == 400
    assert resp.json() == {"type": "error", "message": "action.type: unknown action type 'mintMoney'"}


async def test_a_derivative_withdrawal_answers_its_nonce(
    sim: LocalExchange, funded: Client, clock: FrozenClock
) -> None:
    nonce = clock.now_ms() + 1
    body = signed("derivativeWithdrawRequest", {"collateralId": 1, "amount": "10", "chainId": 11155111}, nonce)
    envelope = await exchange(sim, body)
    assert envelope["error"] == "" and envelope["data"] == {"nonce": str(nonce)}


async def post(ws: Any, rid: str, kind: str, payload: Any) -> dict[str, Any]:
    await ws.send(
        json.dumps({"jsonrpc": "2.0", "id": rid, "method": "post", "params": {"type": kind, "payload": payload}})
    )
    reply: dict[str, Any] = json.loads(await ws.recv())
    assert reply["id"] == rid
    return reply


async def test_post_answers_the_http_body_in_result_data(
    sim: LocalExchange, funded: Client, clock: FrozenClock
) -> None:
    async with connect(sim.ws_url) as ws:
        done = await post(ws, "1", "action", signed("cancelAll", {"expiresAfter": 2**41}, clock.now_ms() + 1))
        envelope = done["result"]["data"]
        assert (envelope["tx_type"], envelope["address"], envelope["error"]) == (1311, ALICE.address, "")
        ticker = await post(ws, "2", "info", {"method": "ticker", "params": {"symbol": "BTC-PERP"}})
        assert ticker["result"]["data"][0]["symbol"] == "BTC-PERP"
        blocks = await post(ws, "3", "explorer", {"method": "blocks", "params": {"offset": 0, "limit": 1}})
        assert "blocks" in blocks["result"]["data"]


async def test_post_refusals_are_json_rpc_errors(sim: LocalExchange, funded: Client, clock: FrozenClock) -> None:
    refused = signed(
        "cancelByOid", {"cancels": [{"oid": 9, "instrumentId": 1}], "expiresAfter": 2**41}, clock.now_ms() + 1
    )
    async with connect(sim.ws_url) as ws:
        reply = await post(ws, "1", "action", refused)
        assert reply["error"]["code"] == 422 and reply["error"]["message"] == "order 9 is not an open order"
        assert (reply["error"]["data"]["tx_type"], reply["error"]["data"]["success"]) == (1302, False)
        cases = [
            ("info", {"method": "ticker", "params": {"symbol": "NOPE-PERP"}}, "unknown instrument 'NOPE-PERP'"),
            ("explorer", {"method": "transaction", "params": {"tx_hash": "0x00"}}, "transaction not found"),
            ("action", {"action": {}}, "action.type"),
            ("dance", {}, "params.type"),
        ]
        for i, (kind, payload, message) in enumerate(cases, start=2):
            reply = await post(ws, str(i), kind, payload)
            assert reply["error"]["code"] == 400 and message in reply["error"]["message"], reply


async def test_post_rate_limits_are_errors(sim: LocalExchange) -> None:
    sim.limiter.limits.info_per_minute = 1
    async with connect(sim.ws_url) as ws:
        body = {"method": "ticker", "params": {"symbol": "BTC-PERP"}}
        assert "result" in await post(ws, "1", "info", body)
        assert (await post(ws, "2", "info", body))["error"]["code"] == 429


async def test_xtuis_socket_client_raises_a_refusal(sim: LocalExchange, funded: Client, clock: FrozenClock) -> None:
    refused = signed(
        "cancelByOid", {"cancels": [{"oid": 9, "instrumentId": 1}], "expiresAfter": 2**41}, clock.now_ms() + 1
    )
    async with WsClient(sim.ws_url) as ws:
        await ws.wait_live()
        with pytest.raises(RpcError, match="order 9 is not an open order") as raised:
            await ws.post("action", refused)
        assert raised.value.code == 422
        ok = await ws.post("action", signed("cancelAll", {"expiresAfter": 2**41}, clock.now_ms() + 2))
        assert ok["address"] == ALICE.address  # the whole envelope, as over HTTP
    with pytest.raises(ActionRejected):  # and over HTTP, our client raises the envelope's error
        await funded.cancel_by_oid([(9, 1)])
