"""``xtui sim --mirror URL --record FILE`` and ``xtui sim --replay FILE --step``, as real processes on loopback.

A seeded ``xtui sim`` is the source (its market makers and takers trade); a mirror of it records a few seconds;
then the recording is replayed under ``--step``, twice, with one scripted bot (xtui's own signer and client)
stepping the clock, and the fills are compared byte for byte. Every wait is bounded; nothing sleeps for time.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from tests.feed.sim_process import START_S, free_port
from tests.waiting import until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item

KEY = "0x" + "7" * 64
SELLER_KEY = "0x" + "8" * 64
POLLS = 40  # polls to record: 4 s of the source at 100 ms a poll
STEP_MS = 250


async def _sim(*args: str) -> tuple[asyncio.subprocess.Process, str]:
    """``python -m tui sim ARGS`` on a free port, once it listens: (process, base URL)."""
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tui", "sim", "--port", str(port), *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    async with asyncio.timeout(START_S):
        line = await proc.stdout.readline()
    if not line.startswith(b"listening on"):
        said = await proc.stderr.read()
        raise AssertionError(f"xtui sim {' '.join(args)} did not start: {said.decode(errors='replace')[-800:]}")
    return proc, f"http://127.0.0.1:{port}"


async def _stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.send_signal(signal.SIGTERM)
        async with asyncio.timeout(20):
            await proc.wait()


async def _record(path: Path) -> None:
    """Record a seeded source through a mirror: POLLS polls, with market sells sweeping the source's BTC bids
    halfway (trades that go through the levels a replaying bot's bid rests at)."""
    source, source_url = await _sim("--seed", "7")
    try:
        mirror, _ = await _sim("--seed", "11", "--mirror", source_url, "--mirror-poll-ms", "100", "--record", str(path))
        try:
            async with asyncio.timeout(40):
                await _polls(path, POLLS // 2)
                async with Client(source_url, signer=Signer(SELLER_KEY), testnet=True) as seller:
                    for _ in range(4):
                        await seller.place_order([order_item(1, "s", "0", "0.05", tif="IOC", is_market=True)])
                await _polls(path, POLLS)
        finally:
            await _stop(mirror)
    finally:
        await _stop(source)


async def _polls(path: Path, count: int) -> None:
    await until(lambda: path.read_bytes().count(b'"k":"poll"') >= count, f"{count} polls in the recording", 20)


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One recording for the module's tests (a source and a recording mirror: two process starts)."""
    path = tmp_path_factory.mktemp("replay") / "session.jsonl"
    asyncio.run(_record(path))
    return path


async def _bot(path: Path, size: str) -> bytes:
    """Replay ``path`` under --step; step through it, buying ``size`` BTC at once and resting a bid of ``size``
    a tick above the best bid; the fills' answer, as sent."""
    lines = path.read_text().splitlines()
    length_ms = json.loads(lines[-1])["t"] - json.loads(lines[0])["start_ms"]
    proc, url = await _sim("--replay", str(path), "--step")
    try:
        async with httpx.AsyncClient(base_url=url) as raw, Client(url, signer=Signer(KEY), testnet=True) as bot:

            async def step() -> int:
                answer = await raw.post("/clock/step", json={"ms": STEP_MS})
                assert answer.status_code == 200, answer.text
                return int(answer.json()["now_ms"])

            async def place(item: dict[str, object], nonce: int) -> None:
                await bot.submit(bot.sign("placeOrder", {"orders": [item]}, nonce=nonce))

            user = bot.signer.address if bot.signer else ""
            for i in range(length_ms // STEP_MS + 4):  # the whole recording, and past its end
                now = await step()
                if i == 2:  # a market buy: it takes the makers' asks at once
                    await place(order_item(1, "b", "0", size, tif="IOC", is_market=True), now)
                if i == 3:  # a bid inside the spread: nothing queues ahead of it; the source's sells fill it
                    (bbo,) = await bot.bbo("BTC-PERP")
                    await place(order_item(1, "b", bbo.best_bid_price + Decimal("0.1"), size), now)
            fills = await raw.post("/info", json={"method": "fills", "params": {"user": user}})
            assert fills.status_code == 200
            return fills.content
    finally:
        await _stop(proc)


@pytest.mark.long
async def test_two_replays_of_one_recording_under_step_give_the_same_fills_byte_for_byte(recording: Path) -> None:
    """Tried: a seeded source sim recorded through a mirror for 40 polls (with sells through its bids halfway),
    replayed twice under --step by one bot (a market buy, then a bid inside the spread, which the recorded sells
    fill through the queue model), and once by the same bot trading another size."""
    lines = recording.read_text().splitlines()
    header = json.loads(lines[0])
    assert (header["format"], header["version"]) == ("xtui-sim-recording", 1)
    assert json.loads(lines[-1])["k"] == "end"
    polls = [json.loads(x) for x in lines if '"k":"poll"' in x]
    seller = Signer(SELLER_KEY).address.lower()
    sold = [t for p in polls for t in p["trades"].get("BTC-PERP", []) if t["taker"].lower() == seller]
    assert sold, "the source's BTC bids were sold into while it was recorded"
    books = [p for p in polls if "BTC-PERP" in p["books"]]  # 2 of its 7 instruments' books a poll, in turn
    assert len(books) >= len(polls) // 5 and books[0]["books"]["BTC-PERP"]["bids"]

    first = await _bot(recording, "0.01")
    second = await _bot(recording, "0.01")
    fills = json.loads(first)["data"]
    assert all(f["tx_hash"] and f["block_timestamp"] for f in fills)
    assert len({f["order_id"] for f in fills}) == 2  # the market buy, and the bid filled by the source's sells
    assert first == second  # byte for byte: prices, sizes, ids, timestamps and hashes
    other = await _bot(recording, "0.02")
    assert other != first  # another bot input: other fills (so the comparison above can fail)


@pytest.mark.long
async def test_a_replay_at_speed_plays_the_recording_through_to_its_end(recording: Path) -> None:
    """Tried: ``--replay FILE --speed 20`` (4 s of recording in ~0.2 s): the replay's BTC index ends at the last
    recorded one, and the mirror then says the recording ended (stale: quotes pulled, prices held)."""
    polls = [json.loads(x) for x in recording.read_text().splitlines() if '"k":"poll"' in x]
    (last,) = [t for t in polls[-1]["tickers"] if t["symbol"] == "BTC-PERP"]
    proc, url = await _sim("--replay", str(recording), "--speed", "20")
    try:
        async with Client(url) as reader:
            async with asyncio.timeout(20):
                while True:
                    (ticker,) = await reader.ticker("BTC-PERP")
                    if reader.paper is not None and reader.paper.state == "stale":
                        break
                    await asyncio.sleep(0.05)
            assert reader.paper.reason == "the recording ends here"
            assert str(ticker.index_price) == last["index_price"]
    finally:
        await _stop(proc)
