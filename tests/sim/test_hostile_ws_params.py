"""Every parameter of every WebSocket method, given every hostile value: subscribe (each channel's parameters),
unsubscribe, ping and post (its type, its payload, and every parameter of every /info and /explorer method
through it). Each gets an error in its reply, never an internal error, the connection goes on, and the
exchange logs nothing at ERROR.

Each case says what was tried."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from tests.conftest import ALICE_KEY
from tests.sim.hostile_values import HOSTILE, NULL, encode, with_value
from tests.sim.test_hostile_params import CASES as QUERY_CASES
from tests.sim.test_hostile_params import FITTING, filled
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.server import ws_channels
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits

ALICE = Signer(ALICE_KEY).address
WAIT_S = 10.0
# channel -> valid subscribe params: every parameter ``ws_channels.subscription_key`` reads for it
SUBSCRIBE: dict[str, dict[str, Any]] = {
    **{ch: {"channel": ch, "symbol": "BTC-PERP"} for ch in sorted(ws_channels.MARKET)},
    **{ch: {"channel": ch, "user": ALICE} for ch in sorted(ws_channels.ACCOUNT)},
    **{ch: {"channel": ch} for ch in sorted(ws_channels.GLOBAL)},
    "chart": {"channel": "chart", "instrument_id": 1, "chart_type": "ltp", "resolution": "1"},
}
SUBSCRIBE_ALIASES = [  # the other spellings it reads, each tried on its own
    {"channel": "orderbook", "instrument_id": 1},
    {"channel": "trades", "instrumentId": 1},
    {"channel": "orders", "address": ALICE},
    {"channel": "chart", "symbol": "BTC-PERP", "chart_type": "mark", "resolution": "5"},
]
SUB_CASES = [
    (params, name)
    for params in [*SUBSCRIBE.values(), *SUBSCRIBE_ALIASES]
    for name in params
    if not (name == "channel" and params["channel"] in ws_channels.GLOBAL and len(params) > 1)
]
OPTIONAL = {"chart_type", "resolution"}  # a chart's defaults: ltp, 1 minute


@pytest.fixture
def sim_config() -> SimConfig:
    lots = 10**9
    return SimConfig(
        seed=7,
        market=False,
        limits=Limits(info_per_minute=lots, info_per_hour=lots, exchange_per_minute=lots, ws_messages_per_minute=lots),
    )


@pytest.fixture
async def ws(sim: LocalExchange, alice: Client) -> AsyncIterator[ClientConnection]:
    await alice.cancel_all()  # a transaction to look up, and Alice's account
    sim.step(1_000)
    async with connect(sim.ws_url) as conn:
        yield conn


async def reply_to(ws: ClientConnection, frame: str | bytes, rid: int) -> dict[str, Any]:
    """The reply with id ``rid``, or the parse error of a frame that cannot be read (a 5,000-digit number):
    it has no id. Pictures and other notifications are passed over."""
    await ws.send(frame)
    async with asyncio.timeout(WAIT_S):
        while True:
            reply = json.loads(await ws.recv())
            if reply.get("id") == rid or (reply.get("id") is None and reply.get("error", {}).get("code") == -32700):
                assert isinstance(reply, dict)
                return reply


def refused(reply: dict[str, Any]) -> str:
    """The reply's error message: a JSON-RPC error or a subscribe result with status error ("" if neither)."""
    if "error" in reply:
        assert reply["error"]["code"] != -32603, reply  # an internal error is a bug, not a refusal
        return str(reply["error"]["message"])
    result = reply.get("result") or {}
    return str(result.get("error") or "") if result.get("status") == "error" else ""


