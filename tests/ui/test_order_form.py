"""The order form refuses bad input before anything is sent, and watch-only mode has no order entry."""

from __future__ import annotations

from decimal import ROUND_FLOOR
from decimal import Decimal as D
from typing import Any

from textual.widgets import Checkbox, Input, Select, Static

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Notes, asked, dashboard, feed_ready, noted, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.order_form import OrderFormScreen

ALICE = Signer(ALICE_KEY)


async def buy_form(pilot: Any) -> OrderFormScreen:
    """The buy form, opened with ``b`` once the feed has the account."""
    app = pilot.app
    await feed_ready(app)
    await settle(pilot, lambda: app.feed.state.account.summary is not None, what="the account")
    await pilot.press("b")
    await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
    form = app.screen
    assert isinstance(form, OrderFormScreen)
    return form


async def test_bad_input_gets_a_message_under_its_field_and_nothing_is_sent(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await buy_form(pilot)
        best_ask = app.feed.state.market.book.best_ask
        assert best_ask is not None

        async def attempt(price: str, size: str, *, post_only: bool = False, reduce_only: bool = False) -> dict:
            form.query_one("#price", Input).value = price
            form.query_one("#size", Input).value = size
            form.query_one("#post_only", Checkbox).value = post_only
            form.query_one("#reduce_only", Checkbox).value = reduce_only
            form.query_one("#size", Input).focus()
            await pilot.press("enter")
            await pilot.pause()
            return dict(form.shown_errors)

        # price off the 0.1 tick
        assert "not a multiple of the tick size 0.1" in (await attempt("90000.05", "0.01"))["price"]
        # size off the 0.0001 lot
        assert "not a multiple of the lot size 0.0001" in (await attempt("90000", "0.00015"))["size"]
        # 0.0001 BTC at 90,000 is 9 USDC: below the 10 USDC minimum
        assert "below the minimum 10" in (await attempt("90000", "0.0001"))["size"]
        # 100 BTC at 90,000 at the 10x in force needs 900,000 of margin: far beyond 100,000 available
        assert "margin 900,000.00 is above available" in (await attempt("90000", "100"))["size"]
        # reduce-only with no position to reduce
        assert "no short position" not in (errors := await attempt("90000", "0.01", reduce_only=True))
        assert "no short position in BTC-PERP" in errors["reduce_only"]
        # post-only at the best ask would cross
        assert "would cross the best ask" in (await attempt(str(best_ask), "0.01", post_only=True))["post_only"]
        # not a number at all, or not in the one grammar: an exponent, a full-width digit, a sign, a space
        assert '"abc" is not a plain decimal' in (await attempt("abc", "0.01"))["price"]
        assert '"1e5" is not a plain decimal' in (await attempt("1e5", "0.01"))["price"]
        # the messages are on screen, under their fields
        assert form.query_one("#err-price", Static).display
        for size in ("１", "+1", "1 "):
            assert f'"{size}" is not a plain decimal' in (await attempt("90000", size))["size"]
        assert form.query_one("#err-size", Static).display
        assert isinstance(app.screen, OrderFormScreen)  # the form stays open
        assert app.feed.state.account.open_orders == []
        assert (await trader.open_orders(ALICE.address)).data == []

        # a correct order clears the messages; a far-through-the-book price asks first (default No)
        far = best_ask * 103 / 100
        errors = await attempt(f"{far:.1f}", "0.01")
        assert errors == {}
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
        await pilot.press("escape")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="back to the form")
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        assert (await trader.open_orders(ALICE.address)).data == []


