"""``bench_feed``: how many order-book and trade messages a second the feed absorbs, headless.

Synthetic frames (JSON text as the exchange sends it: numbers, absolute level sizes, consecutive
sequence numbers) are parsed the way ``WsClient`` parses them and handed to the same handlers its
callbacks call, with the change notifier live, so the figure covers parse + decode + apply + notify.
The event loop gets a turn every few frames, as it does between socket reads.
"""

from __future__ import annotations

import asyncio
import random
import time
from decimal import Decimal
from typing import Any

import msgspec

from tui.api.client import Client
from tui.feed.worker import Feed

__all__ = ["bench_feed", "dated_frame", "synthetic_frames"]

_PARSE = msgspec.json.Decoder(float_hook=Decimal).decode  # as tui.api.ws parses frames

_encode = msgspec.json.Encoder(decimal_format="number").encode
_parse = msgspec.json.Decoder(float_hook=Decimal).decode  # as tui.api.ws parses frames
_TICK = Decimal("0.1")
_MID = Decimal(100_000)
_LEVELS = 100  # a side


def _level(price: Decimal, size: Decimal) -> dict[str, Decimal]:
    return {"price": price, "size": size}


def synthetic_frames(n: int, seed: int = 1) -> tuple[bytes, list[tuple[bool, bytes]]]:
    """A snapshot and ``n`` frames, four book updates to one trades frame: (is_book, JSON text)."""
    rng = random.Random(seed)
    now = 1_767_225_600_000

    def size() -> Decimal:
        return Decimal(rng.randint(1, 5_000)) / 1000

    bids = [_MID - _TICK * (i + 1) for i in range(_LEVELS)]
    asks = [_MID + _TICK * (i + 1) for i in range(_LEVELS)]
    snap = {
        "update_type": "snapshot",
        "instrument_name": "BTC-PERP",
        "books": {
            "bids": [_level(p, size()) for p in bids],
            "asks": [_level(p, size()) for p in asks],
            "sequence_number": 0,
            "timestamp": now,
        },
    }
    frames: list[tuple[bool, bytes]] = []
    seq, trade_id = 0, 0
    for i in range(n):
        if i % 5 == 4:
            trades = []
            for _ in range(rng.randint(1, 3)):
                trade_id += 1
                side = rng.choice("bs")
                trades.append(
                    {
                        "instrument_id": 1, "instrument": "BTC-PERP", "trade_id": trade_id, "tx_hash": "0x" + "ab" * 32,
                        "side": side, "price": asks[0] if side == "b" else bids[0], "size": size(),
                        "maker": "0x" + "11" * 20, "taker": "0x" + "22" * 20, "timestamp": now + i,
                    }
                )  # fmt: skip
            frames.append((False, _encode(trades)))
            continue
        seq += 1
        changed: dict[str, list[dict[str, Decimal]]] = {"bids": [], "asks": []}
        for _ in range(rng.randint(1, 5)):
            side = rng.choice(("bids", "asks"))
            depth = min(int(rng.expovariate(0.2)), _LEVELS - 1)  # mostly near the top, as in a real book
            ref = bids if side == "bids" else asks
            gone = rng.random() < 0.2
            changed[side].append(_level(ref[depth], Decimal(0) if gone else size()))
        books = {**changed, "sequence_number": seq, "timestamp": now + i}
        frames.append((True, _encode({"update_type": "update", "instrument_name": "BTC-PERP", "books": books})))
    return _encode(snap), frames


async def _run(n: int) -> float:
    snapshot, frames = synthetic_frames(n)
    notified: list[frozenset[str]] = []
    # The client is never called: the frames are consecutive, so the book never needs a resync.
    async with Client("http://127.0.0.1:9") as client:
        feed = Feed(client, "ws://127.0.0.1:9/ws/", account=None, on_change=notified.append)
        feed.frames.handle_book(_parse(snapshot))
        book, trades = feed.frames.handle_book, feed.frames.handle_trades
        start = time.perf_counter()
        for i, (is_book, raw) in enumerate(frames):
            data: Any = _parse(raw)
            (book if is_book else trades)(data)
            if i % 64 == 63:
                await asyncio.sleep(0)
        for _ in range(3):  # render what a pane would: the top of the book
            feed.state.market.book.levels("bids", 20)
        elapsed = time.perf_counter() - start
        status = feed.state.status
        if status.bad_frames or status.resyncs or feed.state.market.book.stale:
            raise RuntimeError(f"the benchmark's frames were not applied cleanly: {status.last_error}")
    return n / elapsed


def bench_feed(n: int = 50_000) -> float:
    """Messages per second (book updates and trade frames) the feed's handlers absorb.

    Runs its own event loop: call it from synchronous code (``xtui bench``), not from a running loop.
    """
    return asyncio.run(_run(n))


def dated_frame(raw: bytes, is_book: bool) -> Any:
    """A frame of ``synthetic_frames`` as the socket reader parses it (decimals kept), dated now, as the exchange
    dates what it sends (the feed derives the clock's drift from it)."""
    data = _PARSE(raw)
    now = int(time.time() * 1000)
    for item in [data["books"]] if is_book else data:
        item["timestamp"] = now
    return data
