"""A subscription's first picture: right behind the reply, again at the client's next frame and after a
delay (for the SDKs, which listen only once they have handled the reply); and the index and balance channels."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from tests.conftest import ALICE_KEY
from tui.api import wire
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.server.local_exchange import LocalExchange

ALICE = Signer(ALICE_KEY)
WAIT_S = 5.0  # loopback delivery; far more than it takes


async def rpc(ws: ClientConnection, rid: str, method: str, params: Any = None) -> None:
    await ws.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}))


async def frame(ws: ClientConnection) -> dict[str, Any]:
    msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), WAIT_S))
    return msg


async def subscribe(ws: ClientConnection, rid: str, params: dict[str, Any]) -> tuple[str, Any]:
    """Subscribe; the echoed channel and the picture that follows the reply at once."""
    await rpc(ws, rid, "subscribe", params)
    reply = await frame(ws)
    assert reply["id"] == rid and reply["result"]["status"] == "subscribed", reply
    picture = await frame(ws)
    assert picture["method"] == "subscription" and picture["params"]["channel"] == reply["result"]["channels"][0]
    return reply["result"]["channels"][0], picture["params"]["data"]


@pytest.fixture
def no_timed_repeats(sim: LocalExchange) -> None:
    sim.hub.repeat_after_s = ()  # only the reply and the next frame bring a picture


@pytest.mark.parametrize(
    ("params", "check"),
    [
        ({"channel": "orderbook", "symbol": "BTC-PERP"}, lambda d: d["update_type"] == "snapshot"),
        ({"channel": "ticker", "symbol": "BTC-PERP"}, lambda d: d["symbol"] == "BTC-PERP" and "premium" in d),
        ({"channel": "ticker", "symbol": "all"}, lambda d: {t["symbol"] for t in d} >= {"BTC-PERP", "BTC/USDC"}),
        ({"channel": "mids", "symbol": "ETH-PERP"}, lambda d: d == {"symbol": "ETH-PERP", "mid_price": "3500"}),
        ({"channel": "bbo", "symbol": "BTC-PERP"}, lambda d: d[0]["best_bid_price"] == "90000"),
        ({"channel": "index"}, lambda d: {"symbol": "BTC-PERP", "index_price": 100000} in [
            {k: r[k] for k in ("symbol", "index_price")} for r in d]),
        ({"channel": "chart", "instrument_id": "1", "chart_type": "mark", "resolution": "5"},
         lambda d: d["close"] == 100000 and d["time"] % 300_000 == 0),
        ({"channel": "orders", "user": ALICE.address}, lambda d: [o["limit_price"] for o in d] == ["90000"]),
        ({"channel": "position", "user": ALICE.address, "address": ALICE.address}, lambda d: d == []),
        ({"channel": "account_summary", "user": ALICE.address}, lambda d: d["address"] == ALICE.address),
        ({"channel": "balance", "address": ALICE.address}, lambda d: d["account"] == ALICE.address),
        ({"channel": "agent", "user": ALICE.address}, lambda d: d == []),
        ({"channel": "trades", "symbol": "BTC-PERP"}, lambda d: d == []),
        ({"channel": "fills", "user": ALICE.address}, lambda d: d == []),
        ({"channel": "funding_payments", "user": ALICE.address}, lambda d: d == []),
        ({"channel": "blocks"}, lambda d: d == []),
        ({"channel": "transactions"}, lambda d: d == []),
    ],
)  # fmt: skip
async def test_every_channel_has_a_first_picture_behind_the_reply(
    sim: LocalExchange, alice: Client, no_timed_repeats: None, params: dict[str, Any], check: Any
) -> None:
    await alice.place_order([wire.order_item(1, "b", "90000", "0.5")])
    async with connect(sim.ws_url) as ws:
        _, picture = await subscribe(ws, "1", params)
        assert check(picture), picture


async def test_the_picture_goes_again_at_the_next_frame_then_no_more(
    sim: LocalExchange, alice: Client, no_timed_repeats: None
) -> None:
    """A client that listens only after the reply (the SDKs) gets it when it next speaks."""
    async with connect(sim.ws_url) as ws:
        name, first = await subscribe(ws, "1", {"channel": "orderbook", "symbol": "BTC-PERP"})
        await alice.place_order([wire.order_item(1, "b", "90000", "0.5")])
        update = await frame(ws)
        assert update["params"]["data"]["update_type"] == "update"
        await rpc(ws, "2", "ping")
        again = await frame(ws)  # the picture as it is now, before the pong
        assert again["params"]["channel"] == name and again["params"]["data"]["update_type"] == "snapshot"
        assert again["params"]["data"]["books"]["bids"] == [{"price": 90000, "size": 0.5}]
        assert again["params"]["data"]["books"]["sequence_number"] == first["books"]["sequence_number"] + 1
        assert (await frame(ws))["id"] == "2"
        await rpc(ws, "3", "ping")
        assert (await frame(ws))["id"] == "3"  # once only


async def test_the_picture_goes_again_after_a_delay_unless_unsubscribed(sim: LocalExchange) -> None:
    sim.hub.repeat_after_s = (0.0, 0.0)  # at once, on the next turns of the loop
    async with connect(sim.ws_url) as ws:
        summary, _ = await subscribe(ws, "1", {"channel": "account_summary", "user": ALICE.address})
        repeats = [await frame(ws), await frame(ws)]
        assert [r["params"]["channel"] for r in repeats] == [summary, summary]
        sim.hub.repeat_after_s = (60.0,)
        await rpc(ws, "2", "subscribe", {"channel": "mids", "symbol": "BTC-PERP"})
        seen = [await frame(ws) for _ in range(3)]  # the summary's next-frame copy, the reply, the mid
        assert [m.get("id") or m["params"]["channel"] for m in seen] == [summary, "2", "mids@BTC-PERP"]
        await rpc(ws, "3", "unsubscribe", ["mids@BTC-PERP"])
        seen = [await frame(ws) for _ in range(2)]  # the mid's next-frame copy, the reply
        assert [m.get("id") or m["params"]["channel"] for m in seen] == ["mids@BTC-PERP", "3"]
        conn = next(iter(sim.hub.connections))
        assert "mids@BTC-PERP" not in conn.repeats and conn.at_next_frame == set()  # its timer went with it
        await rpc(ws, "4", "ping")
        assert (await frame(ws))["id"] == "4"


async def test_ticker_all_receives_every_instrument(sim: LocalExchange, alice: Client, no_timed_repeats: None) -> None:
    async with connect(sim.ws_url) as ws:
        await subscribe(ws, "1", {"channel": "ticker", "symbol": "all"})
        await alice.place_order([wire.order_item(2, "b", "3000", "1")])
        update = await frame(ws)
        assert update["params"]["channel"] == "ticker@all" and update["params"]["data"]["symbol"] == "ETH-PERP"


async def test_index_publishes_the_instruments_whose_index_moved(sim: LocalExchange, no_timed_repeats: None) -> None:
    async with connect(sim.ws_url) as ws:
        name, picture = await subscribe(ws, "1", {"channel": "index"})
        assert name == "index" and len(picture) == len(sim.engine.markets)
        sim.engine.set_index_price(1, Decimal("101000"))
        sim.engine.set_index_price(3, Decimal("210"))
        sim.step(1)
        update = await frame(ws)
        now = sim.clock.now_ms()
        assert update["params"] == {
            "channel": "index",
            "data": [
                {"symbol": "BTC-PERP", "index_price": 101000, "ts": now - 1},
                {"symbol": "SOL-PERP", "index_price": 210, "ts": now - 1},
            ],
        }


@pytest.mark.parametrize(
    "params",
    [
        {"channel": "balance", "address": ALICE.address, "user": ALICE.address},
        {"channel": "balance", "user": ALICE.address},
        {"channel": "accountBalanceUpdates", "address": ALICE.address},
    ],
)
async def test_balance_publishes_the_accounts_balances(
    sim: LocalExchange, alice: Client, no_timed_repeats: None, params: dict[str, Any]
) -> None:
    await alice.cancel_all()  # opens (and funds) the account
    async with connect(sim.ws_url) as ws:
        name, picture = await subscribe(ws, "1", params)
        assert name == f"balance@{ALICE.address}"
        usdc = {b["wallet"]: b for b in picture["balances"] if b["asset"] == "USDC"}
        assert usdc["spot"]["total"] == 10_000 and usdc["derivative"]["total"] == 100_000
        await alice.act(
            "internalBalanceTransferRequest", {"collateralId": 1, "amount": "25", "toDerivativesAccount": False}
        )
        update = (await frame(ws))["params"]["data"]
        moved = {b["wallet"]: b for b in update["balances"] if b["asset"] == "USDC"}
        assert (moved["spot"]["total"], moved["derivative"]["total"]) == (10_025, 99_975)
        assert moved["spot"]["available"] + moved["spot"]["locked"] == moved["spot"]["total"]
        assert update["account"] == ALICE.address and update["timestamp"] == sim.clock.now_ms()
