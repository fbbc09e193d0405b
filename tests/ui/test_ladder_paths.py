"""The ladder's other ways in and out: opened from the palette (its own keys listed there while it is open), your
several orders on one level cancelled together after a question, a ladder order whose answer is lost read back
from the exchange's record by cloid, sent once; the profile's size kept after an order form of another size, and
armed mode."""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal

from textual.command import CommandPalette
from textual.widgets import Input

from tests.conftest import ALICE_KEY
from tests.fault_proxy import FaultProxy
from tests.ui.conftest import asked, dashboard, feed_ready, noted, palette_search, settle
from tests.ui.test_ladder import ladder_of, open_ladder, row_text
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading.ladder import bucket
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.ladder import LadderLine, LadderScreen
from tui.ui.screens.order_form import OrderFormScreen
from tui.ui.screens.prompt import PromptScreen
from tui.ui.widgets.armed_banner import ArmedBanner

ALICE = Signer(ALICE_KEY)


async def test_the_palette_opens_the_ladder_and_lists_its_keys(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """ctrl+p, "price ladder", Enter: the ladder; there, the palette finds "join the bid" and runs it: an order at
    the best bid for the ladder's own size (none set: twice the minimum order)."""
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (120, 40)) as (pilot, _notes):
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await palette_search(pilot, "price ladder", "Price ladder")
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, LadderScreen), what="the ladder from the palette")
        await settle(pilot, lambda: ladder_of(app).cursor is not None, what="the ladder's cursor")
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette over the ladder")
        await palette_search(pilot, "buy at the best bid", "buy at the best bid")
        await pilot.press("enter")
        account = app.feed.state.account
        await settle(pilot, lambda: account.open_orders, what="the join")
        [order] = account.open_orders
        assert order.side == "b" and order.size == Decimal("0.0002")


async def test_several_orders_on_the_cursors_level_are_cancelled_together_after_a_question(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Two buys on one level (sent by the client); the ladder shows their sum and ×2 there; x asks (default No),
    Escape keeps them; x then y cancels both in one cancel."""
    book = await trader.orderbook("BTC-PERP", depth=5)
    price = book.bids[2].price
    for cloid, size in (("two-a", "0.01"), ("two-b", "0.02")):
        await trader.place_order([order_item(1, "b", price, size, cloid=cloid)])
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 2, what="the two orders")
        ladder = await open_ladder(pilot, app)
        assert ladder.axis is not None
        level = bucket(price, ladder.axis.step, "bids")
        await settle(pilot, lambda: row_text(ladder, level)[0] == "0.0300 ×2", what="the two on their level")
        ladder.set_cursor(level)
        await asked(pilot, "x")
        await pilot.press("escape")
        await settle(pilot, lambda: isinstance(app.screen, LadderScreen), what="back, nothing cancelled")
        assert len((await trader.open_orders(ALICE.address)).data) == 2
        await pilot.press("x")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question again")
        await pilot.press("y")
        await settle(pilot, lambda: not account.open_orders, what="both cancelled")
        assert (await trader.open_orders(ALICE.address)).data == []


async def test_a_ladder_order_whose_answer_is_lost_is_read_back_from_the_record(
    sim: LocalExchange, clock: FrozenClock, proxied: tuple[FaultProxy, Client]
) -> None:
    """j (join the bid, 0.002) reaches the exchange, its answer is lost: the trader is told it is unconfirmed, then
    what the record says (placed); the order rests once, and nothing was sent again."""
    proxy, client = proxied
    app = dashboard(client, sim, clock, ALICE)
    async with noted(app, (120, 40)) as (pilot, notes):
        await open_ladder(pilot, app)
        assert app.main.desk.ladder.set_size("BTC-PERP", "0.002") is None
        sent = proxy.forwarded.count("/exchange")
        proxy.place_fault = "lose_answer"
        await pilot.press("j")
        await settle(pilot, lambda: any("the exchange's record" in m for m in notes.messages), what="the record")
    assert any("unconfirmed: waiting for the exchange" in m for m in notes.messages)
    [order] = (await client.open_orders(ALICE.address)).data
    assert order.size == Decimal("0.002") and order.side == "b"
    assert proxy.forwarded.count("/exchange") == sent + 1  # the join, once


async def test_the_ladder_keeps_the_profiles_size_after_a_form_order_and_armed_mode_skips_its_question(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """An order of 0.005 sent from the order form is not the ladder's size (it once took the form's last: 15 ETH,
    ~52,600 USDC, on one key): the ladder shows and sends the profile's ladder_notional of 300 USDC at the mid.
    confirm_notional 100 USDC would ask before that ladder order, but armed (!) it goes at once, the red line on
    the ladder saying so."""
    app = dashboard(trader, sim, clock, ALICE, confirm_notional=Decimal(100), ladder_notional=Decimal(300))
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: account.summary is not None, what="the account")
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
        app.screen.query_one("#price", Input).value = "90000"
        await pilot.click("#size")
        await pilot.press(*"0.005", "enter")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the form's question (~450 USDC)")
        await pilot.press("y")
        await settle(pilot, lambda: account.open_orders, what="the form's order")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        book = app.feed.state.market.book
        assert book.mid is not None
        expected = (Decimal(300) / book.mid / Decimal("0.0001")).to_integral_value(ROUND_FLOOR) * Decimal("0.0001")
        assert Decimal("0.0025") <= expected <= Decimal("0.003")  # BTC at ~100,000
        shown = format(expected, "f")
        await pilot.press("exclamation_mark")
        await open_ladder(pilot, app)
        line = app.screen.query_one(LadderLine)
        await settle(pilot, lambda: f"size {shown} (z)" in str(line.render()), what="the profile's size on the ladder")
        assert app.main.desk.ladder.size("BTC-PERP") == shown
        assert app.screen.query_one(ArmedBanner).has_class("-armed")
        await pilot.press("j")
        await settle(pilot, lambda: len(account.open_orders) == 2, what="the ladder's order, unasked")
        assert not isinstance(app.screen, ConfirmScreen)
        assert {o.size for o in (await trader.open_orders(ALICE.address)).data} == {Decimal("0.005"), expected}


async def test_the_ladder_follows_the_market_behind_a_dialog(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """With the size prompt open over the ladder, an order placed meanwhile (by another program on the account)
    shows on its level behind the dialog: the ladder is still on screen, and still follows the feed."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        ladder = await open_ladder(pilot, app)
        await pilot.press("z")
        await settle(pilot, lambda: isinstance(app.screen, PromptScreen), what="the size prompt")
        book = app.feed.state.market.book
        assert book.best_bid is not None and ladder.axis is not None
        level = bucket(book.best_bid, ladder.axis.step, "bids")
        await trader.place_order([order_item(1, "b", level, "0.004", cloid="behind")])
        await settle(pilot, lambda: row_text(ladder, level)[0] == "0.0040", what="the order behind the dialog")
        assert isinstance(app.screen, PromptScreen)
