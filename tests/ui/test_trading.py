"""Trading from the keyboard: the order form, the open orders pane, cancels and positions."""

from __future__ import annotations

from decimal import Decimal

from textual.widgets import DataTable, Input

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.form import FormScreen
from tui.ui.screens.order_form import OrderFormScreen
from tui.ui.screens.prompt import PromptScreen

ALICE = Signer(ALICE_KEY)


async def test_limit_order_from_the_form_then_cancel_with_x(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: account.summary is not None, what="the account")
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
        form = app.screen
        assert isinstance(form, OrderFormScreen)
        best_ask = app.feed.state.market.book.best_ask
        assert Decimal(form.query_one("#price", Input).value) == best_ask  # the form starts at the best ask
        form.query_one("#price", Input).value = "90000"
        await pilot.click("#size")
        await pilot.press(*"0.01", "enter")
        await settle(pilot, lambda: account.open_orders, what="the order in open orders")
        assert app.screen is app.main
        [order] = account.open_orders
        assert (order.side, order.limit_price, order.size) == ("b", Decimal(90000), Decimal("0.01"))
        table = app.main.query_one("#orders-table", DataTable)
        await settle(pilot, lambda: table.row_count == 1, what="the orders pane")
        assert str(order.order_id) in [str(k.value) for k in table.rows]
        await pilot.press("x")
        await settle(pilot, lambda: not account.open_orders, what="the cancel")
        await settle(pilot, lambda: table.row_count == 0, what="the orders pane to empty")
        open_now = await trader.open_orders(ALICE.address)
        assert open_now.data == []


async def test_a_crossing_order_fills_and_the_position_appears(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        state = app.feed.state
        await settle(pilot, lambda: state.account.summary is not None, what="the account")
        [(ask, ask_size)] = state.market.book.levels("asks", 1)
        size = min(Decimal("0.01"), ask_size)
        await pilot.press("b")  # the price starts at the best ask: this order crosses
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
        await pilot.press(*str(size), "enter")
        await settle(pilot, lambda: state.account.positions, what="the position")
        [position] = state.account.positions
        assert (position.instrument, position.size, position.entry_price) == ("BTC-PERP", size, ask)
        table = app.main.query_one("#positions-table", DataTable)
        await settle(pilot, lambda: table.row_count == 1, what="the positions pane")
        cells = [str(c).strip() for c in table.get_row_at(0)]  # a space before each column but the first
        assert cells[0] == "BTC-PERP" and "long" in cells[1]
        assert cells[2] == f"{size:.4f}" and cells[3] == f"{ask:,.1f}"
        assert not state.account.open_orders  # filled in full: nothing rests

        # c opens the close form: the whole position at market (within the slippage bound); Escape keeps it
        await pilot.press("c")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the close form")
        assert app.screen.query_one("#field-size", Input).value == str(size)
        assert app.screen.query_one("#field-price", Input).value == ""
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        assert state.account.positions
        await pilot.press("c")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the close form")
        await pilot.press("enter")
        await settle(pilot, lambda: not state.account.positions, what="the position to close")
        await settle(pilot, lambda: table.row_count == 0, what="the positions pane to empty")


async def test_cancel_by_cloid_and_cancel_all_on_the_instrument(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await trader.place_order([order_item(1, "b", "90000", "0.01", cloid="keep-1")])
    await trader.place_order([order_item(1, "b", "90100", "0.01", cloid="drop-me")])
    await trader.place_order([order_item(2, "b", "3000", "0.1", cloid="eth-1")])  # another instrument
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 3, what="three orders")
        await pilot.press("k")
        await settle(pilot, lambda: isinstance(app.screen, PromptScreen), what="the cloid prompt")
        await pilot.press(*"drop-me", "enter")
        await settle(pilot, lambda: {o.cloid for o in account.open_orders} == {"keep-1", "eth-1"}, what="by cloid")
        await pilot.press("X")  # every BTC-PERP order, after a confirmation
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
        await pilot.press("y")
        await settle(pilot, lambda: [o.cloid for o in account.open_orders] == ["eth-1"], what="cancel all BTC-PERP")
