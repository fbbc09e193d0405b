"""Hostile requests to the local exchange, over a real loopback socket: each is a 400 that names what is wrong,
nothing changes, and the server answers the next request. A client hanging up mid-request is one INFO line.

Each case says what was tried."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import httpx
import pytest

from tui.api import wire
from tui.sim.server.local_exchange import LocalExchange


def body(action_type: str, data: dict[str, Any], nonce: Any = 1) -> bytes:
    """An /exchange body as a client would build it (the signature is never reached: the body is refused first)."""
    return json.dumps(
        {"action": {"type": action_type, "data": data}, "signature": "0x" + "11" * 65, "nonce": nonce}
    ).encode()


def order(**over: Any) -> dict[str, Any]:
    return {"orders": [{**wire.order_item(1, "b", "90000", "0.01"), **over}], "expiresAfter": 2**41}


BIG = 2**64
CASES = [
    ("a full-width digit as a size", body("1301", order(size="１")), "size"),
    ("a trailing space in a size", body("1301", order(size="1 ")), "size"),
    ("a sign on a size", body("1301", order(size="+1")), "size"),
    ("an exponent in a price", body("1301", order(price="1e5")), "price"),
    ("NaN as a price", body("1301", order(price="NaN")), "price"),
    ("an instrument id of 2**64", body("1301", order(instrumentId=BIG)), "instrumentId"),
    ("an oid of 2**64", body("1302", {"cancels": [{"oid": BIG, "instrumentId": 1}], "expiresAfter": 2**41}), "oid"),
    ("a collateral id of 2**64", body("1003", {"collateralId": BIG, "amount": "1", "chainId": 1}), "collateralId"),
    ("a chain id of 2**64", body("1003", {"collateralId": 1, "amount": "1", "chainId": BIG}), "chainId"),
    ("a negative nonce", body("1311", {"expiresAfter": 2**41}, nonce=-1), "nonce"),
    ("a nonce of 2**64", body("1311", {"expiresAfter": 2**41}, nonce=BIG), "nonce"),
    ("an action type that does not exist", body("mintMoney", {}), "action.type"),
    ("a body that is not JSON", b"{not json", "not valid JSON"),
    ("a body that is a list", b"[1, 2]", "expected an object"),
]


@pytest.mark.parametrize(("tried", "raw", "named"), CASES, ids=[c[0] for c in CASES])
async def test_each_is_a_400_naming_the_field(sim: LocalExchange, tried: str, raw: bytes, named: str) -> None:
    async with httpx.AsyncClient(base_url=sim.url) as h:
        resp = await h.post("/exchange", content=raw, headers={"content-type": "application/json"})
        assert resp.status_code == 400, (tried, resp.status_code, resp.text)
        assert resp.json()["type"] == "error" and named in resp.json()["message"], (tried, resp.json())
        again = await h.post("/info", json={"method": "instruments", "params": {"type": "perps"}})  # still serving
        assert again.status_code == 200


async def test_a_client_hanging_up_mid_request_is_one_info_line(
    sim: LocalExchange, caplog: pytest.LogCaptureFixture
) -> None:
    host, port = sim.url.removeprefix("http://").split(":")
    caplog.set_level(logging.DEBUG)
    _, writer = await asyncio.open_connection(host, int(port))
    writer.write(
        b'POST /exchange HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{"act'
    )  # promises 400 bytes, sends 5, and goes
    await writer.drain()
    writer.close()
    await writer.wait_closed()
    async with httpx.AsyncClient(base_url=sim.url) as h:
        for _ in range(100):  # until the server has noticed (it answers other requests meanwhile)
            if any("hung up" in r.getMessage() for r in caplog.records):
                break
            assert (await h.post("/info", json={"method": "instruments", "params": {}})).status_code == 200
            await asyncio.sleep(0.01)
    said = [r for r in caplog.records if "hung up" in r.getMessage()]
    assert [(r.levelname, r.name) for r in said] == [("INFO", "tui.sim.server.http_posts")]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
