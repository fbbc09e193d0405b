"""The trailing stop as a trader meets it: `l` on a position opens its form (what it does and that the last stop
stays on the exchange if xtui stops), bad input is refused on its field and loses nothing, Enter asks, `y` starts
it; the open orders show its stop as "trailing" with the distance and the peak; `l` again asks to stop it, and the
stop stays. At 160x48 and at 80x24."""

from __future__ import annotations

from decimal import Decimal

import pytest
from textual.command import CommandPalette
from textual.widgets import Input

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Notes, asked, dashboard, feed_ready, noted, palette_search, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.form import FormScreen
from tui.ui.widgets.orders import OpenOrdersPane

ALICE = Signer(ALICE_KEY)
D = Decimal


async def go_long(trader: Client) -> None:
    """Alice long 0.01 BTC at market."""
    book = await trader.orderbook("BTC-PERP", depth=5)
    through = (book.asks[-1].price * D("1.01")).quantize(book.asks[0].price)
    await trader.place_order([order_item(1, "b", through, "0.01", tif="IOC")])


def form_text(app: object) -> str:
    screen = app.screen  # type: ignore[attr-defined]
    return " ".join(str(w.render()) for w in screen.query(".note, .title, #form-error"))


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_l_on_a_position_trails_a_stop_and_l_again_stops_it(
    sim: LocalExchange, clock: FrozenClock, trader: Client, size: tuple[int, int]
) -> None:
    """Long 0.01 BTC. `3` then `l`: the form says the stop rests at all times and stays if xtui stops; "0" is
    refused on the distance with the text kept; "1%" from the mark, Enter, `y`: one reduce-only stop rests on the
    exchange, 1% under the mark (on the tick), and its row says "trailing 1%" (and "peak ..." where the cloid column
    shows). `x` on it asks "Cancel the trailing stop on BTC-PERP?" (No keeps it). `l` again: "Stop trailing
    BTC-PERP?", `y`: the trail stops, and its stop stays on the exchange."""
    await go_long(trader)
    app = dashboard(trader, sim, clock, ALICE)
    notes = Notes()
    async with app.run_test(size=size, message_hook=notes) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: any(p.size for p in account.positions), what="the position")
        await pilot.press("3", "l")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the form")
        said = form_text(app)
        assert "Trailing stop · BTC-PERP" in said and "the last stop stays on the exchange" in said
        await pilot.press("0", "enter")
        await settle(pilot, lambda: "distance must be" in form_text(app) or "more than" in form_text(app))
        distance = app.screen.query_one("#field-distance", Input)
        assert distance.value == "0" and isinstance(app.screen, FormScreen)
        distance.value = "1%"
        await asked(pilot, "enter")
        assert str(app.screen.query_one(".title").render()) == "Start the trailing stop?"
        await pilot.press("y")
        runner = app.trails
        assert runner is not None
        await settle(pilot, lambda: bool(runner.trails) and runner.trails[0].stop is not None, what="the stop")
        trail = runner.trails[0]
        [stop] = (await trader.open_orders(ALICE.address)).data
        mark = sim.engine.markets[1].mark
        assert stop.reduce_only and stop.side == "s" and stop.size == D("0.01") and stop.cloid.startswith("tr1x")
        assert mark * D("0.99") - 1 < stop.trigger_px <= mark * D("0.99")
        pane = app.main.query_one(OpenOrdersPane)
        await settle(pilot, lambda: len(account.open_orders) == 1, what="the row")
        await pilot.press("4")
        await settle(
            pilot, lambda: "trailing 1%" in [str(c).strip() for c in pane.table.get_row_at(0)], what="the trailing row"
        )
        if size[0] >= 160:
            assert str(pane.table.get_row_at(0)[-3]).startswith(" peak ")
        await pilot.press("x")  # on its row: asked, as for any stop, and said to be the trail's
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="cancel it?")
        assert str(app.screen.query_one(".title").render()) == "Cancel the trailing stop on BTC-PERP?"
        await pilot.press("enter")  # No
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        await pilot.press("3", "l")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="stop it?")
        assert str(app.screen.query_one(".title").render()) == "Stop trailing BTC-PERP?"
        await pilot.press("y")
        await settle(pilot, lambda: not trail.active, what="the trail stopped")
        logged = [e.text for e in account.events.book.entries() if e.kind == "trail"]
        assert any("stopped" in text for text in logged), logged  # the event log keeps what the notices said
    assert trail.state == "stopped" and "stays on the exchange" in trail.reason
    assert [o.cloid for o in (await trader.open_orders(ALICE.address)).data] == [stop.cloid]
    assert any(m.startswith("stopped: stopped by you") for m in notes.messages)


async def test_l_without_a_position_says_so(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    """`l` with no position selected: a notice, no form."""
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (160, 48)) as (pilot, notes):
        await pilot.press("3", "l")
        await settle(pilot, lambda: any("a trailing stop follows a position" in m for m in notes.messages))
        assert not isinstance(app.screen, FormScreen)


async def test_the_palette_opens_the_trailing_stop_form(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    """ctrl+p, "trailing stop", Enter, with the position selected: the same form as `l`."""
    await go_long(trader)
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: any(p.size for p in app.feed.state.account.positions), what="the position")
        await pilot.press("3", "ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await palette_search(pilot, "trailing stop", "Trailing stop for the selected position")
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the form from the palette")
        assert "Trailing stop · BTC-PERP" in form_text(app)


async def test_panic_stops_the_trail_first_and_leaves_nothing(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A trail on the long, then `P` and `y`: the trail is stopped first ("PANIC"), every order cancelled (its stop
    too) and the position closed: nothing rests and nothing is held on the exchange."""
    await go_long(trader)
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: any(p.size for p in app.feed.state.account.positions), what="the position")
        runner = app.trails
        assert runner is not None
        await pilot.press("3", "l")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the form")
        app.screen.query_one("#field-distance", Input).value = "500"
        await asked(pilot, "enter")
        await pilot.press("y")
        await settle(pilot, lambda: bool(runner.trails) and runner.trails[0].stop is not None, what="the stop")
        await pilot.press("P")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="PANIC?")
        await pilot.press("y")
        await settle(pilot, lambda: not runner.active, what="the trail stopped")
        assert runner.trails[0].reason.startswith("PANIC: ")
        await settle(pilot, lambda: not any(p.size for p in app.feed.state.account.positions), what="closed")
    assert (await trader.open_orders(ALICE.address)).data == []
    assert not any(p.size for p in await trader.positions(ALICE.address))
