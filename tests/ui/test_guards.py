"""The profile's guards hold on every order path, against the real local exchange: the maximum notional per
order (the order form, a scale, a bracket, a close, an amend, each TWAP slice), the daily loss limit (only orders
that reduce a position, said in the header), the liquidation-distance warning (an account event and the bell).
They hold on a paper mirror too. Armed mode skips the order confirmations but never the guards, a protective
cancel, a reversal or PANIC; the status bar shows an order's round trip once one is sent."""

from __future__ import annotations

from decimal import Decimal

import pytest
from textual.widgets import Input, Static

from tests.conftest import ALICE_KEY, client_for
from tests.ui.conftest import Notes, dashboard, feed_ready, noted, settle
from tests.ui.test_amend_close import buy_through_the_book, field
from tests.ui.test_paper import paper
from tests.ui.test_protect_cancel import long_with_a_stop
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading.twap import TwapSpec
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.form import FormScreen
from tui.ui.screens.order_form import OrderFormScreen
from tui.ui.widgets.armed_banner import ArmedBanner
from tui.ui.widgets.header import ProfileHeader
from tui.ui.widgets.status_bar import StatusBar

ALICE = Signer(ALICE_KEY)
CAP = Decimal(500)  # USDC: 0.01 BTC (~1,000 USDC) is above it, 0.004 (~400) below


def send_error(app: object) -> str:
    """The order form's line under the buttons, as the trader reads it."""
    return str(app.screen.query_one("#err-send", Static).render())  # type: ignore[attr-defined]


def refused(notes: Notes, what: str) -> bool:
    return any(what in m for m in notes.messages)


