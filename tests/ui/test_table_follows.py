"""The open orders follow the exchange's answer, not the next poll: an accepted cancel or amend takes the row out of
the one state the orders pane, the TP/SL columns and the protection model read before its notice is shown, and a
key on a row whose order has already left says so and sends nothing."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Notes, asked, dashboard, feed_ready, settle
from tests.ui.test_amend_close import buy_through_the_book
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading.protection import protection_now
from tui.ui.screens.form import FormScreen
from tui.ui.widgets.orders import OpenOrdersPane

ALICE = Signer(ALICE_KEY)


class HeldAtNotice:
    """The open order ids the state held at the moment each notice was given (``app.notify`` called, not when the
    notice's message is handled: by then the poll after it may have come)."""

    def __init__(self, app: Any) -> None:
        self.at: dict[str, list[int]] = {}
        given = app.notify

        def notify(message: str, *args: Any, **kwargs: Any) -> None:
            self.at[message] = [o.order_id for o in app.feed.state.account.open_orders]
            given(message, *args, **kwargs)

        app.notify = notify


async def test_a_cancelled_order_leaves_the_table_with_its_answer(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await trader.place_order([order_item(1, "b", "90000", "0.01"), order_item(1, "b", "89000", "0.01")])
    app = dashboard(trader, sim, clock, ALICE)
    notes = HeldAtNotice(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
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
    notes = HeldAtNotice(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 1, what="the order")
        [old] = account.open_orders
        await pilot.press("4", "e")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the amend form")
        app.screen.query_one("#field-price", Input).value = "90500"
        await pilot.press("enter")
        await settle(pilot, lambda: any(m.startswith("amended") for m in notes.at), what="the amend")
        [held] = [ids for m, ids in notes.at.items() if m.startswith("amended")]
        assert old.order_id not in held  # the old row never outlives the answer that ended it


async def test_attached_exits_are_in_the_table_and_the_protection_with_their_answer(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Long 0.01, TP and SL attached (a): their rows, and the position's TP/SL, are there as the notice says they
    were placed; no poll runs meanwhile, and the exchange pushes no row for an order the dashboard did not hold."""
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.01")
    app = dashboard(trader, sim, clock, ALICE, feed_options={"poll_s": 3600})
    notes = HeldAtNotice(app)
    async with app.run_test(size=(140, 40)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: account.positions and account.summary, what="the position")
        mark = app.feed.state.market.tickers["BTC-PERP"].mark_price
        await pilot.press("3", "a")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the TP/SL form")
        app.screen.query_one("#field-tp", Input).value = str(int(mark) + 1000)
        app.screen.query_one("#field-sl", Input).value = str(int(mark) - 1000)
        await asked(pilot, "enter")
        await pilot.press("y")
        await settle(pilot, lambda: any(m.startswith("2 of 2 order(s) placed") for m in notes.at), what="placed")
        [held] = [ids for m, ids in notes.at.items() if m.startswith("2 of 2")]
        on_exchange = [o.order_id for o in (await trader.open_orders(ALICE.address)).data]
        assert sorted(held) == sorted(on_exchange) and len(held) == 2
        cover = protection_now(app.feed.state).of("BTC-PERP")
        assert cover is not None and cover.tp is not None and cover.sl is not None  # what the TP/SL column shows
        assert cover.tp.whole and cover.sl.whole


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
