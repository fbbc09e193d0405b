"""The local exchange's WebSocket: subscribe, receive pushes on state changes, unsubscribe; with our client."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from typing import Any

from websockets.asyncio.client import connect

from tests.conftest import ALICE_KEY
from tests.waiting import until
from tui.api import wire
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.ws import WsClient
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

ALICE = Signer(ALICE_KEY)


def collect(into: list[Any]) -> Any:
    """A callback keeping every record: a first picture may be a list of them (or an empty batch)."""
    return lambda data: into.extend(data) if isinstance(data, list) else into.append(data)


async def _until(ws: Any, pred: Any, limit: int = 50) -> dict[str, Any]:
    for _ in range(limit):
        msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
        if pred(msg):
            return msg  # type: ignore[no-any-return]
    raise AssertionError("no such message")


async def test_subscribe_snapshot_updates_and_unsubscribe(sim: LocalExchange, alice: Client) -> None:
    async with connect(sim.ws_url) as ws:
        await ws.send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "subscribe",
                    "id": "1",
                    "params": {"channel": "orderbook", "symbol": "BTC-PERP"},
                }
            )
        )
        reply = await _until(ws, lambda m: m.get("id") == "1")
        assert reply["result"] == {"status": "subscribed", "channels": ["orderbook@BTC-PERP"]}
        snap = await _until(ws, lambda m: m.get("method") == "subscription")
        assert snap["params"]["channel"] == "orderbook@BTC-PERP"
        assert snap["params"]["data"]["update_type"] == "snapshot"
        seq = snap["params"]["data"]["books"]["sequence_number"]

        await alice.place_order([wire.order_item(1, "b", "90000", "0.5")])
        upd = await _until(
            ws, lambda m: m.get("method") == "subscription" and m["params"]["data"]["update_type"] == "update"
        )
        books = upd["params"]["data"]["books"]
        assert upd["params"]["data"]["update_type"] == "update"
        assert books["sequence_number"] == seq + 1
        assert books["bids"] == [{"price": 90000, "size": 0.5}]  # JSON numbers, absolute size

        await ws.send(
            json.dumps({"jsonrpc": "2.0", "method": "unsubscribe", "id": "2", "params": ["orderbook@BTC-PERP"]})
        )
        gone = await _until(ws, lambda m: m.get("id") == "2")
        assert gone["result"] == {"status": "unsubscribed", "channels": ["orderbook@BTC-PERP"]}
        await alice.place_order([wire.order_item(1, "b", "90001", "0.5")])
        await ws.send(json.dumps({"jsonrpc": "2.0", "method": "ping", "id": "3"}))
        pong = json.loads(await asyncio.wait_for(ws.recv(), 5))  # the next frame is the pong: no more pushes
        assert pong["id"] == "3" and pong["result"]["pong"] is True


async def test_bad_frames_get_errors_and_the_socket_survives(sim: LocalExchange) -> None:
    async with connect(sim.ws_url) as ws:
        for frame, code in (
            ("not json", -32700),
            ("[1]", -32600),
            ('{"method": "dance", "id": "9"}', -32601),
            ('{"method": "subscribe", "id": "8", "params": 3}', -32602),
        ):
            await ws.send(frame)
            assert json.loads(await ws.recv())["error"]["code"] == code
        await ws.send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "subscribe",
                    "id": "7",
                    "params": {"channel": "orderbook", "symbol": "NOPE-PERP"},
                }
            )
        )
        reply = json.loads(await ws.recv())
        assert reply["result"]["status"] == "error" and "NOPE-PERP" in reply["result"]["error"]


async def test_account_channels_and_aliases_with_our_client(
    sim: LocalExchange, alice: Client, clock: FrozenClock
) -> None:
    await alice.cancel_all()
    got: dict[str, list[Any]] = {"orders": [], "position": [], "fills": [], "account_summary": []}
    async with WsClient(sim.ws_url) as ws:
        await ws.wait_live()
        subs = [
            await ws.subscribe(ch, collect(got[ch if ch != "positions" else "position"]), user=ALICE.address)
            for ch in ("orders", "positions", "fills", "account_summary")
        ]
        assert [s.channel for s in subs][1] == f"position@{ALICE.address}"
        async with Client(sim.url, signer=Signer("0x" + "b0" * 32), clock_ms=clock.now_ms) as bob:
            await bob.place_order([wire.order_item(1, "s", "100000", "0.01")])
            await alice.place_order([wire.order_item(1, "b", "100000", "0.01")])
        await until(
            lambda: got["fills"] and got["position"] and len(got["account_summary"]) > 1,
            "the fill, the position and a second summary",
        )
        assert got["fills"][0]["direction"] == "openLong" and Decimal(str(got["fills"][0]["size"])) == Decimal("0.01")
        assert Decimal(got["position"][-1]["size"]) == Decimal("0.01")
        assert any(o["state"] == "filled" for o in got["orders"])
        assert "BTC-PERP" in got["account_summary"][-1]["perp_positions"]


async def test_blocks_stream_as_time_passes(sim: LocalExchange, alice: Client) -> None:
    blocks: list[Any] = []
    txs: list[Any] = []
    async with WsClient(sim.ws_url) as ws:
        await ws.wait_live()
        await ws.subscribe("blocks", collect(blocks))
        await ws.subscribe("transactions", collect(txs))
        ack = await alice.cancel_all()
        sim.step(sim.config.block_ms)
        await until(lambda: blocks and txs, "a block and its transactions")
    assert blocks[0]["tx_count"] >= 1
    assert ack.tx_hash in {t["tx_hash"] for t in txs}
    block = await alice.block(height=blocks[0]["block_height"])
    assert ack.tx_hash in {t.tx_hash for t in block.transactions}
    assert (await alice.block(block_hash=block.block_hash)).block_height == block.block_height
    assert (await alice.transaction(ack.tx_hash)).block_height == block.block_height


async def test_chart_channel_streams_the_open_candle(sim: LocalExchange, alice: Client, clock: FrozenClock) -> None:
    candles: list[Any] = []
    async with WsClient(sim.ws_url) as ws:
        await ws.wait_live()
        sub = await ws.subscribe("chart", candles.append, instrument_id=1, chart_type="ltp", resolution="1")
        assert sub.channel == "chart@BTC-PERP:ltp:1"
        async with Client(sim.url, signer=Signer("0x" + "b0" * 32), clock_ms=clock.now_ms) as bob:
            await bob.place_order([wire.order_item(1, "s", "100000", "0.01")])
        await alice.place_order([wire.order_item(1, "b", "100000", "0.01")])
        await until(lambda: candles and candles[-1]["close"] == 100000, "the candle closing at the trade, 100,000")
    assert candles[0]["time"] % 60_000 == 0  # the first picture: the open candle
    assert candles[-1]["close"] == 100000 and candles[-1]["time"] % 60_000 == 0
