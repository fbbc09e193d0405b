"""Hostile WebSocket clients against a real ``xtui sim`` process: each gets an error frame or a close with a
reason, the limits hold, and the exchange is unharmed (a polite client is served right after, and its log
holds no error). And the issue's HTTP row against the same process: integer parameters written with a
superscript digit.

Each case says what was tried."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tui.sim.server.ws_hub import MAX_FRAME_BYTES, REFUSALS_BEFORE_CLOSE

START_S = 30.0
WAIT_S = 10.0
MESSAGES_PER_MINUTE = 120
SUBSCRIPTIONS = 8
CONNECTIONS = 4


class Sim:
    def __init__(self, proc: asyncio.subprocess.Process, url: str, log_dir: Path) -> None:
        self.proc, self.ws_url, self.log_dir = proc, url.replace("http://", "ws://", 1) + "/ws/", log_dir

    def log(self) -> str:
        return "".join(p.read_text() for p in self.log_dir.glob("*.log*"))


@pytest.fixture
async def sim(tmp_path: Path) -> AsyncIterator[Sim]:
    """``xtui sim`` with small WebSocket limits, logging at info to its own directory."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tui", "sim", "--quiet-market", "--seed", "7",
        "--ws-messages-per-minute", str(MESSAGES_PER_MINUTE), "--ws-subscriptions", str(SUBSCRIPTIONS),
        "--ws-connections", str(CONNECTIONS),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "XTUI_LOG_DIR": str(tmp_path), "XTUI_LOG_LEVEL": "info", "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stdout is not None
    async with asyncio.timeout(START_S):
        line = (await proc.stdout.readline()).decode()
    assert line.startswith("listening on "), line
    try:
        yield Sim(proc, line.split()[-1], tmp_path)
    finally:
        proc.terminate()
        async with asyncio.timeout(WAIT_S):
            _, err = await proc.communicate()
        assert b"Traceback" not in err, err.decode()[-2000:]


def rpc(method: str, rid: int = 1, params: Any = None) -> str:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "id": rid}
    if params is not None:
        msg["params"] = params
    return json.dumps(msg)


async def answer(ws: ClientConnection) -> dict[str, Any]:
    async with asyncio.timeout(WAIT_S):
        reply = json.loads(await ws.recv())
    assert isinstance(reply, dict)
    return reply


async def served_politely(sim: Sim) -> None:
    """A polite client right after: its ping is answered and its subscription confirmed; no error in the log."""
    async with connect(sim.ws_url) as ws:
        await ws.send(rpc("ping"))
        assert (await answer(ws))["result"]["pong"] is True
        await ws.send(rpc("subscribe", 2, {"channel": "trades", "symbol": "BTC-PERP"}))
        assert (await answer(ws))["result"]["status"] == "subscribed"
    log = sim.log()
    assert sim.proc.returncode is None and "xtui sim (log level info)" in log  # the log read is the exchange's
    assert " ERROR " not in log and "Traceback" not in log


async def test_a_binary_frame_is_answered_with_an_error_and_the_connection_goes_on(sim: Sim) -> None:
    async with connect(sim.ws_url) as ws:
        await ws.send(b'\x00\xff{"jsonrpc":"2.0"}')
        reply = await answer(ws)
        assert reply["error"]["code"] == -32600 and "text" in reply["error"]["message"]
        await ws.send(rpc("ping", 7))
        assert (await answer(ws))["id"] == 7
    await served_politely(sim)


async def test_an_oversized_frame_is_closed_with_1009(sim: Sim) -> None:
    async with connect(sim.ws_url, max_size=None) as ws:
        # The server may close while the frame is still being written (the send raises) or after (the read does).
        with pytest.raises(ConnectionClosed) as closed:
            await ws.send(json.dumps({"jsonrpc": "2.0", "method": "ping", "id": 1, "pad": "a" * MAX_FRAME_BYTES}))
            await answer(ws)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    await served_politely(sim)


BAD_FRAMES = [
    ("a frame that is not JSON", "{nope", -32700),
    ("JSON nested 100,000 deep", "[" * 100_000 + "]" * 100_000, -32700),
    ("a JSON array, not an object", "[1, 2, 3]", -32600),
    ("a number too long to read", '{"jsonrpc":"2.0","method":"ping","id":' + "9" * 5000 + "}", -32700),
    ("an unknown method", rpc("shutdown"), -32601),
    ("subscribe without params", rpc("subscribe"), -32602),
    ("subscribe with params that are a list", rpc("subscribe", 1, ["trades"]), -32602),
    ("unsubscribe with a number", rpc("unsubscribe", 1, 5), -32602),
    ("post with params that are a string", rpc("post", 1, "placeOrder"), -32602),
]


@pytest.mark.parametrize(("tried", "frame", "code"), BAD_FRAMES, ids=[c[0] for c in BAD_FRAMES])
async def test_a_malformed_frame_gets_an_error_frame(sim: Sim, tried: str, frame: str, code: int) -> None:
    async with connect(sim.ws_url) as ws:
        await ws.send(frame)
        reply = await answer(ws)
        assert reply["error"]["code"] == code, (tried, reply)
        assert reply["error"]["message"]
    await served_politely(sim)


