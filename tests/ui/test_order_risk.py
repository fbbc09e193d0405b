"""The order form shows the risk of the order as it is typed, against a real local exchange: the leverage in force
(read from the exchange, changed from the form with ctrl+l), the margin mode, the margin the order takes, its fee,
the liquidation price and the available balance after it; a confirmation repeats the liquidation price, and a
refusal goes once the order changes."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

from textual.widgets import Input, Select, Static

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Notes, dashboard, settle
from tests.ui.test_order_form import buy_form
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading.risk_preview import RiskInputs, preview
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.form import FormScreen
from tui.ui.screens.order_form import OrderFormScreen

ALICE = Signer(ALICE_KEY)


def risk_text(form: OrderFormScreen) -> str:
    return str(form.query_one("#risk", Static).render())


async def typed(pilot: Any, form: OrderFormScreen, price: str, size: str) -> None:
    form.query_one("#price", Input).value = price
    form.query_one("#size", Input).value = size
    await pilot.pause()


async def test_the_form_shows_the_risk_of_the_order_as_it_is_typed(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A flat cross account at the exchange's 10x (max 50x), maker rate -0.01% (a rebate), taker 0.05%.
    Buy 0.01 at 90,000 rests (below the ask): margin 900 / 10 = 90, rebate 0.09; the account's equity covers a
    fall to 0. Sell 0.01 at 110,000 rests too: margin 110, rebate 0.11, and with ``B`` the margin balance the short
    is liquidated at p with B + 0.11 + 0.01 * (110,000 - p) = 1% of 0.01 * p: p = (B + 1,100.11) / 0.0101.
    A market buy of 0.01 pays the taker rate on its value at the best ask."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await buy_form(pilot)
        await settle(pilot, lambda: "leverage 10x (ctrl+l: change)" in risk_text(form), what="the leverage read")
        assert "cross (switch: not in the interface)" in risk_text(form)
        summary = app.feed.state.account.summary
        assert summary is not None and not app.feed.state.account.positions
        avail, balance = summary.available_balance, summary.margin_balance

        await typed(pilot, form, "90000", "0.01")
        after = avail - 90 + D("0.09")
        assert risk_text(form).split("\n") == [
            "margin 90.00 · rebate 0.09 (maker)",
            f"liq after none (equity covers a fall to 0) · avail after {after:,.2f}",
            "leverage 10x (ctrl+l: change) · cross (switch: not in the interface)",
        ]

        await pilot.press("ctrl+t")  # sell
        await typed(pilot, form, "110000", "0.01")
        liq = (balance + D("1100.11")) / D("0.0101")
        assert risk_text(form).split("\n")[:2] == [
            "margin 110.00 · rebate 0.11 (maker)",
            f"liq after ≈ {liq:,.1f} · avail after {avail - 110 + D('0.11'):,.2f}",
        ]

        await pilot.press("ctrl+t")  # buy, at market
        form.query_one("#kind", Select).value = "market"
        await typed(pilot, form, "", "0.01")
        ask = app.feed.state.market.book.best_ask
        assert ask is not None
        fee = ask * D("0.01") * D("0.0005")
        assert f"· fee {fee:,.2f} (taker)" in risk_text(form)


async def test_ctrl_l_changes_the_leverage_in_force_and_the_figures_follow(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """ctrl+l on the form asks for a leverage, confirms (default No), sends ``updatePerpInstrumentLeverage``; the
    form reads the setting again: 5x, and the margin of 0.01 at 90,000 is 900 / 5 = 180. The funds check follows
    the leverage in force too: at 1x, 0.01 at 90,000 needs 900 of margin."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await buy_form(pilot)
        await settle(pilot, lambda: "leverage 10x" in risk_text(form), what="the leverage read")
        await typed(pilot, form, "90000", "0.01")
        assert risk_text(form).startswith("margin 90.00 ")

        await pilot.press("ctrl+l")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the leverage form")
        hint = " ".join(str(s.render()) for s in app.screen.query(".hint"))
        assert "Enter: review" in hint
        await pilot.press("5", "enter")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
        text = " ".join(str(s.render()) for s in app.screen.query(Static))
        assert "10x -> 5x" in text
        await pilot.press("y")
        await settle(pilot, lambda: app.screen is form, what="back to the order form")
        await settle(pilot, lambda: "leverage 5x" in risk_text(form), what="the new leverage read")
        assert risk_text(form).startswith("margin 180.00 ")
        assert (await trader.instrument_leverage(ALICE.address, "BTC-PERP")).leverage == 5
        assert form.shown_errors == {}


