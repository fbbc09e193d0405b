"""If xtui stops, the last stop stays on the exchange: a real ``xtui`` in a real pty against a real ``xtui sim``
process, a trailing stop started with its keys, then the dashboard ended by SIGTERM (as ``q`` does: the trail stops
and the log says what it leaves) or killed outright (SIGKILL: nothing is said, nothing is undone). Either way the
exchange still holds the trail's one reduce-only stop for the whole position. Every wait has a deadline."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import ALICE_KEY
from tests.feed.sim_process import SimProcess, sim_process
from tests.test_signals import Dashboard
from tests.trading.trail_support import ALICE, SIZE, StopWatch, go_long
from tests.waiting import until_answer
from tui.api.client import Client
from tui.api.models import Order

DEADLINE_S = 30.0
# two dashboards and an exchange per test: they take turns on one worker rather than crowd two cores at once
pytestmark = pytest.mark.xdist_group("dashboards-restarted")
LOADED_S = 90.0  # each screen awaited: two dashboards, an exchange and the suite's other workers share two cores


async def trail_started(home: Path, sim: SimProcess) -> tuple[Dashboard, StopWatch]:
    """Alice long 0.1 BTC; xtui on the exchange with her key; `3`, `l`, "500", Enter, `y`: her trailing stop rests."""
    await go_long(sim.url)
    d = Dashboard(home, "--url", sim.url, "--key-env", "TRAIL_KEY")
    watch = StopWatch(sim.url)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, d.read_until, b"long", LOADED_S)  # the position is shown
    for keys, then in ((b"3l", b"Trailing stop"), (b"500\r", b"Start the trailing stop?")):
        os.write(d.master, keys)
        await loop.run_in_executor(None, d.read_until, then, LOADED_S)
    os.write(d.master, b"y")  # the exchange's record says when the stop rests (a notice may come and go unread)
    await until_answer(lambda: _rests(watch), "a stop resting in the exchange's record", LOADED_S)
    return d, watch


async def _rests(watch: StopWatch) -> bool:
    return (await watch.read())[0] != []


@pytest.fixture
async def exchange() -> AsyncIterator[SimProcess]:
    async with sim_process() as sim:
        yield sim


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=lambda s: s.name)
async def test_the_last_stop_stays_when_xtui_ends(
    exchange: SimProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sig: signal.Signals
) -> None:
    """A trail 500 under the mark; xtui ended by ``sig``. The exchange still holds one reduce-only sell stop of
    0.1 BTC, the trail's; after SIGTERM the log says the trail stopped and what stays on the exchange."""
    monkeypatch.setenv("TRAIL_KEY", ALICE_KEY)
    d, watch = await trail_started(tmp_path, exchange)
    try:
        [before], _ = await watch.read()
        d.proc.send_signal(sig)
        await asyncio.get_running_loop().run_in_executor(None, d.wait_exit)
        stops, held = await watch.read()
        assert stops == [before] and held == SIZE
        [order] = await _orders(exchange.url)
        assert order.reduce_only and order.side == "s" and order.size == SIZE and order.cloid.startswith("tr1x")
        if sig == signal.SIGTERM:
            assert "stopped: xtui quit: the SELL 0.1 BTC-PERP stop at" in d.log()
            assert "stays on the exchange" in d.log()
    finally:
        d.close()


async def _orders(url: str) -> list[Order]:
    async with Client(url, testnet=True) as reader:
        return list((await reader.open_orders(ALICE.address)).data)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGHUP], ids=lambda s: s.name)
async def test_the_next_start_resumes_the_trail(
    exchange: SimProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sig: signal.Signals
) -> None:
    """The trail's xtui ended by ``sig``; xtui started again on the same data dir and exchange asks once to resume the
    trail whose stop it finds resting by its cloid; Enter resumes it: the open orders show it trailing, not "not
    running", and the log says it resumed. The stop on the exchange is the same one: nothing was placed again."""
    monkeypatch.setenv("TRAIL_KEY", ALICE_KEY)
    d, watch = await trail_started(tmp_path, exchange)
    again: Dashboard | None = None
    loop = asyncio.get_running_loop()
    try:
        [before], _ = await watch.read()
        d.proc.send_signal(sig)
        await loop.run_in_executor(None, d.wait_exit)
        again = Dashboard(tmp_path, "--url", exchange.url, "--key-env", "TRAIL_KEY")
        await loop.run_in_executor(None, again.read_until, b"Resume trailing stop 1 on BTC-PERP?", LOADED_S)
        os.write(again.master, b"\r")
        await loop.run_in_executor(None, again.read_until, b"trailing 500", LOADED_S)
        assert "resumed, keeping the SELL 0.1 BTC-PERP stop at" in again.log()
        stops, held = await watch.read()
        assert stops == [before] and held == SIZE
    finally:
        d.close()
        if again is not None:
            again.close()


async def test_a_trail_left_at_the_next_start_says_not_running(
    exchange: SimProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed, then started again: n leaves the stop where it is, and the open orders call it "trail (not
    running)"; the next start does not ask again."""
    monkeypatch.setenv("TRAIL_KEY", ALICE_KEY)
    d, watch = await trail_started(tmp_path, exchange)
    loop = asyncio.get_running_loop()
    later: list[Dashboard] = []
    try:
        d.proc.send_signal(signal.SIGKILL)
        await loop.run_in_executor(None, d.wait_exit)
        later.append(Dashboard(tmp_path, "--url", exchange.url, "--key-env", "TRAIL_KEY"))
        await loop.run_in_executor(None, later[0].read_until, b"Resume trailing stop 1 on BTC-PERP?", LOADED_S)
        os.write(later[0].master, b"n")
        await loop.run_in_executor(None, later[0].read_until, b"trail (not running)", LOADED_S)
        later[0].proc.send_signal(signal.SIGTERM)
        await loop.run_in_executor(None, later[0].wait_exit)
        later.append(Dashboard(tmp_path, "--url", exchange.url, "--key-env", "TRAIL_KEY"))
        await loop.run_in_executor(None, later[1].read_until, b"trail (not running)", LOADED_S)
        assert b"Resume trailing stop" not in later[1].out
        stops, held = await watch.read()
        assert len(stops) == 1 and held == SIZE
    finally:
        d.close()
        for x in later:
            x.close()