async def test_subscribing_to_what_does_not_exist_is_refused_in_the_reply(sim: Sim) -> None:
    async with connect(sim.ws_url) as ws:
        for i, params in enumerate(
            [
                {"channel": "no_such_channel"},
                {"channel": "trades", "symbol": "NOPE-PERP"},
                {"channel": "chart", "instrument_id": 2**64, "chart_type": "ltp", "resolution": "1"},
                {"channel": "trades", "symbol": {"$gt": ""}},
            ]
        ):
            await ws.send(rpc("subscribe", i, params))
            reply = await answer(ws)
            assert reply["result"]["status"] == "error" and reply["result"]["error"], (params, reply)
    await served_politely(sim)


async def test_a_flood_past_the_message_limit_is_refused_then_closed_with_a_reason(sim: Sim) -> None:
    sent = MESSAGES_PER_MINUTE + REFUSALS_BEFORE_CLOSE + 20
    async with connect(sim.ws_url) as ws:
        for i in range(sent):
            await ws.send(rpc("ping", i))
        codes: list[int] = []
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                reply = await answer(ws)
                codes.append(reply["error"]["code"] if "error" in reply else 0)
    assert codes.count(0) <= MESSAGES_PER_MINUTE  # the limit held
    assert codes.count(429) == REFUSALS_BEFORE_CLOSE  # each refusal said so, until the close
    rcvd = closed.value.rcvd
    assert rcvd is not None and rcvd.code == 1008 and "too many messages" in rcvd.reason
    # the address's minute is spent: a new connection is refused message by message, not served
    async with connect(sim.ws_url) as ws:
        await ws.send(rpc("ping", 1))
        assert (await answer(ws))["error"]["code"] == 429
    assert sim.proc.returncode is None and "closed by the exchange: flood" in sim.log()
    assert "Traceback" not in sim.log()


async def test_a_subscribe_storm_stops_at_the_limit_and_the_count_is_given_back(sim: Sim) -> None:
    channels = [
        {"channel": ch, "symbol": sym}
        for sym in ("BTC-PERP", "ETH-PERP")
        for ch in ("trades", "orderbook", "bbo", "ticker", "mids")
    ]
    assert len(channels) > SUBSCRIPTIONS
    async with connect(sim.ws_url) as ws:
        statuses = []
        for i, params in enumerate(channels):
            await ws.send(rpc("subscribe", i, params))
            reply = await answer(ws)
            while "id" not in reply:  # pictures follow each confirmation
                reply = await answer(ws)
            statuses.append(reply["result"]["status"])
        assert statuses.count("subscribed") == SUBSCRIPTIONS
        refused = [s for s in statuses if s != "subscribed"]
        assert refused and set(refused) == {"error"}
    await served_politely(sim)  # the storm's subscriptions were given back when it hung up


async def test_connections_past_the_limit_are_closed_with_a_reason(sim: Sim) -> None:
    held = [await connect(sim.ws_url) for _ in range(CONNECTIONS)]
    try:
        extra = await connect(sim.ws_url)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await answer(extra)
        rcvd = closed.value.rcvd
        assert rcvd is not None and rcvd.code == 1008 and "too many connections" in rcvd.reason
    finally:
        for ws in held:
            await ws.close()
    await served_politely(sim)


ISSUE_ROW = [  # issue 27: each was an HTTP 500 with nothing in the log
    ("info", {"method": "orderbook", "params": {"symbol": "BTC-PERP", "depth": "²"}}, "params.depth"),
    ("info", {"method": "fills", "params": {"user": "0x" + "11" * 20, "page": "²"}}, "params.page"),
    ("info", {"method": "chart", "params": {"symbol": "1", "chart_type": "ltp", "resolution": "1", "from": "²",
                                            "to": 60}}, "params.from"),
    ("explorer", {"method": "block", "params": {"block_height": "²"}}, "params.block_height"),
    ("info", {"method": "ticker", "params": {"symbol": "٣"}}, "unknown instrument"),  # was read as instrument 3
]  # fmt: skip


async def test_superscript_digits_in_integer_parameters_are_400s_of_a_real_process(sim: Sim) -> None:
    """Tried: the issue's row against ``xtui sim``: "depth":"²", "page":"²", chart from:"²", explorer
    block_height:"²", and an instrument "٣". Each a 400 naming the parameter; the log holds no error."""
    url = sim.ws_url.replace("ws://", "http://", 1).removesuffix("/ws/")
    async with httpx.AsyncClient(base_url=url) as h:
        for endpoint, body, named in ISSUE_ROW:
            resp = await h.post(f"/{endpoint}", json=body)
            assert resp.status_code == 400, (body, resp.status_code, resp.text[:200])
            assert named in resp.json()["message"], (body, resp.json())
    await served_politely(sim)