@pytest.mark.long
async def test_the_maximum_notional_refuses_on_every_order_path(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """max_order_notional 500 USDC: an order of ~1,000 from the order form, a scale, a bracket, a close of a 0.01
    position and an amend to 0.01 are each refused with words naming the limit, no question asked, and the exchange
    has nothing new; an order under the cap still goes."""
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.01")  # a position worth ~1,000
    await trader.place_order([order_item(1, "b", "90000", "0.004", cloid="small")])  # ~360: under the cap
    app = dashboard(trader, sim, clock, ALICE, max_order_notional=CAP)
    async with noted(app, (140, 40)) as (pilot, notes):
        state = app.feed.state
        await settle(pilot, lambda: state.account.positions and state.account.open_orders, what="the account")
        said = "max_order_notional 500 USDC"

        # the order form: refused under the form, which stays open; nothing is asked
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
        app.screen.query_one("#price", Input).value = "90000"
        await pilot.click("#size")
        await pilot.press(*"0.01", "enter")
        await settle(pilot, lambda: said in send_error(app), what="the refusal under the form")
        assert isinstance(app.screen, OrderFormScreen)
        app.screen.query_one("#size", Input).value = "0.004"  # under the cap: it goes
        await pilot.press("enter")
        await settle(pilot, lambda: len(state.account.open_orders) == 2, what="the order under the cap")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")

        # a scale of five 0.01 orders: refused before its preview
        await pilot.press("S")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the scale form")
        for name, value in (("low", "90000"), ("high", "94000"), ("count", "5")):
            field(app, name).value = value
        await pilot.press(*"0.05", "enter")
        await settle(pilot, lambda: refused(notes, said) and app.screen is app.main, what="the scale refused")

        # a bracket of 0.01
        notes.messages.clear()
        await pilot.press("o")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the bracket form")
        field(app, "price").value, field(app, "size").value = "90000", "0.01"
        field(app, "sl").value = "85000"
        await pilot.press("enter")
        await settle(pilot, lambda: refused(notes, said) and app.screen is app.main, what="the bracket refused")

        # closing the whole 0.01 position at market
        notes.messages.clear()
        await pilot.press("3", "c")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the close form")
        await pilot.press("enter")
        await settle(pilot, lambda: refused(notes, said) and app.screen is app.main, what="the close refused")

        # amending the small order up to 0.01
        notes.messages.clear()
        await pilot.press("4")
        small = next(i for i, o in enumerate(state.account.open_orders) if o.cloid == "small")
        app.main.query_one("#orders-table").move_cursor(row=small)  # type: ignore[attr-defined]
        await pilot.press("e")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the amend form")
        field(app, "size").value = "0.01"
        await pilot.press("enter")
        await settle(pilot, lambda: refused(notes, said) and app.screen is app.main, what="the amend refused")
        assert not any(isinstance(s, ConfirmScreen) for s in app.screen_stack)
        logged = [e for e in state.account.events.book.entries() if e.kind == "refusal" and said in e.text]
        assert len(logged) == 5, logged  # the form, the scale, the bracket, the close and the amend, each in the log
    orders = (await trader.open_orders(ALICE.address)).data
    assert sorted((o.cloid.startswith("small"), o.size) for o in orders) == [
        (False, Decimal("0.004")),
        (True, Decimal("0.004")),
    ]  # the small order untouched, the one under the cap placed; nothing else
    assert [p.size for p in await trader.positions(ALICE.address) if p.size] == [Decimal("0.01")]


async def test_a_twap_slice_over_the_maximum_stops_the_twap(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A TWAP of 0.02 BTC in two slices (~1,000 USDC each) with max_order_notional 500: its first slice is refused
    by the guard, the TWAP stops saying so, and nothing is bought."""
    app = dashboard(trader, sim, clock, ALICE, max_order_notional=CAP)
    async with app.run_test(size=(140, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.market.book.loaded, what="the book")
        assert app.twaps is not None
        twap = app.twaps.start(TwapSpec("BTC-PERP", "buy", Decimal("0.02"), 2, 3600.0))
        await settle(pilot, lambda: twap.state == "stopped", what="the TWAP stopped")
        assert "slice 1 refused by this profile's guard" in twap.reason and "max_order_notional 500" in twap.reason
    assert [p for p in await trader.positions(ALICE.address) if p.size] == []


async def test_past_the_daily_loss_limit_only_reducing_orders_go(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """daily_loss_limit 0.01 USDC: a crossing buy's fee takes the day's PnL below it. The header then says LOSS
    LIMIT; a new buy from the form and a TWAP slice are refused; closing the position (it reduces risk) goes."""
    app = dashboard(trader, sim, clock, ALICE, daily_loss_limit=Decimal("0.01"))
    async with noted(app, (160, 40)) as (pilot, _notes):
        state = app.feed.state
        header = app.main.query_one(ProfileHeader)
        await settle(pilot, lambda: state.account.summary is not None and state.market.book.loaded, what="ready")
        await pilot.pause()
        assert "LOSS LIMIT" not in str(header.render())
        await buy_through_the_book(trader, 1, "BTC-PERP", "0.01")  # pays a fee: PnL below zero
        await settle(pilot, lambda: "LOSS LIMIT" in str(header.render()), what="the header to say LOSS LIMIT")

        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
        app.screen.query_one("#price", Input).value = "90000"
        await pilot.click("#size")
        await pilot.press(*"0.001", "enter")
        await settle(pilot, lambda: "daily loss limit reached" in send_error(app), what="the refusal")
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")

        assert app.twaps is not None
        twap = app.twaps.start(TwapSpec("BTC-PERP", "buy", Decimal("0.002"), 2, 3600.0))
        await settle(pilot, lambda: twap.state == "stopped", what="the TWAP stopped")
        assert "daily loss limit reached" in twap.reason

        await pilot.press("3", "c")  # the close reduces risk: it goes
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the close form")
        await pilot.press("enter")
        await settle(pilot, lambda: not state.account.positions, what="the position closed")
    assert not (await trader.open_orders(ALICE.address)).data
    assert [p for p in await trader.positions(ALICE.address) if p.size] == []


async def test_a_position_near_its_liquidation_price_rings_and_is_an_event(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """liquidation_warn_pct 100: a 2 BTC short on ~100,000 USDC of equity (liquidated ~50% above the mark) is
    within it. It appears: one "Liquidation warning" event in the account's log, one notice and the bell."""
    app = dashboard(trader, sim, clock, ALICE, liquidation_warn_pct=Decimal(100))
    notes = Notes()
    rings: list[int] = []
    async with app.run_test(size=(140, 40), message_hook=notes) as pilot:
        app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: account.summary is not None, what="the account")
        book = await trader.orderbook("BTC-PERP", depth=5)
        through = (book.bids[-1].price * Decimal("0.99")).quantize(book.bids[0].price)
        await trader.place_order([order_item(1, "s", through, "2", tif="IOC")])
        await settle(
            pilot, lambda: any(e.title == "Liquidation warning" for e in account.events.recent), what="the event"
        )
        await settle(pilot, lambda: refused(notes, "from its liquidation price"), what="the notice")
        assert rings
        warnings = [e for e in account.events.recent if e.title == "Liquidation warning"]
        assert len(warnings) == 1 and warnings[0].instrument == "BTC-PERP"
        assert "liquidation_warn_pct 100%" in warnings[0].text


@pytest.mark.long
async def test_armed_skips_confirmations_but_not_the_guards_or_the_questions_that_stay(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """confirm_notional 1 USDC (every order would ask). ! arms: the red banner shows; a buy goes with no question
    and the status bar then shows its sign → ack → socket time and the session's median; an order over the
    maximum is still refused; a sell that reverses the position, `x` on its stop-loss and PANIC still ask.
    ! again disarms: the banner goes and an order asks again."""
    await long_with_a_stop(trader)  # long 0.01 with a position stop-loss
    app = dashboard(trader, sim, clock, ALICE, confirm_notional=Decimal(1), max_order_notional=Decimal(5000))
    async with app.run_test(size=(140, 40)) as pilot:
        await feed_ready(app)
        state = app.feed.state
        await settle(pilot, lambda: state.account.positions and state.account.open_orders, what="the account")
        banner = app.main.query_one(ArmedBanner)
        assert not banner.display
        await pilot.press("exclamation_mark")
        await settle(pilot, lambda: banner.display, what="the armed banner")
        assert "ARMED" in str(banner.render())

        await pilot.press("b")  # at the best ask: crosses, fills, no question
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
        await pilot.press(*"0.001", "enter")
        await settle(pilot, lambda: state.account.positions[0].size == Decimal("0.011"), what="the buy, unasked")
        assert not any(isinstance(s, ConfirmScreen) for s in app.screen_stack)
        status = app.main.query_one(StatusBar)
        await settle(pilot, lambda: "median" in str(status.render()), what="the latency readout")
        assert "order " in str(status.render()) and " ms" in str(status.render())

        await pilot.press("b")  # 0.1 BTC is ~10,000: over the maximum, refused though armed
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
        await pilot.press(*"0.1", "enter")
        await settle(pilot, lambda: "max_order_notional 5,000" in send_error(app), what="the refusal")
        await pilot.press("escape")

        await pilot.press("s")  # 0.02 takes the 0.011 long short: asked though armed
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the sell form")
        await pilot.press(*"0.02", "enter")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the reversal question")
        assert any("REVERSES the BTC-PERP position" in str(s.render()) for s in app.screen.query(".reason"))
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="back to the form")
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")

        await pilot.press("4", "x")  # the stop-loss: asked though armed
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the protective cancel question")
        await pilot.press("n")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        await pilot.press("P")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the PANIC question")
        await pilot.press("n")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")

        await pilot.press("exclamation_mark")
        await settle(pilot, lambda: not banner.display, what="the banner gone")
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
        await pilot.press(*"0.001", "enter")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="disarmed: asked again")
        await pilot.press("n")
    assert len((await trader.open_orders(ALICE.address)).data) == 1  # the stop stays
    assert [p.size for p in await trader.positions(ALICE.address) if p.size] == [Decimal("0.011")]


async def test_the_guards_hold_on_a_paper_mirror(clock: FrozenClock) -> None:
    """Paper trading (the built-in exchange mirroring another's prices): an order of ~1,000 USDC over
    max_order_notional 500 is refused there too, and the mirror has no order of it."""
    async with paper(clock) as (_, mirror), client_for(mirror, ALICE_KEY, clock) as client:
        await client.cancel_all()  # the faucet
        app = dashboard(client, mirror, clock, ALICE, max_order_notional=CAP)
        async with app.run_test(size=(140, 40)) as pilot:
            await feed_ready(app)
            state = app.feed.state
            await settle(pilot, lambda: state.status.paper is not None and state.market.book.loaded, what="paper")
            await pilot.press("b")
            await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
            app.screen.query_one("#price", Input).value = "99000"
            await pilot.click("#size")
            await pilot.press(*"0.01", "enter")
            await settle(pilot, lambda: "max_order_notional 500 USDC" in send_error(app), what="the refusal")
        assert (await client.open_orders(ALICE.address)).data == []
