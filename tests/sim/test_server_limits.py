"""Rate limits of the local exchange, per client address, with lowered limits and a frozen clock."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from websockets.asyncio.client import connect

from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits

TICKER = b'{"method": "ticker", "params": {"symbol": "BTC-PERP"}}'


@pytest.fixture
def sim_config() -> SimConfig:
    return SimConfig(
        seed=7,
        market=False,
        limits=Limits(
            info_per_minute=3,
            info_per_hour=5,
            exchange_per_minute=2,
            ban_after=2,
            ws_connections=2,
            ws_subscriptions=2,
            ws_messages_per_minute=4,
        ),
    )


async def test_info_headers_then_429_then_418_bans_that_grow(sim: LocalExchange, clock: FrozenClock) -> None:
    async with httpx.AsyncClient(base_url=sim.url) as h:
        for i in range(1, 4):
            r = await h.post("/info", content=TICKER)
            assert r.status_code == 200
            assert r.headers["X-RateLimit-1m"] == f"{i}/3"
            assert r.headers["X-RateLimit-1h"] == f"{i}/5"
            assert r.headers["X-Used-Weight-1m"] == str(i)
        r = await h.post("/info", content=TICKER)
        assert r.status_code == 429 and r.json()["code"] == 429
        assert 0 < int(r.headers["Retry-After"]) <= 60
        r = await h.post("/info", content=TICKER)  # calling while told to wait: a second violation
        assert r.status_code == 429
        r = await h.post("/info", content=TICKER)  # a third: banned for 5 minutes
        assert r.status_code == 418 and r.json()["code"] == 418 and "300 seconds" in r.json()["message"]
        clock.advance(299_000)
        assert (await h.post("/info", content=TICKER)).status_code == 418
        clock.advance(2_000)
        assert (await h.post("/info", content=TICKER)).status_code == 200  # a new minute, the ban is over
        assert (await h.post("/info", content=TICKER)).status_code == 200  # the hour's 5th call
        # the hour's budget is spent: two more violations, and the next ban is 30 minutes
        assert (await h.post("/info", content=TICKER)).status_code == 429
        assert (await h.post("/info", content=TICKER)).status_code == 429
        r = await h.post("/info", content=TICKER)
        assert r.status_code == 418 and "1800 seconds" in r.json()["message"]


async def test_exchange_limit_is_separate_from_info(sim: LocalExchange) -> None:
    async with httpx.AsyncClient(base_url=sim.url) as h:
        for _ in range(2):
            r = await h.post("/exchange", content=b"{}")
            assert r.status_code == 400 and r.headers["X-Used-Weight-1m"]
        assert (await h.post("/exchange", content=b"{}")).status_code == 429
        assert (await h.post("/info", content=TICKER)).status_code == 200


async def _rpc(ws, method: str, params: object = None, rid: str = "1") -> dict:  # type: ignore[no-untyped-def]
    msg: dict = {"jsonrpc": "2.0", "method": method, "id": rid}
    if params is not None:
        msg["params"] = params
    await ws.send(json.dumps(msg))
    while True:
        reply = json.loads(await ws.recv())
        if reply.get("id") == rid:
            return reply


async def test_ws_subscription_and_message_limits(sim: LocalExchange) -> None:
    async with connect(sim.ws_url) as ws:
        ok = await _rpc(ws, "subscribe", {"channel": "ticker", "symbol": "BTC-PERP"}, "1")
        assert ok["result"] == {"status": "subscribed", "channels": ["ticker@BTC-PERP"]}
        await _rpc(ws, "subscribe", {"channel": "bbo", "symbol": "BTC-PERP"}, "2")
        third = await _rpc(ws, "subscribe", {"channel": "trades", "symbol": "BTC-PERP"}, "3")
        assert third["result"]["status"] == "error" and "subscriptions" in third["result"]["error"]
        assert (await _rpc(ws, "ping", None, "4"))["result"]["pong"] is True
        fifth = await _rpc(ws, "ping", None, "5")  # the 5th message in a minute
        assert fifth["error"]["code"] == 429


async def test_ws_connection_limit(sim: LocalExchange) -> None:
    async with connect(sim.ws_url), connect(sim.ws_url):
        for _ in range(2):  # refusals give nothing back: the limit holds however often it is tried
            async with connect(sim.ws_url) as refused:
                reply = json.loads(await asyncio.wait_for(refused.recv(), 5))
                assert "too many connections" in reply["error"]["message"]
    async with connect(sim.ws_url) as again:  # the two closed: room again
        assert (await _rpc(again, "ping", None, "1"))["result"]["pong"] is True


async def test_a_forwarded_for_header_does_not_change_whose_budget_a_call_spends(sim: LocalExchange) -> None:
    """Nothing stands in front of the local exchange, so a client cannot name another address to dodge limits."""
    async with httpx.AsyncClient(base_url=sim.url) as h:
        for i in range(1, 4):
            r = await h.post("/info", content=TICKER, headers={"X-Forwarded-For": f"10.0.0.{i}"})
            assert r.status_code == 200 and r.headers["X-RateLimit-1m"] == f"{i}/3"
        r = await h.post("/info", content=TICKER, headers={"X-Forwarded-For": "10.0.0.9"})
        assert r.status_code == 429
