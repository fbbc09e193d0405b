"""The local exchange's edge: malformed input, rejected actions and what they leave unchanged.

Each case sends a real request over loopback and then checks, with /info, that nothing moved.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.conftest import ALICE_KEY
from tui.api import wire
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

ALICE = Signer(ALICE_KEY)
MALLORY = Signer("0x" + "66" * 32)


async def _post(sim: LocalExchange, path: str, content: bytes | str) -> httpx.Response:
    async with httpx.AsyncClient() as h:
        return await h.post(sim.url + path, content=content, headers={"Content-Type": "application/json"})


async def _state(alice: Client) -> tuple[Any, ...]:
    s = await alice.account_summary(ALICE.address)
    orders = await alice.open_orders(ALICE.address)
    return (s.collateral, s.perp_positions, [o.order_id for o in orders.data])


def _signed_order(clock: FrozenClock, nonce: int | None = None, signer: Signer = ALICE, **over: Any) -> dict[str, Any]:
    n = nonce or clock.now_ms()
    data = wire.action_data(
        "placeOrder", {"orders": [wire.order_item(1, "b", "90000", "0.01")], "expiresAfter": n + 60_000}, n
    )
    data.update(over)
    return wire.build_body("placeOrder", data, signer.sign_action(data, 1301), "seed")


@pytest.fixture
async def funded(alice: Client) -> Client:
    await alice.cancel_all()  # the first signed action creates and funds the account
    return alice


@pytest.mark.parametrize(
    ("body", "names"),
    [
        (b"{not json", "not valid JSON"),
        (b"[]", "body"),
        (b'{"signature": "0x", "nonce": 1}', "action"),
        (b'{"action": {"type": "placeOrder"}, "signature": "0x", "nonce": 1}', "action.data"),
        (b'{"action": {"type": "placeOrder", "data": {}}, "signature": 5, "nonce": 1}', "signature"),
        (b'{"action": {"type": "placeOrder", "data": {}}, "signature": "0x", "nonce": "1"}', "nonce"),
        (
            b'{"action": {"type": "placeOrder", "data": {"expiresAfter": 1, "nonce": 1}},'
            b' "signature": "0x", "nonce": 1}',
            "action.data.orders",
        ),
    ],
)
async def test_malformed_exchange_bodies_are_400_naming_the_field(
    sim: LocalExchange, funded: Client, body: bytes, names: str
) -> None:
    before = await _state(funded)
    resp = await _post(sim, "/exchange", body)
    assert resp.status_code == 400
    assert resp.headers["content-type"].startswith("application/json")
    assert resp.json()["type"] == "error" and names in resp.json()["message"]
    assert await _state(funded) == before


@pytest.mark.parametrize(
    ("field", "value", "names"),
    [
        ("price", "abc", "orders[0].price"),
        ("size", 5, "orders[0].size"),
        ("side", "buy", "orders[0].side"),
        ("instrumentId", 0, "orders[0].instrumentId"),
        ("tif", "GTD", "orders[0].tif"),
        ("ro", "yes", "orders[0].ro"),
    ],
)
async def test_mistyped_order_fields_are_400_naming_the_field(
    sim: LocalExchange, funded: Client, clock: FrozenClock, field: str, value: Any, names: str
) -> None:
    before = await _state(funded)
    body = _signed_order(clock)
    body["action"]["data"]["orders"][0][field] = value
    resp = await _post(sim, "/exchange", httpx.Request("POST", "/", json=body).content)
    assert resp.status_code == 400 and names in resp.json()["message"]
    assert await _state(funded) == before


async def test_replayed_nonce_is_rejected_and_changes_nothing(
    sim: LocalExchange, funded: Client, clock: FrozenClock
) -> None:
    body = _signed_order(clock, nonce=clock.now_ms() + 5)
    raw = httpx.Request("POST", "/", json=body).content
    first = (await _post(sim, "/exchange", raw)).json()
    assert first["error"] == "" and first["address"] == ALICE.address
    after_first = await _state(funded)
    replay = (await _post(sim, "/exchange", raw)).json()
    assert "already used" in replay["error"]
    assert await _state(funded) == after_first


async def test_expired_action_is_rejected(sim: LocalExchange, funded: Client, clock: FrozenClock) -> None:
    before = await _state(funded)
    n = clock.now_ms() - 120_000
    data = wire.action_data(
        "placeOrder", {"orders": [wire.order_item(1, "b", "90000", "0.01")], "expiresAfter": n + 60_000}, n
    )
    body = wire.build_body("placeOrder", data, ALICE.sign_action(data, 1301), "seed")
    resp = (await _post(sim, "/exchange", httpx.Request("POST", "/", json=body).content)).json()
    assert "expired" in resp["error"] and resp["tx_hash"] == ""
    assert await _state(funded) == before


async def test_unknown_action_is_a_400_and_changes_nothing(sim: LocalExchange, funded: Client) -> None:
    before = await _state(funded)
    body = {"action": {"type": "mintMoney", "data": {"nonce": 1}}, "signature": "0x" + "00" * 65, "nonce": 1}
    resp = await _post(sim, "/exchange", httpx.Request("POST", "/", json=body).content)
    assert resp.status_code == 400 and "unknown action type" in resp.json()["message"]
    assert await _state(funded) == before


async def test_tampered_data_does_not_act_for_the_signer(
    sim: LocalExchange, funded: Client, clock: FrozenClock
) -> None:
    """Changing a signed field makes the signature recover some other address, never Alice's."""
    before = await _state(funded)
    body = _signed_order(clock)
    body["action"]["data"]["orders"][0]["size"] = "5"
    resp = (await _post(sim, "/exchange", httpx.Request("POST", "/", json=body).content)).json()
    assert resp.get("address", "") != ALICE.address
    assert await _state(funded) == before


