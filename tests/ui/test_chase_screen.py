"""The chase and OCO screen (O) as a trader uses it, against the local exchange, at 160x48 and at 80x24: a chase
started from its form rests at the best bid and shows in the open orders as "chase", and x withdraws it; an OCO
on Alice's position places a take-profit and a stop shown as "OCO TP" / "OCO stop", and x withdraws both; a bad
field is said under it and starts nothing; quitting with one running asks first and says what happens to them."""

from __future__ import annotations

from decimal import Decimal

import pytest
from textual.command import CommandPalette
from textual.widgets import Input

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard, feed_ready, palette_search, press_to_quit, settle
from tests.ui.screen_steps import cells, until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.bindings import key_catalogue
from tui.ui.screens.chase import ChaseScreen
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.form import FormScreen
from tui.ui.widgets.orders import order_type
from tui.ui.widgets.record_table import RecordTable

ALICE = Signer(ALICE_KEY)
D = Decimal
SIZES = [(160, 48), (80, 24)]


async def open_screen(pilot: object, app: object, notes: Seen) -> ChaseScreen:
    await pilot.press("O")  # type: ignore[attr-defined]
    await until(pilot, lambda: isinstance(app.screen, ChaseScreen) and notes.loads[app.screen] >= 1, "the screen")  # type: ignore[attr-defined]
    return app.screen  # type: ignore[attr-defined,no-any-return]


@pytest.mark.parametrize("size", SIZES)
async def test_a_chase_started_from_its_form_rests_at_the_bid_and_is_withdrawn_by_x(
    sim: LocalExchange, clock: FrozenClock, trader: Client, size: tuple[int, int]
) -> None:
    """O, n: the chase form; a size of 1e5 is refused under the field; 0.01 starts a chase that bids at the best
    bid (one open order, typed "chase"); x cancels it: the order is withdrawn and the row says cancelled."""
    app = dashboard(trader, sim, clock, ALICE)
    notes = Seen()
    async with app.run_test(size=size, message_hook=notes) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.market.book.loaded, what="the book")
        screen = await open_screen(pilot, app, notes)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the form")
        form = app.screen
        form.query_one("#field-size", Input).value = "1e5"
        await pilot.press("enter")
        await until(pilot, lambda: "not a plain decimal" in str(form.query_one("#form-error").render()), "refused")
        assert app.screen is form and app.session.chases is not None and not app.session.chases.chases
        form.query_one("#field-size", Input).value = "0.01"
        await pilot.press("enter")
        runner = app.session.chases
        await until(pilot, lambda: bool(runner.chases) and runner.chases[0].cloid != "", "the chase's order")
        chase = runner.chases[0]
        bid = app.feed.state.market.book.best_bid
        orders = (await trader.open_orders(ALICE.address)).data
        assert [(o.cloid, o.limit_price, order_type(o)) for o in orders] == [(chase.cloid, bid, "chase")]
        table = screen.query_one("#chase-table", RecordTable)
        await until(pilot, lambda: table.row_count == 1 and cells(table)[0][2] == "running", "listed")
        await pilot.press("x")
        await until(pilot, lambda: not chase.active and not chase.cloid, "withdrawn", timeout_s=20)
        await until(pilot, lambda: cells(table)[0][2] == "cancelled", "said")
        assert (await trader.open_orders(ALICE.address)).data == []
        assert any(m.startswith("started: chase BUY 0.01 BTC-PERP at the best bid") for m in notes.messages)
        await pilot.press("n")  # a second one: the cursor lands on it, so x cancels it, not the first
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the form again")
        app.screen.query_one("#field-size", Input).value = "0.01"
        await pilot.press("enter")
        await until(pilot, lambda: len(runner.chases) == 2 and runner.chases[1].cloid != "", "the second order")
        await pilot.press("x")
        await until(pilot, lambda: not runner.chases[1].active and not runner.chases[1].cloid, "the second withdrawn")
        assert (await trader.open_orders(ALICE.address)).data == []


