"""Every field of every /exchange action (and of each order, cancel and broker config in them, and the body's
own nonce, signature and type), given every hostile value (a superscript or Arabic-Indic digit, 1e999999999,
NaN, -1, huge integers, a list, an object, null, true, 10,000 characters), signed by a real key: each is a 400
naming the field or a refused envelope, never a 500 and never applied, and the exchange answers the next
request. The actions and their fields are the wire module's own table.

Each case says what was tried."""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import msgpack
import pytest

from tests.conftest import ALICE_KEY
from tests.sim.hostile_values import HOSTILE, NULL, encode, with_value
from tui.api import wire
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits

ALICE = Signer(ALICE_KEY)
AGENT = Signer("0x" + "a7" * 32)
OTHER = Signer("0x" + "b7" * 32).address
EXPIRES = 2**42

ORDER = wire.order_item(1, "b", "90000", "0.01", cloid="c-1")
FIELDS: dict[str, dict[str, Any]] = {  # action -> valid fields (the agent's inner signature is made per nonce)
    "placeOrder": {"orders": [ORDER], "brokerConfig": {"broker": OTHER, "fee": "0"}, "expiresAfter": EXPIRES},
    "cancelByOid": {"cancels": [{"oid": 1, "instrumentId": 1}], "expiresAfter": EXPIRES},
    "cancelByCloid": {"cancels": [{"cloid": "c-1", "instrumentId": 1}], "expiresAfter": EXPIRES},
    "cancelAll": {"expiresAfter": EXPIRES},
    "cancelByInstrument": {"instrumentId": 1, "expiresAfter": EXPIRES},
    "spotWithdrawRequest": {"collateralId": 1, "amount": "1", "chainId": 11155111},
    "derivativeWithdrawRequest": {"collateralId": 1, "amount": "1", "chainId": 11155111},
    "spotBalanceTransferRequest": {"collateralId": 1, "amount": "1", "destination": OTHER},
    "derivativeBalanceTransferRequest": {"collateralId": 1, "amount": "1", "destination": OTHER},
    "internalBalanceTransferRequest": {"collateralId": 1, "amount": "1", "toDerivativesAccount": False},
    "depositToVault": {"vaultAddress": "{vault}", "amount": "1"},
    "redeemFromVault": {"vaultAddress": "{vault}", "shares": "1"},
    "addAgent": {"agentName": "bot", "agent": AGENT.address, "forAccount": "", "signature": "{inner}",
                 "validUntil": EXPIRES},
    "revokeAgent": {"agent": AGENT.address, "forAccount": ""},
    "updatePerpInstrumentLeverage": {"instrumentId": 1, "leverage": "5"},
    "approveBrokerFee": {"broker": OTHER, "maxFeeRate": "0.001"},
    "createReferralCode": {"code": "ALICE1"},
    "setReferrer": {"code": "NOSUCH"},
    "claimReferralRewards": {"collateralId": 1, "spot": False},
}  # fmt: skip
# fields a value of the hostile list may rightly have: a name or a client order id may be any short text, a
# referral code any 3-20 ASCII letters and digits, and a boolean field takes true
SHORT_TEXT = {"²", "٣", "１", "1e999999999", "NaN", "-1"}
TEXTS = {"agentName": SHORT_TEXT, "cloid": SHORT_TEXT, "code": {"1e999999999", "NaN"}}
BOOLEANS = {"ro", "po", "isMarket", "toDerivativesAccount", "spot"}


def paths(fields: dict[str, Any]) -> list[str]:
    """Every field, and every field of the first item of an array or of an object in it."""
    out = []
    for name, value in fields.items():
        out.append(name)
        if isinstance(value, list):
            out += [f"{name}[0].{k}" for k in value[0]]
        elif isinstance(value, dict):
            out += [f"{name}.{k}" for k in value]
    return out


def fitting(path: str, value: Any) -> bool:
    last = path.rsplit(".", 1)[-1]
    if isinstance(value, str) and value in TEXTS.get(last, ()):
        return True
    return last in BOOLEANS and value is True


CASES = [(name, path) for name, fields in FIELDS.items() for path in paths(fields)]
_nonces = itertools.count(1_800_000_000_000)


def signed_body(name: str, fields: dict[str, Any], vault: str) -> bytes:
    """``name`` with ``fields`` signed by Alice as the SDKs sign it; a value msgpack cannot hold (a 400-digit
    integer, a raw token) gets a signature over nothing (the body is refused before a signature is read)."""
    nonce = next(_nonces)
    fields = {k: (vault if v == "{vault}" else v) for k, v in fields.items()}
    if fields.get("signature") == "{inner}":
        fields["signature"] = AGENT.sign_action({"signer": ALICE.address, "nonce": nonce}, 1201, testnet=True)
    data = {**fields, "nonce": nonce}  # as sent, a null kept (``wire.action_data`` would leave it out)
    try:
        signature = ALICE.sign_action(data, wire.tx_type(name, "sdk"), testnet=True)
    except (OverflowError, TypeError, ValueError, msgpack.PackException):
        signature = "0x" + "11" * 65
    return encode(wire.build_body(name, data, signature, "sdk"))


