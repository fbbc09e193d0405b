"""An OCO outlives the terminal: a real ``xtui`` in a real pty against a real ``xtui sim`` process, an OCO started
with its keys (O, o, a take-profit, a stop, Enter), the dashboard ended by SIGTERM (as ``q`` does) or killed outright
(SIGKILL), then started again on the same data dir. The next start asks once to link the pair again; Enter does, and
the resumed pair works: Bob buys the whole take-profit and the pair withdraws the stop. A pair with one leg gone
while xtui was away is said and not offered. Every wait has a deadline."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path

import pytest

from tests.conftest import ALICE_KEY, BOB_KEY
from tests.feed.sim_process import SimProcess, sim_process
from tests.test_signals import DEADLINE_S, Dashboard
from tests.trading.trail_support import ALICE, SIZE, go_long, position
from tests.waiting import until_answer
from tui.api.client import Client
from tui.api.models import Order
from tui.api.signing import Signer
from tui.api.wire import order_item

D = Decimal
TP, STOP = "110000", "90000"

# two dashboards and an exchange per test: they take turns on one worker rather than crowd two cores at once
pytestmark = pytest.mark.xdist_group("dashboards-restarted")
LOADED_S = 90.0  # each screen awaited: two dashboards, an exchange and the suite's other workers share two cores


@pytest.fixture
async def exchange() -> AsyncIterator[SimProcess]:
    async with sim_process() as sim:
        yield sim


def until_logged(d: Dashboard, text: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while text not in d.log():
        assert d.proc.poll() is None, d.out[-800:]
        assert time.monotonic() < deadline, f"{text!r} never logged: {d.log()[-1500:]}"
        d.drain(0.05)


async def oco_started(home: Path, sim: SimProcess) -> tuple[Dashboard, list[Order]]:
    """Alice long 0.1 BTC; xtui with her key; O, o, a take-profit at 110,000, Tab, a stop at 90,000, Enter: both
    legs of her OCO rest (as the exchange's record shows them)."""
    await go_long(sim.url)
    d = Dashboard(home, "--url", sim.url, "--key-env", "OCO_KEY")
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, d.read_until, b"long", LOADED_S)  # the position is shown
    steps = ((b"O", b"Chase and OCO"), (b"o", b"place both and link them"), (TP.encode(), TP.encode()),
             (b"\t" + STOP.encode(), STOP.encode()))  # fmt: skip
    for keys, then in steps:
        os.write(d.master, keys)
        await loop.run_in_executor(None, d.read_until, then, LOADED_S)
    os.write(d.master, b"\r")
    await loop.run_in_executor(None, until_logged, d, "oco 1: both orders rest")
    await until_answer(lambda: _both_rest(sim.url), "both legs resting in the exchange's record", DEADLINE_S)
    return d, await _legs(sim.url)


async def _legs(url: str) -> list[Order]:
    async with Client(url, testnet=True) as reader:
        orders = (await reader.open_orders(ALICE.address)).data
    return sorted((o for o in orders if o.cloid.startswith("oc")), key=lambda o: o.cloid)


async def _both_rest(url: str) -> bool:
    return len(await _legs(url)) == 2


async def bob_takes_the_take_profit(url: str) -> None:
    """Bob withdraws his own asks (so that his buy is not matched against them) and buys 0.1 at 110,000: the OCO's
    take-profit, the only ask left, fills in full."""
    async with Client(url, signer=Signer(BOB_KEY), testnet=True) as bob:
        await bob.cancel_all()
        await bob.place_order([order_item(1, "b", TP, str(SIZE), tif="IOC")])


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=lambda s: s.name)
async def test_the_next_start_links_the_oco_again(
    exchange: SimProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sig: signal.Signals
) -> None:
    """The OCO's xtui ended by ``sig``; xtui started again asks "Resume OCO 1 on BTC-PERP?"; Enter links the same two
    orders again (nothing is placed anew); Bob then fills the take-profit: the resumed pair withdraws the stop, says
    it is done, and Alice is flat with nothing of the pair resting."""
    monkeypatch.setenv("OCO_KEY", ALICE_KEY)
    d, before = await oco_started(tmp_path, exchange)
    again: Dashboard | None = None
    loop = asyncio.get_running_loop()
    try:
        assert sorted(o.trigger_px for o in before) == [0, D(STOP)]
        assert all(o.reduce_only and o.side == "s" and o.size == SIZE for o in before)
        d.proc.send_signal(sig)
        await loop.run_in_executor(None, d.wait_exit)
        assert await _legs(exchange.url) == before  # the legs stay, unlinked
        again = Dashboard(tmp_path, "--url", exchange.url, "--key-env", "OCO_KEY")
        await loop.run_in_executor(None, again.read_until, b"Resume OCO 1 on BTC-PERP?", LOADED_S)
        os.write(again.master, b"\r")
        await loop.run_in_executor(None, until_logged, again, "oco 1: resumed, linking both orders again")
        assert await _legs(exchange.url) == before
        await bob_takes_the_take_profit(exchange.url)
        await loop.run_in_executor(None, until_logged, again, "oco 1: done: the take-profit filled 0.1")
        await until_answer(lambda: _none_rest(exchange.url), "the stop withdrawn", DEADLINE_S)
        assert await position(exchange.url) == 0
    finally:
        d.close()
        if again is not None:
            again.close()