@pytest.mark.parametrize("size", SIZES)
async def test_an_oco_on_the_position_places_both_and_x_withdraws_them(
    sim: LocalExchange, clock: FrozenClock, trader: Client, size: tuple[int, int]
) -> None:
    """Alice long 0.02 BTC; O, o: the form offers the whole position; a take-profit below the mark is refused
    under its field; above it, with a stop below, both rest reduce-only, typed "OCO TP" and "OCO stop"; x
    withdraws both; quitting with none running asks nothing about them."""
    ask = (await trader.orderbook("BTC-PERP", depth=1)).asks[0].price
    await trader.place_order([order_item(1, "b", ask, "0.02", tif="IOC")])
    app = dashboard(trader, sim, clock, ALICE)
    notes = Seen()
    async with app.run_test(size=size, message_hook=notes) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: any(p.size for p in app.feed.state.account.positions), what="the position")
        mark = app.feed.state.market.tickers["BTC-PERP"].mark_price
        screen = await open_screen(pilot, app, notes)
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the form")
        form = app.screen
        assert form.query_one("#field-size", Input).value == "0.02"
        form.query_one("#field-take_profit", Input).value = str(int(mark) - 1000)
        form.query_one("#field-stop", Input).value = str(int(mark) - 2000)
        await pilot.press("enter")
        await until(pilot, lambda: "above the mark" in str(form.query_one("#form-error").render()), "refused")
        form.query_one("#field-take_profit", Input).value = str(int(mark) + 1000)
        await pilot.press("enter")
        runner = app.session.ocos
        assert runner is not None
        await until(pilot, lambda: any("both orders rest" in m for m in notes.messages), "both placed", timeout_s=20)
        orders = (await trader.open_orders(ALICE.address)).data
        assert sorted(order_type(o) for o in orders) == ["OCO TP", "OCO stop"]
        assert all(o.reduce_only and o.size == D("0.02") for o in orders)
        table = screen.query_one("#chase-table", RecordTable)
        await until(pilot, lambda: table.row_count == 1 and cells(table)[0][0] == "OCO 1", "listed")
        await pilot.press("x")
        await until(pilot, lambda: any(m.startswith("cancelled: ") for m in notes.messages), "withdrawn", timeout_s=20)
        assert (await trader.open_orders(ALICE.address)).data == []


async def test_quitting_with_a_chase_running_asks_and_withdraws_it(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A chase running: q asks first, naming it and saying what quitting does; y withdraws its order on the way
    out, and nothing of it stays on the exchange."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.market.book.loaded, what="the book")
        from tui.trading.chase import ChaseSpec

        runner = app.session.chases
        assert runner is not None
        chase = runner.start(ChaseSpec("BTC-PERP", "buy", D("0.01")))
        await until(pilot, lambda: chase.cloid != "", "resting")
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        words = " ".join(str(label.render()) for label in app.screen.query("Label, Static"))
        assert "Quit with 1 order tool(s) running (Chase)?" in words and "withdraws each chase's order" in words
        await press_to_quit(pilot, "y")
        await until(pilot, lambda: chase.state == "cancelled" and not chase.cloid, "withdrawn on the way out")
    assert (await trader.open_orders(ALICE.address)).data == []
    assert app.left_resting == []


async def test_the_palette_and_the_help_list_the_chase_and_oco_keys(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """ctrl+p, "chase": the palette offers the Chase and OCO screen first, and Enter opens it; the help lists O and
    the screen's n, o and x with what they do."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await palette_search(pilot, "chase", "Chase")
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ChaseScreen), what="the screen from the palette")
    rows = {row.id: row for row in key_catalogue(app, app.BINDINGS, {})}
    assert rows["screen_chase"].keys == "O" and "only while xtui runs" in rows["screen_chase"].tooltip
    assert {rows[i].keys for i in ("chase.new", "chase.oco", "chase.cancel")} == {"n", "o", "x"}
