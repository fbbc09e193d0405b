"""The small truths of the forms, against a real local exchange: watch-only trading keys say why they do nothing;
each form's hint says what Enter does (the close, amend and TWAP forms send or start at once: no "review"); the
close, bracket, scale and TWAP forms show the risk (margin, fee, liquidation price after); the bracket form starts
on its first number; the scale form's prices are on the tick."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

from textual.widgets import Input, Static

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard, feed_ready, noted, settle
from tests.ui.test_amend_close import buy_through_the_book
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading.grammar import is_multiple
from tui.ui.screens.form import FormScreen
from tui.ui.screens.twap import TwapScreen

ALICE = Signer(ALICE_KEY)
TRADING_KEYS = ("b", "s", "P", "c", "o", "S", "e", "a", "x")


def hint(app: Any) -> str:
    return " ".join(str(s.render()) for s in app.screen.query(".hint"))


def preview(app: Any) -> str:
    return str(app.screen.query_one("#form-preview", Static).render())


async def test_watch_only_trading_keys_say_no_key_is_loaded(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Watching Alice's account without her key: each trading key (buy, sell, PANIC, close, bracket, scale,
    amend, TP/SL, cancel) opens nothing and says "watch-only: no key loaded" (before, b and P said nothing)."""
    await trader.place_order([order_item(1, "b", "90000", "0.01")])
    app = dashboard(trader, sim, clock, None, account=ALICE.address)
    async with noted(app, (120, 40)) as (pilot, notes):
        await settle(pilot, lambda: app.feed.state.account.open_orders, what="the watched account's orders")
        for key in TRADING_KEYS:
            before = len(notes.messages)
            await pilot.press(key)
            await settle(pilot, lambda n=before: len(notes.messages) > n, what=f"what {key} says")
            assert notes.messages[-1].startswith("watch-only: no key loaded"), (key, notes.messages[-1])
            assert app.screen is app.main, key
    assert len((await trader.open_orders(ALICE.address)).data) == 1  # nothing was cancelled


async def test_the_close_form_sends_at_once_and_shows_the_risk_after(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Long 0.002 BTC: the close form's hint says Enter sends (no "review"); closing all leaves no liquidation
    price (flat after), closing half at market shows the taker fee on 0.001 at the best bid and a liquidation
    price that is none (the account's equity covers a fall to 0) or a figure, never 0; a bad size says why."""
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.002")
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: account.positions and account.summary, what="the position")
        await pilot.press("3", "c")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the close form")
        assert "Enter: send (asks first only when the order needs it)" in hint(app) and "review" not in hint(app)
        await settle(pilot, lambda: "leverage 10x" in preview(app), what="the leverage read")
        assert "liq after none (flat after this order)" in preview(app)
        app.screen.query_one("#field-size", Input).value = "50%"
        await pilot.pause()
        bid = app.feed.state.market.book.best_bid
        assert bid is not None
        fee = bid * D("0.001") * D("0.0005")
        assert f"margin 0.00 · fee {fee:,.2f} (taker)" in preview(app)
        assert "liq after none (equity covers a fall to 0)" in preview(app)
        app.screen.query_one("#field-size", Input).value = "1"
        await pilot.pause()
        assert "margin — · liq after — (size 1 is more than the 0.002 held)" in preview(app)


async def test_the_bracket_form_starts_on_its_first_number_and_shows_the_entry_risk(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """o: the bracket form's focus is on the size, the first number to give (the entry price is pre-filled with the
    best bid, the side a toggle); with a size the entry's margin at 10x shows: 0.01 at B takes B * 0.01 / 10."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.account.summary and app.feed.state.market.book.loaded, what="book")
        await pilot.press("o")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the bracket form")
        assert app.screen.focused is app.screen.query_one("#field-size", Input)
        assert "review" in hint(app)  # it asks before sending
        price = D(app.screen.query_one("#field-price", Input).value)
        await settle(pilot, lambda: "leverage 10x" in preview(app), what="the leverage read")
        app.screen.query_one("#field-size", Input).value = "0.01"
        await pilot.pause()
        assert preview(app).startswith(f"margin {price * D('0.01') / 10:,.2f} · ")


async def test_the_scale_form_prefills_prices_on_the_tick_and_shows_the_risk_of_every_order_filled(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """S: the low price pre-filled 1% under the best bid is on the 0.1 tick (it read 99009.9-like prices off the
    tick before, e.g. 0.99 x 100,010.1 = 99,009.999); with a total size the preview says the margin and the
    liquidation price with every order filled."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.account.summary and app.feed.state.market.book.loaded, what="book")
        await pilot.press("S")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the scale form")
        low = D(app.screen.query_one("#field-low", Input).value)
        high = D(app.screen.query_one("#field-high", Input).value)
        assert is_multiple(low, D("0.1")) and is_multiple(high, D("0.1")) and low < high
        assert high * D("0.99") - D("0.1") < low <= high * D("0.99")
        await settle(pilot, lambda: "leverage 10x" in preview(app), what="the leverage read")
        app.screen.query_one("#field-size", Input).value = "0.05"
        await pilot.pause()
        assert "(every order filled)" in preview(app) and preview(app).startswith("margin ")


async def test_the_twap_and_amend_forms_do_not_say_review(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """The TWAP form starts the TWAP on Enter and the amend form cancels and replaces: their hints say so; the
    TWAP form shows the risk of the whole size at today's price."""
    await trader.place_order([order_item(1, "b", "90000", "0.01")])
    app = dashboard(trader, sim, clock, ALICE)
    notes = Seen()
    async with app.run_test(size=(140, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.account.open_orders, what="the order")
        await pilot.press("4", "e")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the amend form")
        assert "Enter: cancel and replace" in hint(app) and "review" not in hint(app)
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        await pilot.press("V")
        await settle(pilot, lambda: isinstance(app.screen, TwapScreen) and notes.loads[app.screen] >= 1, what="TWAP")
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the TWAP form")
        assert "Enter: start the TWAP" in hint(app) and "review" not in hint(app)
        app.screen.query_one("#field-size", Input).value = "0.1"
        await settle(pilot, lambda: "leverage 10x" in preview(app), what="the leverage read")
        app.screen.query_one("#field-size", Input).value = "0.1"
        await pilot.pause()
        assert "(all of it at today's price)" in preview(app) and "(taker)" in preview(app)
