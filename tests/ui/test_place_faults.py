"""Close, scale and PANIC when a placeOrder's answer is lost (it reached the exchange, the answer did not come
back) or the placeOrder itself is lost (it never reached the exchange), through a proxy in front of the local
exchange: each reads what happened from the exchange's record by cloid before it says anything, and nothing is
sent twice."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal
from typing import Any

from tests.conftest import ALICE_KEY
from tests.fault_proxy import FaultProxy
from tests.ui.conftest import Notes, asked, dashboard, noted, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.app import XtuiApp
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.form import FormScreen

ALICE = Signer(ALICE_KEY)
D = Decimal


async def go_long(client: Client) -> None:
    book = await client.orderbook("BTC-PERP", depth=5)
    through = (book.asks[-1].price * D("1.01")).quantize(book.asks[0].price)
    await client.place_order([order_item(1, "b", through, "0.01", tif="IOC")])


@asynccontextmanager
async def long_on_screen(
    sim: LocalExchange, clock: FrozenClock, client: Client
) -> AsyncIterator[tuple[XtuiApp, Any, Notes]]:
    """Long 0.01, and the dashboard on ``client`` (its pilot, and the notices it gives) once it shows the position."""
    await go_long(client)
    app = dashboard(client, sim, clock, ALICE)
    async with noted(app, (140, 40)) as (pilot, notes):
        await settle(pilot, lambda: app.feed.state.account.positions, what="the position")
        yield app, pilot, notes


async def held(client: Client) -> Decimal:
    return sum((p.size for p in await client.positions(ALICE.address)), D(0))


async def test_a_close_whose_answer_is_lost_is_read_back_from_the_record(
    sim: LocalExchange, clock: FrozenClock, proxied: tuple[FaultProxy, Client]
) -> None:
    """Long 0.01; `c`, Enter (the whole position at market); the close reaches the exchange, its answer is lost.
    The trader is told it is unconfirmed, then what the record says (filled 0.01); the position is closed once."""
    proxy, client = proxied
    async with long_on_screen(sim, clock, client) as (app, pilot, notes):
        proxy.place_fault = "lose_answer"
        await pilot.press("3", "c")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the close form")
        await pilot.press("enter")
        await settle(pilot, lambda: app.screen is app.main or isinstance(app.screen, ConfirmScreen), what="sent")
        if isinstance(app.screen, ConfirmScreen):
            await pilot.press("y")
        await settle(pilot, lambda: any("the exchange's record" in m for m in notes.messages), what="the record")
    assert any("unconfirmed: waiting for the exchange" in m for m in notes.messages)
    [said] = [m for m in notes.messages if "the exchange's record" in m]
    assert "filled 0.01" in said, said
    assert await held(client) == 0
    assert proxy.forwarded.count("/exchange") == 3  # the first cancel-all, the buy, the close: nothing again


async def test_a_scale_whose_place_never_arrives_says_nothing_was_placed(
    sim: LocalExchange, clock: FrozenClock, proxied: tuple[FaultProxy, Client]
) -> None:
    """A scale of five limit orders; its placeOrder is dropped before the exchange. The record has none of the
    five: the trader is told nothing was placed and that sending again is safe; no order is open."""
    proxy, client = proxied
    app = dashboard(client, sim, clock, ALICE)
    async with noted(app, (140, 40)) as (pilot, notes):
        await settle(pilot, lambda: app.feed.state.market.book.loaded, what="the book")
        proxy.place_fault = "drop"
        await pilot.press("S")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the scale form")
        for name, value in (("low", "90000"), ("high", "94000"), ("count", "5"), ("size", "0.05")):
            app.screen.query_one(f"#field-{name}").value = value  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the preview")
        await pilot.press("y")
        await settle(pilot, lambda: any("nothing was placed" in m for m in notes.messages), what="the verdict")
    assert (await client.open_orders(ALICE.address)).data == []
    [said] = [m for m in notes.messages if "nothing was placed" in m]
    assert "sending again is safe" in said and said.count("not placed") == 5


async def test_panic_counts_a_close_whose_answer_was_lost_from_the_record(
    sim: LocalExchange, clock: FrozenClock, proxied: tuple[FaultProxy, Client]
) -> None:
    """Long 0.01; PANIC, y; the close's answer is lost. PANIC reads the record (filled) and reports the position
    closed, not failed; it is closed once."""
    proxy, client = proxied
    async with long_on_screen(sim, clock, client) as (_app, pilot, notes):
        proxy.place_fault = "lose_answer"
        await asked(pilot, "P")
        await pilot.press("y")
        await settle(pilot, lambda: any(m.startswith("done") for m in notes.messages), timeout_s=30, what="done")
    assert "done: 1 of 1 position(s) closed" in notes.messages
    assert await held(client) == 0
