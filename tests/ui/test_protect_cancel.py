"""A position's protection is hard to remove by accident: `x` on a TP/SL asks first (No by default), and after
`K` cancels a scale group the cursor lands on an order that is not a TP/SL, so the next `x` cannot take the
position's stop without a question."""

from __future__ import annotations

from decimal import Decimal

from textual.widgets import DataTable

from tests.conftest import ALICE_KEY
from tests.ui.conftest import asked, dashboard, feed_ready, noted, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.widgets.orders import OpenOrdersPane, is_protective

ALICE = Signer(ALICE_KEY)


async def long_with_a_stop(trader: Client) -> Decimal:
    """Alice long 0.01 BTC with a position stop-loss 10% under the bid; the stop's trigger."""
    book = await trader.orderbook("BTC-PERP", depth=5)
    through = (book.asks[-1].price * Decimal("1.01")).quantize(book.asks[0].price)
    await trader.place_order([order_item(1, "b", through, "0.01", tif="IOC")])
    stop = (book.bids[0].price * Decimal("0.9")).quantize(book.bids[0].price)
    await trader.place_order(
        [order_item(1, "s", "0", "0.01", tif="IOC", trigger_px=stop, is_market=True, tpsl="sl", grouping="position",
                    reduce_only=True)]
    )  # fmt: skip
    return stop


async def test_x_on_a_position_stop_asks_first_and_no_keeps_it(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """`x` on the position's stop-loss row: a question (Enter = No keeps the stop), then `x` and `y` cancel it."""
    await long_with_a_stop(trader)
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (140, 40)) as (pilot, notes):
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 1, what="the stop")
        await asked(pilot, "4", "x")
        assert str(app.screen.query_one(".title").render()) == "Cancel the position SL on BTC-PERP?"
        await pilot.press("enter")  # No has the focus
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        assert len((await trader.open_orders(ALICE.address)).data) == 1  # the stop stays
        await pilot.press("x")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question again")
        await pilot.press("y")
        await settle(pilot, lambda: not account.open_orders, what="the stop cancelled")
    assert (await trader.open_orders(ALICE.address)).data == []
    assert any(m.startswith("cancelled ") for m in notes.messages)


async def test_after_a_group_cancel_the_cursor_is_not_on_the_stop(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A plain order, the position's stop, then a scale group of three (newest first: the group, the stop, the
    plain order). `K` on the group's first row cancels it; the cursor goes to the plain order, not to the stop
    that took the group's place, and `x` then cancels the plain order at once; the stop stays."""
    await trader.place_order([order_item(1, "b", "80000", "0.01", cloid="mine")])
    await long_with_a_stop(trader)
    await trader.place_order([order_item(1, "b", str(85_000 + i * 100), "0.01", cloid=f"sc77-{i}") for i in (1, 2, 3)])
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(140, 40)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 5, what="five orders")
        pane = app.main.query_one(OpenOrdersPane)
        table = app.main.query_one("#orders-table", DataTable)
        await pilot.press("4")
        table.move_cursor(row=0)
        await settle(pilot, lambda: (pane.selected() or account.open_orders[-1]).cloid.startswith("sc77-"), what="sc")
        await pilot.press("K")
        await settle(pilot, lambda: len(account.open_orders) == 2, what="the group cancelled")
        await settle(pilot, lambda: pane.selected() is not None, what="a row under the cursor")
        selected = pane.selected()
        assert selected is not None and not is_protective(selected) and selected.cloid == "mine"
        await pilot.press("x")
        await settle(pilot, lambda: len(account.open_orders) == 1, what="the plain order cancelled")
        assert not isinstance(app.screen, ConfirmScreen)
    [left] = (await trader.open_orders(ALICE.address)).data
    assert (left.tpsl, left.grouping) == ("sl", "position")
