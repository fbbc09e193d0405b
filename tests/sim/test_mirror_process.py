"""``xtui sim --mirror URL`` as a real process, mirroring a local exchange on loopback.

Every wait is bounded by a deadline; nothing sleeps for time to pass.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from decimal import Decimal

from tests.feed.sim_process import START_S, free_port
from tests.test_cli import xtui
from tests.waiting import until_answer
from tui.api.client import Client
from tui.api.errors import ClientError
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange, SimConfig


async def test_a_mirror_process_follows_its_source_and_says_when_it_is_gone() -> None:
    source = LocalExchange(SimConfig(port=free_port(), seed=3, market=False), FrozenClock())
    await source.start()
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tui", "sim", "--port", str(port), "--mirror", source.url, "--mirror-poll-ms", "100",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    try:
        async with asyncio.timeout(START_S):
            line = await proc.stdout.readline()
        assert line.startswith(b"listening on"), line
        async with Client(f"http://127.0.0.1:{port}") as ours:

            async def follows(index: Decimal) -> bool:
                (ticker,) = await ours.ticker("ETH-PERP")
                return ticker.index_price == index

            source.engine.set_index_price("ETH-PERP", Decimal("3456.78"))
            source.advance()
            await until_answer(lambda: follows(Decimal("3456.78")), "the mirror to follow the source", 15)
            assert ours.paper is not None and ours.paper.live

            await source.stop()

            async def stale() -> bool:
                await ours.ticker("ETH-PERP")
                return ours.paper is not None and ours.paper.state == "stale"

            await until_answer(stale, "the mirror to say its source is gone", 15)
            assert await follows(Decimal("3456.78"))  # frozen where the source last was
    except ClientError as exc:
        raise AssertionError(f"the mirror did not answer: {exc}") from None
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        async with asyncio.timeout(START_S):
            _, err = await proc.communicate()
        await source.stop()
    said = err.decode()
    assert f"PAPER: prices follow {source.url}; orders stay here and never reach it" in said
    assert f"mirror: source {source.url} unreachable" in said and "prices frozen" in said


async def test_bad_mirror_values_are_refused_in_words() -> None:
    code, _, err = await xtui("sim", "--mirror", "ftp://example.com")
    assert code == 2 and "--mirror: 'ftp://example.com' is not an http(s) URL with a host" in err
    code, _, err = await xtui("sim", "--mirror", "http://127.0.0.1:8801", "--quiet-market")
    assert code == 2 and "--mirror needs the market makers" in err
    url = f"http://127.0.0.1:{free_port()}"
    code, _, err = await xtui("sim", "--port", "0", "--mirror", url)
    assert code == 1 and f"xtui sim: cannot mirror {url}: info: cannot connect" in err