async def test_watch_only_shows_every_pane_but_has_no_order_entry(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await trader.place_order([order_item(1, "b", "90000", "0.01")])
    app = dashboard(trader, sim, clock, None, account=ALICE.address)
    async with noted(app, (120, 40)) as (pilot, _notes):
        account = app.feed.state.account
        await settle(pilot, lambda: account.open_orders, what="the watched account's orders")
        header = app.main.query_one("#header", Static)
        assert "watch-only" in str(header.render())
        for key in ("b", "s", "x", "c"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is app.main, key  # no form, no confirmation: the keys are not offered
        assert len((await trader.open_orders(ALICE.address)).data) == 1  # x cancelled nothing


async def test_a_market_order_shows_its_estimate_and_asks_when_the_book_is_too_thin(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        state = app.feed.state
        await settle(pilot, lambda: state.account.summary is not None and state.market.book.loaded, what="the book")
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
        form = app.screen
        assert isinstance(form, OrderFormScreen)
        form.query_one("#kind", Select).value = "market"
        await pilot.pause()
        assert form.query_one("#price", Input).disabled
        asks = state.market.book.levels("asks", 100)
        best = asks[0][0]
        bound = (best * D("1.01") / D("0.1")).to_integral_value(ROUND_FLOOR) * D("0.1")
        within = sum((size for price, size in asks if price <= bound), D(0))

        # one lot: it fills at the best ask, and the summary says so
        form.query_one("#size", Input).value = "0.0001"
        await pilot.pause()
        summary = str(form.query_one("#summary", Static).render())
        assert f"est. avg {best:,.1f} · slippage 0.00% · worst {bound:,.1f} (1%)" in summary

        # more than the visible book holds within 1%: asked first, and Enter (No) sends nothing
        form.query_one("#size", Input).value = str(within + 1)
        form.query_one("#size", Input).focus()
        await asked(pilot, "enter")
        text = " ".join(str(s.render()) for s in app.screen.query(Static))
        assert f"fills only {within.normalize():,f} of {within + 1:,f} within the 1% limit" in text
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="back to the form")
        assert (await trader.open_orders(ALICE.address)).data == [] and not state.account.positions


async def test_the_form_waits_for_the_exchange_and_keeps_a_refused_order_to_fix(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Enter sends at once and the form stays until the exchange answers: a refusal (here the exchange's price
    band, which the form does not know) is shown on the form, nothing is placed, and the fixed order goes."""
    app = dashboard(trader, sim, clock, ALICE)
    notes = Notes()
    async with app.run_test(size=(120, 40), message_hook=notes) as pilot:
        form = await buy_form(pilot)
        form.query_one("#price", Input).value = "30000"  # tick, lot and funds are right; the band is not
        form.query_one("#size", Input).value = "0.01"
        form.query_one("#size", Input).focus()
        await pilot.press("enter")
        refusal = form.query_one("#err-send", Static)
        await settle(pilot, lambda: refusal.display, what="the refusal on the form")
        assert "Refused by the exchange: price 30000 is outside the allowed band" in str(refusal.render())
        assert "Nothing was placed" in str(refusal.render())
        assert app.screen is form and form.sending is None
        assert "sending" not in str(form.query_one("#form-title").render())
        assert (await trader.open_orders(ALICE.address)).data == []

        form.query_one("#price", Input).value = "90000"
        await pilot.press("enter")
        await settle(pilot, lambda: app.screen is app.main, what="the form to close once accepted")
        assert [(o.limit_price, o.size) for o in (await trader.open_orders(ALICE.address)).data] == [
            (D(90000), D("0.01"))
        ]
        assert any("oid" in text for text in notes.messages)


async def test_enter_twice_sends_once_and_escape_leaves_the_answer_to_the_notice(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """The form's side of sending, with the answer held back: a second Enter while the first order is on its
    way sends nothing; Escape closes the form, and the late answer finds it gone and does nothing to it."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await buy_form(pilot)
        held: list[tuple[object, object]] = []
        # private: the form's way of sending, held: the exchange's answer comes when the test says
        form._send = lambda plan, settled: held.append((plan, settled))  # type: ignore[method-assign]
        form.query_one("#price", Input).value = "90000"
        form.query_one("#size", Input).value = "0.01"
        form.query_one("#size", Input).focus()
        await pilot.press("enter")
        await settle(pilot, lambda: "sending…" in str(form.query_one("#form-title").render()), what="sending")
        await pilot.press("enter")
        await pilot.pause()
        assert len(held) == 1
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        [(_, settled)] = held
        settled(None)  # type: ignore[operator]
        await pilot.pause()
        assert app.screen is app.main


async def test_the_form_follows_its_answer_when_another_screen_came_over_it(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A question pushed over the form while its order is on the way (a reconnect's, a resume's): a refusal is on
    the form when it is on top again, not "sending…" for ever; an acceptance closes it then."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await buy_form(pilot)
        # private: the form's way of sending, wrapped: a question comes over it as the order leaves
        sent = form._send

        def send_under_a_question(plan: Any, settled: Any) -> None:
            app.push_screen(ConfirmScreen("Something else?", ["asked meanwhile"]))
            sent(plan, settled)

        form._send = send_under_a_question  # private: as above
        form.query_one("#price", Input).value = "30000"  # refused: outside the exchange's band
        form.query_one("#size", Input).value = "0.01"
        form.query_one("#size", Input).focus()
        await pilot.press("enter")
        await settle(pilot, lambda: form.sending is None, what="the answer")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is form, what="the form on top again")
        assert "sending" not in str(form.query_one("#form-title").render())
        assert "Refused by the exchange: price 30000" in str(form.query_one("#err-send", Static).render())

        form.query_one("#price", Input).value = "90000"
        await pilot.press("enter")
        await settle(pilot, lambda: form.sending is None and isinstance(app.screen, ConfirmScreen), what="placed")
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the accepted form closed once on top")
        assert [o.limit_price for o in (await trader.open_orders(ALICE.address)).data] == [D(90000)]
