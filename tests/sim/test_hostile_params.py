"""Every parameter of every /info and /explorer method, given every hostile value (a superscript or
Arabic-Indic digit, 1e999999999, NaN, -1, huge integers, a list, an object, null, true, 10,000 characters):
each is a 4xx with a JSON error that names the parameter, never a 500, and the exchange answers the next
request. The methods and their parameters are the dispatcher's own tables, and a parameter a handler reads
that the table here does not list fails ``test_the_table_lists_every_parameter_each_method_reads``.

Each case says what was tried."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.conftest import ALICE_KEY
from tests.sim.hostile_values import ABSENT, HOSTILE, NULL, encode, with_value
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server import dispatch
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits

ALICE = Signer(ALICE_KEY).address
VAULT = "{vault}"  # filled in with the first vault's address, read from the exchange

# method -> (valid params, the optional ones): every parameter each handler reads
INFO: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "account_summary": ({"user": ALICE}, ()),
    "account_info": ({"user": ALICE, "collateralID": 1, "includeHistory": False}, ("collateralID", "includeHistory")),
    "account_history": ({"user": ALICE}, ()),
    "referral_summary": ({"user": ALICE}, ()),
    "brokers_check": ({"user": ALICE, "broker": ALICE, "page": 1, "limit": 10}, ("user", "broker", "page", "limit")),
    "fills": ({"user": ALICE, "page": 1, "limit": 10}, ("page", "limit")),
    "open_orders": ({"user": ALICE, "page": 1, "limit": 10}, ("page", "limit")),
    "order_history": ({"user": ALICE, "page": 1, "limit": 10}, ("page", "limit")),
    "funding_history": ({"user": ALICE, "page": 1, "limit": 10}, ("page", "limit")),
    "positions": ({"user": ALICE, "instrument": "BTC-PERP"}, ("instrument",)),
    "transfer_history": ({"user": ALICE, "page": 1, "limit": 10}, ("page", "limit")),
    "instrument_leverage": ({"user": ALICE, "symbol": "BTC-PERP"}, ()),
    "all_agents": ({"user": ALICE}, ()),
    "instruments": ({"type": "perps"}, ("type",)),
    "ticker": ({"symbol": "BTC-PERP"}, ("symbol",)),
    "bbo": ({"symbol": "BTC-PERP"}, ("symbol",)),
    "mids": ({"symbol": "BTC-PERP"}, ("symbol",)),
    "orderbook": ({"symbol": "BTC-PERP", "depth": 5}, ("depth",)),
    "supported_collateral": ({"symbol": "USDC"}, ()),
    "chart": ({"symbol": "1", "chart_type": "ltp", "resolution": "1", "from": 0, "to": 60}, ("chart_type",)),
    "oracle": ({"symbol": "BTC-PERP"}, ()),
    "trades": ({"symbol": "BTC-PERP", "limit": 10}, ("limit",)),
    "user_fees": ({"user": ALICE}, ()),
    "vaults": ({}, ()),
    "sub_vaults": ({"vault_address": VAULT}, ()),
    "vault_balance": ({"vault_address": VAULT, "user": ALICE}, ("user",)),
}
# the other spellings a handler reads, each tried on its own
INFO_ALIASES: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "account_info": ({"user": ALICE, "collateralId": 1}, ("collateralId",)),
    "chart": ({"instrument_id": 1, "chart_type": "mark", "resolution": "5", "from": 0, "to": 60}, ("chart_type",)),
    "sub_vaults": ({"vaultAddress": VAULT}, ()),  # as the TypeScript SDK sends it
    "vault_balance": ({"vaultAddress": VAULT, "user": ALICE}, ("user",)),
}
EXPLORER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "block": ({"block_height": 0}, ()),
    "blocks": ({"offset": 0, "limit": 5}, ("offset", "limit")),
    "transaction": ({"tx_hash": "{tx}"}, ()),
    "transactions": (
        {"offset": 0, "limit": 5, "filter": {"account": ALICE, "tx_type": 1301}},
        ("offset", "limit", "filter", "filter.account", "filter.tx_type"),
    ),
}
EXPLORER_ALIASES: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "block": ({"block_hash": "{block}"}, ()),
}
# parameters whose type a hostile value may have, and so for which that value is not hostile
FITTING = {"includeHistory": (True,)}


def leaves(params: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for name, value in params.items():
        out.append(prefix + name)
        if isinstance(value, dict):
            out += leaves(value, f"{prefix}{name}.")
    return out


CASES = [
    (endpoint, method, valid, optional, param)
    for endpoint, table in (
        ("info", INFO),
        ("info", INFO_ALIASES),
        ("explorer", EXPLORER),
        ("explorer", EXPLORER_ALIASES),
    )
    for method, (valid, optional) in table.items()
    for param in leaves(valid)
]


@pytest.fixture
def sim_config() -> SimConfig:
    return SimConfig(seed=7, market=False, limits=Limits(info_per_minute=10**9, info_per_hour=10**9))


@pytest.fixture
async def h(sim: LocalExchange, alice: Client) -> AsyncIterator[httpx.AsyncClient]:
    """A client of an exchange with a transaction sealed in a block (Alice's first action)."""
    await alice.cancel_all()
    sim.step(1_000)
    async with httpx.AsyncClient(base_url=sim.url) as client:
        yield client


def filled(sim: LocalExchange, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with the vault, block and transaction placeholders replaced by ones the exchange has."""
    chain = sim.engine.chain
    marks = {"{vault}": sim.engine.vault_list()["vaults"][0]["vault_address"], "{block}": chain.blocks[-1].hash,
             "{tx}": chain.txs[-1].hash}  # fmt: skip
    text = encode(params).decode()
    for mark, value in marks.items():
        text = text.replace(mark, value)
    filled_params: dict[str, Any] = json.loads(text)
    return filled_params


@pytest.mark.parametrize(
    ("endpoint", "method", "valid", "optional", "param"), CASES, ids=[f"{c[0]}.{c[1]}.{c[4]}" for c in CASES]
)
async def test_every_hostile_value_of_every_parameter_is_a_4xx(
    sim: LocalExchange,
    h: httpx.AsyncClient,
    caplog: pytest.LogCaptureFixture,
    endpoint: str,
    method: str,
    valid: dict[str, Any],
    optional: tuple[str, ...],
    param: str,
) -> None:
    """Tried: ``method`` with ``param`` set to each hostile value and null, the other parameters valid."""
    caplog.set_level(logging.WARNING)
    params = filled(sim, valid)
    ok = await h.post(f"/{endpoint}", content=encode({"method": method, "params": params}))
    assert ok.status_code == 200, (method, params, ok.text[:300])  # the valid request is served
    values = [*HOSTILE, NULL] if param not in optional else HOSTILE
    for tried, value in values:
        if value in FITTING.get(param.rsplit(".", 1)[-1], ()) and type(value) is bool:
            continue
        raw = encode({"method": method, "params": with_value(params, param, value)})
        resp = await h.post(f"/{endpoint}", content=raw, headers={"content-type": "application/json"})
        assert 400 <= resp.status_code < 500, (method, param, tried, resp.status_code, resp.text[:300])
        answer = resp.json()
        assert answer["type"] == "error" and answer["message"], (method, param, tried, answer)
        assert len(answer["message"]) <= 300, (method, param, tried, len(answer["message"]))
    if param in optional:  # left out, or null (the same: absent), an optional parameter takes its default
        for value in (ABSENT, None):
            raw = encode({"method": method, "params": with_value(params, param, value)})
            assert (await h.post(f"/{endpoint}", content=raw)).status_code == 200, (method, param, value)
    again = await h.post(f"/{endpoint}", content=encode({"method": method, "params": params}))
    assert again.status_code == 200  # still serving
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


def test_the_table_lists_every_method() -> None:
    """Tried: the dispatcher's method tables against the ones here; a new method must come with its parameters."""
    assert set(INFO) == set(dispatch.INFO)
    assert set(EXPLORER) == set(dispatch.EXPLORER)


class Recording(dict[str, Any]):
    """A params object that notes every name a handler asks it for."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.asked: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self.asked.add(str(key))
        return super().__contains__(key)

    def __getitem__(self, key: str) -> Any:
        self.asked.add(key)
        return super().__getitem__(key)


@pytest.mark.parametrize(("endpoint", "method"), [("info", m) for m in INFO] + [("explorer", m) for m in EXPLORER])
def test_the_table_lists_every_parameter_each_method_reads(
    sim: LocalExchange, clock: FrozenClock, endpoint: str, method: str
) -> None:
    """Tried: each handler with no parameters and with the valid ones, noting every name it reads."""
    listed = set(INFO.get(method, EXPLORER.get(method, ({}, ())))[0])
    for table in (INFO_ALIASES, EXPLORER_ALIASES):
        listed |= set(table.get(method, ({}, ()))[0])
    asked: set[str] = set()
    for params in (Recording(), Recording(INFO.get(method, EXPLORER.get(method, ({}, ())))[0])):
        with contextlib.suppress(dispatch.QueryError):  # refused or not, what it read is noted
            getattr(sim.dispatch, endpoint)(method, params)
        asked |= params.asked
    assert asked <= listed, asked - listed


@pytest.mark.parametrize("endpoint", ["info", "explorer"])
@pytest.mark.parametrize("where", ["method", "params"])
async def test_every_hostile_method_or_params_is_a_4xx(
    sim: LocalExchange, h: httpx.AsyncClient, caplog: pytest.LogCaptureFixture, endpoint: str, where: str
) -> None:
    """Tried: the body's ``method`` or ``params`` itself each hostile value. Null params is no params, and an
    object of names no method reads is params with nothing in them (the SDKs send some): both served."""
    caplog.set_level(logging.WARNING)
    method = "blocks" if endpoint == "explorer" else "instruments"
    for tried, value in [*HOSTILE, NULL]:
        body = {"method": method, "params": {}, where: value}
        resp = await h.post(f"/{endpoint}", content=encode(body))
        if where == "params" and (value is None or isinstance(value, dict)):
            assert resp.status_code == 200
            continue
        assert 400 <= resp.status_code < 500, (where, tried, resp.status_code, resp.text[:300])
        assert resp.json()["type"] == "error" and 0 < len(resp.json()["message"]) <= 300, (where, tried)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
