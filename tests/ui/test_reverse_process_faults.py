"""The reverse (ctrl+r, y on the positions pane) against a real `xtui sim` process, as a trader presses the keys on
the dashboard: the exchange frozen (SIGSTOP) as y is pressed (thawed soon, or only past the reverse's expiry),
killed (SIGKILL) just after the order reached it and started again, and /info failing while /exchange answers.
Each ends with the exchange's own position read by a fresh client: short 0.01 (reversed once), long 0.01 (not
reversed) or, on an exchange restarted empty, flat (nothing there), never anything else; with what the trader was
told matching it, and the reverse sent at most once (its cloid counted in the exchange's record, and the placeOrder
requests the proxy forwarded)."""

from __future__ import annotations

import signal
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal
from typing import Any

import pytest

from tests.conftest import ALICE_KEY, BOB_KEY, QUIET_WS
from tests.fault_proxy import FaultProxy
from tests.feed.sim_process import SimProcess, sim_process
from tests.ui.conftest import Notes, asked, feed_ready, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.trading import settle as settling
from tui.ui.app import XtuiApp, make_app
from tui.ui.screens.order_desk import reverse as reversing

D = Decimal
ALICE = Signer(ALICE_KEY)
TIMEOUT_S = 0.5  # the dashboard's HTTP timeout: a frozen exchange is given up on quickly
EXPIRY_S = 3.0  # a reverse the exchange has not seen by then never happens
READ_LIMIT_S = 2.0  # how long an accepted reverse's record is asked before its outcome is said unknown
WAIT_S = 30.0  # the longest any step may take on a busy machine
LONG = D("0.01")


@pytest.fixture(autouse=True)
def short_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reverse signed to expire in 3 s, its record asked for 2 s once accepted: the faults play out in seconds."""
    monkeypatch.setattr(settling, "PLACE_EXPIRY_S", EXPIRY_S)
    monkeypatch.setattr(reversing, "READ_LIMIT_S", READ_LIMIT_S)


@pytest.fixture
async def proxy(exchange: SimProcess) -> AsyncIterator[FaultProxy]:
    """A proxy in front of the exchange's HTTP (its WebSocket is not proxied) to fail /info or lose an answer."""
    p = FaultProxy(exchange.url)
    await p.start()
    try:
        yield p
    finally:
        await p.stop()


@pytest.fixture
async def exchange() -> AsyncIterator[SimProcess]:
    """A real `xtui sim --quiet-market`; Bob bids 1 BTC at 99,900 and offers 1 at 100,000, Alice buys 0.01."""
    async with sim_process() as sim:
        await seed(sim.url)
        yield sim


async def seed(url: str) -> None:
    async with Client(url, signer=Signer(BOB_KEY), testnet=True) as bob:
        await bob.place_order([order_item(1, "s", "100000", "1"), order_item(1, "b", "99900", "1")])
    async with Client(url, signer=ALICE, testnet=True) as alice:
        await alice.place_order([order_item(1, "b", "100100", str(LONG), tif="IOC")])
    assert await position(url) == LONG


async def position(url: str) -> Decimal:
    """Alice's BTC-PERP position as the exchange says, read by a fresh client."""
    async with Client(url, testnet=True) as reader:
        return sum((p.size for p in await reader.positions(ALICE.address) if p.instrument == "BTC-PERP"), D(0))


async def reverses(url: str) -> list[str]:
    """The cloids of Alice's reverse orders in the exchange's record (open or not): one per reverse sent."""
    async with Client(url, testnet=True) as reader:
        orders = (await reader.order_history(ALICE.address, limit=100)).data
    return [o.cloid for o in orders if o.cloid.startswith("rv")]


def dashboard(client: Client, sim: SimProcess) -> XtuiApp:
    """The dashboard as the command line builds it, on the exchange process, Alice's key loaded."""
    return make_app(client, sim.ws_url, ALICE, feed_options={"poll_s": 0.5, "ws_options": QUIET_WS})


async def ask_reverse(app: XtuiApp, pilot: object) -> None:
    """The positions pane, ctrl+r: the question stands."""
    await settle(pilot, lambda: app.feed.state.account.positions, what="the position")
    await asked(pilot, "3", "ctrl+r")