async def _none_rest(url: str) -> bool:
    return await _legs(url) == []


async def test_a_pair_with_a_leg_gone_is_said_and_not_offered(
    exchange: SimProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed; its take-profit cancelled by another client while xtui is away: the next start does not offer the
    pair, says the take-profit rests no more and the stop stays unlinked, and the start after that says nothing of
    it. The stop still rests."""
    monkeypatch.setenv("OCO_KEY", ALICE_KEY)
    d, before = await oco_started(tmp_path, exchange)
    loop = asyncio.get_running_loop()
    later: list[Dashboard] = []
    try:
        d.proc.send_signal(signal.SIGKILL)
        await loop.run_in_executor(None, d.wait_exit)
        [tp] = [o for o in before if not o.trigger_px]
        async with Client(exchange.url, signer=ALICE, testnet=True) as alice:
            await alice.cancel_by_cloid([(tp.cloid, tp.instrument_id)])
        later.append(Dashboard(tmp_path, "--url", exchange.url, "--key-env", "OCO_KEY"))
        await loop.run_in_executor(None, until_logged, later[0], "its take-profit rests no more")
        assert "its stop stays on the exchange, not linked" in later[0].log()
        assert b"Resume OCO" not in later[0].out
        later[0].proc.send_signal(signal.SIGTERM)
        await loop.run_in_executor(None, later[0].wait_exit)
        later.append(Dashboard(tmp_path, "--url", exchange.url, "--key-env", "OCO_KEY"))
        await loop.run_in_executor(None, later[1].read_until, b"OCO stop", LOADED_S)
        assert later[1].log().count("its take-profit rests no more") == 1 and b"Resume OCO" not in later[1].out
        assert [o.cloid for o in await _legs(exchange.url)] == [o.cloid for o in before if o.trigger_px]
    finally:
        d.close()
        for x in later:
            x.close()


async def test_an_oco_left_at_the_next_start_stays_unlinked_and_is_not_offered_again(
    exchange: SimProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed, then started again: n leaves both legs as they are, unlinked; the start after that does not ask
    again, and both legs still rest, the same orders."""
    monkeypatch.setenv("OCO_KEY", ALICE_KEY)
    d, before = await oco_started(tmp_path, exchange)
    loop = asyncio.get_running_loop()
    later: list[Dashboard] = []
    try:
        d.proc.send_signal(signal.SIGKILL)
        await loop.run_in_executor(None, d.wait_exit)
        later.append(Dashboard(tmp_path, "--url", exchange.url, "--key-env", "OCO_KEY"))
        await loop.run_in_executor(None, later[0].read_until, b"Resume OCO 1 on BTC-PERP?", LOADED_S)
        os.write(later[0].master, b"n")
        await loop.run_in_executor(None, later[0].read_until, b"(not running)", LOADED_S)  # the legs, shown unlinked
        later[0].proc.send_signal(signal.SIGTERM)
        await loop.run_in_executor(None, later[0].wait_exit)
        later.append(Dashboard(tmp_path, "--url", exchange.url, "--key-env", "OCO_KEY"))
        await loop.run_in_executor(None, later[1].read_until, b"OCO stop", LOADED_S)
        assert b"Resume OCO" not in later[1].out and "oco 1: resumed" not in later[1].log()
        assert await _legs(exchange.url) == before
    finally:
        d.close()
        for x in later:
            x.close()