async def test_a_confirmation_repeats_the_liquidation_price_and_a_refusal_goes_when_the_order_changes(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A limit price 3% through the best ask asks first: the question repeats the liquidation price after it.
    Then a price outside the exchange's band is refused and shown; changing the size takes the refusal away (it
    was of the order as it was)."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40), message_hook=Notes()) as pilot:
        form = await buy_form(pilot)
        await settle(pilot, lambda: "leverage 10x" in risk_text(form), what="the leverage read")
        ask = app.feed.state.market.book.best_ask
        assert ask is not None
        await typed(pilot, form, f"{ask * 103 / 100:.1f}", "0.01")
        form.query_one("#size", Input).focus()
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
        text = " ".join(str(s.render()) for s in app.screen.query(Static))
        assert "liquidation price after: none (equity covers a fall to 0)" in text
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is form, what="back to the form")

        await typed(pilot, form, "30000", "0.01")
        await pilot.press("enter")
        refusal = form.query_one("#err-send", Static)
        await settle(pilot, lambda: refusal.display, what="the refusal on the form")
        assert "Refused by the exchange" in str(refusal.render())
        form.query_one("#size", Input).value = "0.02"
        await pilot.pause()
        assert not refusal.display and str(refusal.render()) == ""


async def test_isolated_the_estimate_is_the_exchanges_liquidation_price_once_filled(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """HYPE-PERP is isolated only (10x, first tier 5%): the form says "isolated (switch: not in the interface)" and
    a buy of 20 at price P takes 20 * P / 10 of margin. Sent through the book, it fills at an average E; the
    exchange's own liquidation price of the position is then the estimate for 20 at E: with the margin 2 * E and
    the cost 20 * E, p = (20 E - 2 E) / (20 * 0.95) = 18 E / 19."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await buy_form(pilot)
        await pilot.press("escape")
        await app.feed.select("HYPE-PERP")
        book = lambda: app.feed.state.market.book  # noqa: E731
        await settle(pilot, lambda: book().symbol == "HYPE-PERP" and book().loaded, what="the HYPE book")
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
        form = app.screen
        assert isinstance(form, OrderFormScreen)
        await settle(pilot, lambda: "isolated (switch: not in the interface)" in risk_text(form), what="the mode")
        assert "leverage 10x" in risk_text(form)
        ask = book().best_ask
        assert ask is not None
        price = (ask * D("1.01")).quantize(D("0.001"))
        await typed(pilot, form, str(price), "20")
        assert risk_text(form).startswith(f"margin {price * 2:,.2f} · fee ")
        form.query_one("#size", Input).focus()
        await pilot.press("enter")
        account = app.feed.state.account
        await settle(pilot, lambda: app.screen is app.main, what="the order sent")
        leg = lambda: account.summary.perp_positions.get("HYPE-PERP") if account.summary else None  # noqa: E731
        await settle(pilot, lambda: (p := leg()) is not None and p.liquidation_price > 0, what="the position")
    [position] = [p for p in await trader.positions(ALICE.address) if p.instrument == "HYPE-PERP"]
    exchange = (await trader.account_summary(ALICE.address)).perp_positions["HYPE-PERP"].liquidation_price
    assert position.size == 20 and abs(exchange - position.entry_price * 18 / 19) < D("0.001")
    tiers = app.feed.state.market.instruments["HYPE-PERP"].margin_tiers
    ours = preview(RiskInputs(leverage=D(10), isolated=True, tiers=tiers), D(20), position.entry_price, maker=False)
    assert ours.liquidation is not None and abs(ours.liquidation - exchange) < D("0.001")