@pytest.fixture
def sim_config() -> SimConfig:
    return SimConfig(seed=7, market=False, limits=Limits(exchange_per_minute=10**9, info_per_minute=10**9))


@pytest.fixture
async def h(sim: LocalExchange, alice: Client) -> AsyncIterator[httpx.AsyncClient]:
    """A client of an exchange where Alice has an account."""
    await alice.cancel_all()
    async with httpx.AsyncClient(base_url=sim.url) as client:
        yield client


@pytest.mark.parametrize(("name", "path"), CASES, ids=[f"{c[0]}.{c[1]}" for c in CASES])
async def test_every_hostile_value_of_every_field_is_refused(
    sim: LocalExchange, h: httpx.AsyncClient, caplog: pytest.LogCaptureFixture, name: str, path: str
) -> None:
    """Tried: action ``name``, signed by Alice, with ``path`` set to each hostile value and null."""
    caplog.set_level(logging.WARNING)
    vault = sim.engine.vault_list()["vaults"][0]["vault_address"]
    valid = FIELDS[name]
    optional = set(wire.ACTIONS[name].optional) | {"brokerConfig"} if name == "placeOrder" else set()
    for tried, value in [*HOSTILE, NULL]:
        if fitting(path, value) or (value is None and path in optional):
            continue
        raw = signed_body(name, with_value(valid, path, value), vault)
        before = len(sim.engine.chain.pending)  # the frozen clock seals no block meanwhile
        resp = await h.post("/exchange", content=raw, headers={"content-type": "application/json"})
        assert resp.status_code in (200, 400), (name, path, tried, resp.status_code, resp.text[:300])
        answer = resp.json()
        if resp.status_code == 400:
            assert answer["type"] == "error" and answer["message"], (name, path, tried, answer)
            assert len(answer["message"]) <= 300, (name, path, tried, answer["message"])
        else:  # well formed, and refused: nothing applied
            assert answer["error"] and answer["tx_hash"] == "", (name, path, tried, answer)
            assert len(sim.engine.chain.pending) == before, (name, path, tried)
    assert (await h.post("/info", json={"method": "instruments", "params": {}})).status_code == 200
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


BODY_CASES = [
    ("body.nonce", lambda b, v: {**b, "nonce": v}),
    ("body.signature", lambda b, v: {**b, "signature": v}),
    ("body.action.type", lambda b, v: {**b, "action": {**b["action"], "type": v}}),
    ("body.action.data.nonce",
     lambda b, v: {**b, "action": {**b["action"], "data": {**b["action"]["data"], "nonce": v}}}),
    ("body.action.data", lambda b, v: {**b, "action": {**b["action"], "data": v}}),
    ("body.action", lambda b, v: {**b, "action": v}),
]  # fmt: skip


@pytest.mark.parametrize(("where", "put"), BODY_CASES, ids=[c[0] for c in BODY_CASES])
async def test_every_hostile_value_of_the_body_itself_is_a_400(
    sim: LocalExchange, h: httpx.AsyncClient, caplog: pytest.LogCaptureFixture, where: str, put: Any
) -> None:
    """Tried: a signed cancelAll whose ``where`` is each hostile value and null."""
    caplog.set_level(logging.WARNING)
    body = json.loads(signed_body("cancelAll", {"expiresAfter": EXPIRES}, ""))
    for tried, value in [*HOSTILE, NULL]:
        resp = await h.post("/exchange", content=encode(put(body, value)))
        if where == "body.action.type" and isinstance(value, int) and not isinstance(value, bool):
            assert resp.status_code in (200, 400), (where, tried, resp.text[:300])  # a code as a number
            continue
        assert resp.status_code == 400, (where, tried, resp.status_code, resp.text[:300])
        assert resp.json()["type"] == "error" and resp.json()["message"], (where, tried)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


def test_the_table_lists_every_action() -> None:
    """Tried: the wire module's actions against the ones here, and each one's fields."""
    assert set(FIELDS) == set(wire.ACTIONS)
    for name, spec in wire.ACTIONS.items():
        assert set(FIELDS[name]) == set(spec.fields), name
    assert set(FIELDS["placeOrder"]["orders"][0]) == set(wire.ORDER_FIELDS)