@asynccontextmanager
async def asked_to_reverse(url: str, exchange: SimProcess, notes: Notes) -> AsyncIterator[Any]:
    """The dashboard on ``url`` (the exchange, or a proxy in front of it) with Alice's key, its feed on the exchange
    process, ready, and the reverse asked (ctrl+r): its pilot; the answer is the test's."""
    async with Client(url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as client:
        app = dashboard(client, exchange)
        async with app.run_test(size=(140, 40), message_hook=notes) as pilot:
            await feed_ready(app, WAIT_S)
            await ask_reverse(app, pilot)
            yield pilot


def told(notes: Notes, part: str) -> bool:
    return any(part in m for m in notes.messages)


async def test_a_reverse_sent_into_a_frozen_exchange_is_read_back_once_it_thaws(exchange: SimProcess) -> None:
    """Long 0.01; ctrl+r; the exchange is frozen (SIGSTOP) and y pressed: the reverse waits in the exchange's
    socket, the dashboard's request times out (0.5 s) and the trader is told it is unconfirmed and that nothing is
    sent again; nothing more is said while it is frozen. Thawed, the exchange applies the reverse; the dashboard
    reads it from the record by its cloid and says the position went short 0.01. The record holds one reverse."""
    notes = Notes()
    async with asked_to_reverse(exchange.url, exchange, notes) as pilot:
        exchange.signal(signal.SIGSTOP)
        try:
            await pilot.press("y")
            await settle(pilot, lambda: told(notes, "unconfirmed: waiting for the exchange"), WAIT_S, "unsure")
            assert told(notes, "nothing is sent again") and not told(notes, "reversed"), notes.messages
        finally:
            exchange.signal(signal.SIGCONT)
        said = "reversed BTC-PERP: long 0.01 → short 0.01"
        await settle(pilot, lambda: told(notes, said), WAIT_S, said)
    assert await position(exchange.url) == -LONG, notes.messages
    assert len(await reverses(exchange.url)) == 1


@pytest.mark.long
async def test_a_reverse_frozen_past_its_expiry_is_said_not_placed(exchange: SimProcess) -> None:
    """Long 0.01; ctrl+r; the exchange is frozen (SIGSTOP), y pressed, and it stays frozen until the reverse's
    expiry (3 s, signed in it) is past by 2 s: thawed, the exchange refuses the stale action from its socket. The
    trader is told it is unconfirmed, then, once the record answers from past the expiry, that nothing was placed;
    the position is still long 0.01 and the record holds no reverse."""
    notes = Notes()
    async with asked_to_reverse(exchange.url, exchange, notes) as pilot:
        past = time.time() + EXPIRY_S + 2.0  # the expiry is signed from the exchange's time as y is pressed
        exchange.signal(signal.SIGSTOP)
        try:
            await pilot.press("y")
            await settle(pilot, lambda: told(notes, "unconfirmed: waiting for the exchange"), WAIT_S, "unsure")
            await settle(pilot, lambda: time.time() > past, WAIT_S, "the expiry past")  # frozen that long
            assert not told(notes, "not placed"), notes.messages  # nothing answered: nothing is known yet
        finally:
            exchange.signal(signal.SIGCONT)
        said = "not placed: nothing was placed; sending again is safe"
        await settle(pilot, lambda: told(notes, said), WAIT_S, said)
    assert not told(notes, "reversed BTC-PERP"), notes.messages
    assert await position(exchange.url) == LONG
    assert await reverses(exchange.url) == []


@pytest.mark.long
async def test_a_reverse_whose_exchange_dies_with_it_says_what_the_restarted_exchange_holds(
    exchange: SimProcess, proxy: FaultProxy
) -> None:
    """Long 0.01; ctrl+r, y; the reverse reaches the exchange, which applies it and is killed (SIGKILL) before its
    answer leaves, then started again on the same port. `xtui sim` keeps no state across a restart: the new one
    starts empty, with no position and no record of the reverse. So the outcome said is that record's: once the
    reverse's expiry is past on the new exchange's clock, nothing was placed there; the position is flat there
    ("nothing there"), and nothing was sent again (one placeOrder through the proxy in all)."""
    notes = Notes()
    proxy.on_lost = exchange.kill
    async with asked_to_reverse(proxy.url, exchange, notes) as pilot:
        proxy.place_fault = "lose_answer"
        await pilot.press("y")
        await settle(pilot, lambda: told(notes, "unconfirmed: waiting for the exchange"), WAIT_S, "unsure")
        assert exchange.proc is not None and exchange.proc.returncode == -signal.SIGKILL
        await exchange.start()
        assert not told(notes, "not placed"), notes.messages  # no record has said so yet: the old one is dead
        said = "not placed: nothing was placed; sending again is safe"
        await settle(pilot, lambda: told(notes, said), WAIT_S, said)
    assert not told(notes, "reversed BTC-PERP"), notes.messages
    assert await position(exchange.url) == 0
    assert await reverses(exchange.url) == []
    assert proxy.forwarded.count("/exchange") == 1


@pytest.mark.parametrize("mode", ["500", "hang"])
async def test_a_reverse_whose_record_cannot_be_read_is_said_unconfirmed(
    exchange: SimProcess, proxy: FaultProxy, mode: str
) -> None:
    """Long 0.01; every /info through the proxy fails (a 500, or no answer within the timeout) while /exchange
    answers; ctrl+r, y. The reverse is accepted and goes through (the exchange's position is short 0.01), but its
    fill and the position cannot be read: the trader is told its outcome is unconfirmed and to look at the
    positions and fills, never that it reversed; it is sent once."""
    notes = Notes()
    async with asked_to_reverse(proxy.url, exchange, notes) as pilot:
        proxy.mode = mode  # type: ignore[assignment]
        await pilot.press("y")
        await settle(pilot, lambda: told(notes, "BTC-PERP reverse unconfirmed"), WAIT_S, "the outcome")
        proxy.mode = "pass"
    [said] = [m for m in notes.messages if "BTC-PERP reverse unconfirmed" in m]
    assert "the exchange accepted it, but its fill could not be read (the exchange's record is not readable" in said
    assert "the position is unknown: see Positions and Fills before doing anything again" in said
    assert not told(notes, "reversed BTC-PERP"), notes.messages
    assert await position(exchange.url) == -LONG
    assert len(await reverses(exchange.url)) == 1
    assert proxy.forwarded.count("/exchange") == 1


@pytest.mark.long
async def test_a_reverse_accepted_by_an_exchange_that_restarts_empty_is_not_said_done(
    exchange: SimProcess, proxy: FaultProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Long 0.01; /info fails through the proxy (500) while /exchange answers; ctrl+r, y: the reverse is accepted.
    Before its record can be read the exchange is killed (SIGKILL) and started again, empty (`xtui sim` keeps no
    state), and /info comes back. The new record has no such order once the reverse's expiry is past: the trader
    is told the accepted reverse is not in the exchange's record now and to look, neither that it reversed nor
    that nothing filled; the position there is flat ("nothing there"); one placeOrder was sent."""
    monkeypatch.setattr(reversing, "READ_LIMIT_S", WAIT_S)  # the record is asked across the restart
    notes = Notes()
    async with asked_to_reverse(proxy.url, exchange, notes) as pilot:
        proxy.mode = "500"
        await pilot.press("y")
        await settle(pilot, lambda: "/exchange" in proxy.forwarded, WAIT_S, "the reverse sent")
        await exchange.kill()
        await exchange.start()
        proxy.mode = "pass"
        await settle(pilot, lambda: told(notes, "BTC-PERP reverse unconfirmed"), WAIT_S, "the outcome")
    [said] = [m for m in notes.messages if "BTC-PERP reverse unconfirmed" in m]
    assert "the exchange accepted it, but its record has no such order now" in said
    assert "the position is flat: see Positions and Fills before doing anything again" in said
    assert not told(notes, "reversed BTC-PERP") and not told(notes, "not reversed"), notes.messages
    assert await position(exchange.url) == 0
    assert await reverses(exchange.url) == []
    assert proxy.forwarded.count("/exchange") == 1
