"""What happens to the account is seen on the dashboard: a notice (and the bell the config asks for), the Fills
tab beside the open orders, and the trader's own trades marked on the tape."""

from __future__ import annotations

from decimal import Decimal

import pytest
from textual.widgets import DataTable, TabbedContent

from tests.conftest import ALICE_KEY, BOB_KEY, client_for
from tests.ui.conftest import Notes, dashboard, feed_ready, settle, toasts
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.feed.state import FeedState
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.widgets.tape import OWN_MARK
from tui.ui.widgets.tape_lines import TapeLines

ALICE = Signer(ALICE_KEY)


def inside_the_spread(state: FeedState, n: int) -> list[Decimal]:
    """``n`` prices a tick apart above the best bid and below the best ask: asks there are the book's best."""
    book, tick = state.market.book, state.market.instruments["BTC-PERP"].tick_size
    assert book.best_bid is not None and book.best_ask is not None
    prices = [book.best_bid + tick * (i + 1) for i in range(n)]
    assert prices[-1] < book.best_ask, "the seeded book's spread is wide enough"
    return prices


@pytest.mark.parametrize("bell", [frozenset({"fill"}), frozenset()], ids=["bell", "no-bell"])
async def test_a_resting_order_filled_by_someone_else_is_announced(
    sim: LocalExchange, clock: FrozenClock, trader: Client, bell: frozenset[str]
) -> None:
    app = dashboard(trader, sim, clock, ALICE, bell=bell)
    rung: list[int] = []
    app.bell = lambda: rung.append(1)  # type: ignore[method-assign]  # the terminal's bell, counted
    notes = Notes()
    async with app.run_test(size=(160, 48), message_hook=notes) as pilot:
        await feed_ready(app)
        state = app.feed.state
        await settle(pilot, lambda: state.account.loaded and state.market.book.best_ask, what="the account")
        price = inside_the_spread(state, 1)[0]
        await trader.place_order([order_item(1, "s", str(price), "0.01")])  # the best ask now
        await settle(pilot, lambda: state.account.open_orders, what="the resting order")
        assert not notes.messages  # placing is not news: the desk (or here, another client) tells of it

        async with client_for(sim, BOB_KEY, clock) as bob:
            await bob.place_order([order_item(1, "b", str(price), "0.01", tif="IOC")])
        await settle(pilot, lambda: any("BTC-PERP at" in m for m in notes.messages), what="the fill's notice")
        [told] = [m for m in notes.messages if "BTC-PERP at" in m]
        assert told.startswith(f"Sold 0.0100 BTC-PERP at {price:,.1f} · maker · ")
        assert told.endswith(" · order filled")
        assert rung == ([1] if bell else [])

        # the Fills tab counts it; 5 shows it and focuses its table
        tabs = app.main.query_one("#orders-tabs", TabbedContent)
        await settle(pilot, lambda: "Fills (1)" in str(tabs.get_tab("tab-fills").label), what="the tab's count")
        await pilot.press("5")
        table = app.main.query_one("#fills-table", DataTable)
        await settle(pilot, lambda: table.has_focus and table.row_count == 1, what="the fills table")
        cells = [str(c).strip() for c in table.get_row_at(0)]
        assert cells[1:5] == ["BTC-PERP", "▼ sell", "0.0100", f"{price:,.1f}"] and cells[6] == "maker"
        await pilot.press("4")
        await settle(pilot, lambda: app.main.query_one("#orders-table", DataTable).has_focus, what="orders again")

        # the trade is on the tape, marked as the trader's own
        tape = app.main.query_one("#tape-table", TapeLines)

        def marked() -> list[str]:
            return [tape.cell(i, 0) for i in range(tape.row_count) if OWN_MARK in tape.cell(i, 0)]

        await settle(pilot, marked, what="the own trade on the tape")
        assert len(marked()) == 1
        await pilot.pause()
        assert len([m for m in notes.messages if "BTC-PERP at" in m]) == 1  # the poll brings it again: not news


async def test_fills_arriving_together_make_one_notice_per_order_and_two_at_most_show(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Three resting orders of Alice's, all filled by one order of Bob's: one notice per order (not one per
    piece, not one for all), and of the three at most two are on screen at once."""
    app = dashboard(trader, sim, clock, ALICE)
    notes = Notes()
    async with app.run_test(size=(160, 48), message_hook=notes, notifications=True) as pilot:
        await feed_ready(app)
        state = app.feed.state
        await settle(pilot, lambda: state.account.loaded and state.market.book.best_ask, what="the account")
        prices = inside_the_spread(state, 3)
        await trader.place_order([order_item(1, "s", str(p), "0.01") for p in prices])
        await settle(pilot, lambda: len(state.account.open_orders) == 3, what="three resting orders")
        async with client_for(sim, BOB_KEY, clock) as bob:  # one order of Bob's takes all three
            await bob.place_order([order_item(1, "b", str(prices[-1]), "0.03", tif="IOC")])
        await settle(pilot, lambda: len([m for m in notes.messages if "BTC-PERP" in m]) == 3, what="three notices")
        told = [m for m in notes.messages if "BTC-PERP" in m]
        for p in prices:
            [one] = [m for m in told if m.startswith(f"Sold 0.0100 BTC-PERP at {p:,.1f} · maker · ")]
            assert one.endswith(" · order filled")
        shown = lambda: any(told[-1] in str(t.render()) for t in toasts(app))  # noqa: E731
        await settle(pilot, shown, what="the last notice on screen")
        assert len(toasts(app)) == 2  # the third went: the event log keeps every one