@pytest.mark.parametrize(("params", "name"), SUB_CASES, ids=[f"{p['channel']}.{n}" for p, n in SUB_CASES])
async def test_every_hostile_value_of_every_subscribe_parameter_is_refused(
    ws: ClientConnection, caplog: pytest.LogCaptureFixture, params: dict[str, Any], name: str
) -> None:
    """Tried: subscribe to a channel with ``name`` set to each hostile value and null, the rest valid."""
    caplog.set_level(logging.WARNING)
    assert (await reply_to(ws, json.dumps({"jsonrpc": "2.0", "method": "subscribe", "params": params, "id": 1}), 1))[
        "result"
    ]["status"] == "subscribed"
    for i, (tried, value) in enumerate([*HOSTILE, NULL], start=2):
        if value is None and name in OPTIONAL:
            continue
        frame = encode({"jsonrpc": "2.0", "method": "subscribe", "params": with_value(params, name, value), "id": i})
        reply = await reply_to(ws, frame.decode(), i)
        message = refused(reply)
        assert message and len(message) <= 300, (params["channel"], name, tried, reply)
    assert (await reply_to(ws, json.dumps({"jsonrpc": "2.0", "method": "ping", "id": 99}), 99))["result"]["pong"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


@pytest.mark.parametrize("method", ["unsubscribe", "post", "subscribe"])
async def test_every_hostile_params_of_a_method_is_refused(
    ws: ClientConnection, caplog: pytest.LogCaptureFixture, method: str
) -> None:
    """Tried: ``method`` with ``params`` itself each hostile value (and, for post, its type and payload)."""
    caplog.set_level(logging.WARNING)
    frames = [{"jsonrpc": "2.0", "method": method, "params": value, "id": i} for i, (_, value) in enumerate(HOSTILE, 1)]
    if method == "post":
        frames += [
            {"jsonrpc": "2.0", "method": "post", "params": {"type": kind, "payload": value}, "id": 100 + i}
            for i, (_, value) in enumerate([*HOSTILE, NULL])
            for kind in ("action", "info", "explorer")
        ]
        frames += [
            {"jsonrpc": "2.0", "method": "post", "params": {"type": value, "payload": {}}, "id": 300 + i}
            for i, (_, value) in enumerate([*HOSTILE, NULL])
        ]
    for frame in frames:
        reply = await reply_to(ws, encode(frame).decode(), frame["id"])
        if method == "unsubscribe" and "result" in reply:  # a list of names is the one params it takes
            assert reply["result"]["channels"] == [], (frame, reply)
            continue
        assert refused(reply), (frame, reply)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


async def test_every_hostile_query_parameter_over_post_is_refused(
    sim: LocalExchange, ws: ClientConnection, caplog: pytest.LogCaptureFixture
) -> None:
    """Tried: post (type info or explorer) of every /info and /explorer method with each parameter set to each
    hostile value and null, as over HTTP: each a JSON-RPC error 400."""
    caplog.set_level(logging.WARNING)
    rid = 0
    for endpoint, method, valid, optional, param in QUERY_CASES:
        params = filled(sim, valid)
        for tried, value in [*HOSTILE, NULL] if param not in optional else HOSTILE:
            if type(value) is bool and value in FITTING.get(param.rsplit(".", 1)[-1], ()):
                continue
            rid += 1
            payload = {"method": method, "params": with_value(params, param, value)}
            frame = {"jsonrpc": "2.0", "method": "post", "params": {"type": endpoint, "payload": payload}, "id": rid}
            reply = await reply_to(ws, encode(frame).decode(), rid)
            assert reply.get("error", {}).get("code") in (400, -32700), (method, param, tried, reply)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


@pytest.mark.parametrize("user", ["0x" + "g" * 40, "0x" + "²" * 40, "0x" + "٣" * 40])
async def test_an_account_channel_needs_an_address_not_its_shape(ws: ClientConnection, user: str) -> None:
    """Tried: fills for "0x" and 40 characters that are not hex digits (on the old code: subscribed)."""
    frame = json.dumps({"jsonrpc": "2.0", "method": "subscribe", "params": {"channel": "fills", "user": user}, "id": 1})
    assert "expected an address" in refused(await reply_to(ws, frame, 1))