async def test_garbage_signature_is_400(sim: LocalExchange, funded: Client, clock: FrozenClock) -> None:
    body = _signed_order(clock)
    body["signature"] = "0x1234"
    resp = await _post(sim, "/exchange", httpx.Request("POST", "/", json=body).content)
    assert resp.status_code == 400 and "signature" in resp.json()["message"]


async def test_agent_cannot_move_funds(sim: LocalExchange, funded: Client, clock: FrozenClock) -> None:
    agent = Signer("0x" + "ab" * 32)
    await funded.add_agent(agent, "bot", clock.now_ms() + 3_600_000)
    n = clock.now_ms() + 1
    data = wire.action_data("derivativeWithdrawRequest", {"collateralId": 1, "amount": "10", "chainId": 1}, n)
    body = wire.build_body("derivativeWithdrawRequest", data, agent.sign_action(data, 1003), "seed")
    resp = (await _post(sim, "/exchange", httpx.Request("POST", "/", json=body).content)).json()
    assert "own key" in resp["error"]


@pytest.mark.parametrize(
    ("body", "names"),
    [
        (b"nope", "not valid JSON"),
        (b'{"params": {}}', "method"),
        (b'{"method": "ticker", "params": []}', "params"),
        (b'{"method": "nope", "params": {}}', "nope"),
        (b'{"method": "orderbook", "params": {}}', "symbol"),
        (b'{"method": "account_summary", "params": {"user": 12}}', "user"),
        (b'{"method": "fills", "params": {"user": "0x0000000000000000000000000000000000000001", "page": "x"}}', "page"),
    ],
)
async def test_malformed_info_bodies_are_400_naming_the_field(sim: LocalExchange, body: bytes, names: str) -> None:
    resp = await _post(sim, "/info", body)
    assert resp.status_code == 400
    assert resp.json()["type"] == "error" and names in resp.json()["message"]


async def test_null_params_are_absent(sim: LocalExchange) -> None:
    resp = await _post(sim, "/info", b'{"method": "ticker", "params": {"symbol": "BTC-PERP", "page": null}}')
    assert resp.status_code == 200 and resp.json()[0]["symbol"] == "BTC-PERP"


async def test_camel_case_method_aliases(sim: LocalExchange) -> None:
    body = b'{"method": "supportedCollateral", "params": {"symbol": "all"}}'
    resp = await _post(sim, "/info", body)
    assert resp.status_code == 200 and resp.json()[0]["symbol"] == "USDC"
