"""The open orders follow the exchange's answer, not the next poll: an accepted cancel or amend takes the row out of
the one state the orders pane, the TP/SL columns and the protection model read before its notice is shown, and a
key on a row whose order has already left says so and sends nothing."""

from __future__ import annotations

from textual.message import Message
from textual.notifications import Notify
from textual.widgets import Input

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Notes, dashboard, feed_ready, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.form import FormScreen
from tui.ui.widgets.orders import OpenOrdersPane

ALICE = Signer(ALICE_KEY)


class HeldAtNotice(Notes):
    """Notes that also keep the open order ids the state held as each notice came."""

    def __init__(self, held: object) -> None:
        super().__init__()
        self.held = held
        self.at: dict[str, list[int]] = {}

    def __call__(self, message: Message) -> None:
        super().__call__(message)
        if isinstance(message, Notify):
            self.at[message.notification.message] = [o.order_id for o in self.held.open_orders]  # type: ignore[attr-defined]


async def test_a_cancelled_order_leaves_the_table_with_its_answer(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await trader.place_order([order_item(1, "b", "90000", "0.01"), order_item(1, "b", "89000", "0.01")])
    app = dashboard(trader, sim, clock, ALICE)
    notes = HeldAtNotice(None)
    async with app.run_test(size=(120, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        account = notes.held = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 2, what="the orders")
        await pilot.press("4")
        await settle(pilot, lambda: app.query_one(OpenOrdersPane).selected() is not None, what="a row")
        under = app.query_one(OpenOrdersPane).selected().order_id  # type: ignore[union-attr]
        await pilot.press("x")
        said = f"cancelled {under} (BTC-PERP)"
        await settle(pilot, lambda: any(m.startswith(said) for m in notes.at), what="the cancel's notice")
        [held] = [ids for m, ids in notes.at.items() if m.startswith(said)]
        assert under not in held and len(held) == 1  # gone as the trader reads "cancelled", the other kept


async def test_an_amended_order_is_replaced_in_the_table_with_its_answer(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await trader.place_order([order_item(1, "b", "90000", "0.01", cloid="mine-1")])
    app = dashboard(trader, sim, clock, ALICE)
    notes = HeldAtNotice(None)
    async with app.run_test(size=(120, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        account = notes.held = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 1, what="the order")
        [old] = account.open_orders
        await pilot.press("4", "e")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the amend form")
        app.screen.query_one("#field-price", Input).value = "90500"
        await pilot.press("enter")
        await settle(pilot, lambda: any(m.startswith("amended") for m in notes.at), what="the amend")
        [held] = [ids for m, ids in notes.at.items() if m.startswith("amended")]
        assert old.order_id not in held  # the old row never outlives the answer that ended it


async def test_a_key_on_a_row_whose_order_left_says_so_and_sends_nothing(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await trader.place_order([order_item(1, "b", "90000", "0.01")])
    app = dashboard(trader, sim, clock, ALICE, feed_options={"poll_s": 3600})  # no poll brings it back meanwhile
    notes = Notes()
    async with app.run_test(size=(120, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 1, what="the order")
        [order] = account.open_orders
        await pilot.press("4")
        await settle(pilot, lambda: app.query_one(OpenOrdersPane).selected() is not None, what="the row")
        pane, main = app.query_one(OpenOrdersPane), app.screen
        for action in ("cancel_order", "amend_order", "cancel_group"):  # x, e and K
            await settle(pilot, lambda: pane.selected() is not None, what="the row")
            # the order left (a fill, say): the state knows, the row is not redrawn yet (its tick redraws it within
            # a second: the action runs with no await between, so no timer can redraw it first)
            account.cancelled([order.order_id], app.session.clock())
            getattr(main, f"action_{action}")()
            said = f"Order {order.order_id} is no longer open (filled or cancelled): nothing sent."
            await settle(pilot, lambda said=said: said in notes.messages, what=f"what {action} says")
            assert not isinstance(app.screen, FormScreen)  # no amend form either
            assert not [m for m in notes.messages if m.startswith(("cancelled", "No open order"))]
            notes.messages.clear()
            account.reconcile_orders([order], since=app.session.clock())  # back, for the next key
    assert [o.order_id for o in (await trader.open_orders(ALICE.address)).data] == [order.order_id]  # nothing sent
