"""The order form's size presets and size from risk, pressed as a trader would against the local exchange."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

from textual.widgets import Checkbox, Input, Static

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tests.ui.test_amend_close import buy_through_the_book
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading.sizing import loss_at
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.order_form import OrderFormScreen

ALICE = Signer(ALICE_KEY)


async def open_form(pilot: Any, key: str) -> OrderFormScreen:
    app = pilot.app
    await feed_ready(app)
    await settle(pilot, lambda: app.feed.state.account.summary is not None, what="the account")
    await pilot.press(key)
    await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
    form = app.screen
    assert isinstance(form, OrderFormScreen)
    await settle(pilot, lambda: "leverage 10x" in text(form, "#risk"), what="the leverage in force")
    return form


def text(form: OrderFormScreen, selector: str) -> str:
    return str(form.query_one(selector, Static).render())


async def test_presets_of_the_position_and_of_buying_power(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Long 0.02: in the sell form ctrl+o writes 25% of it (0.005) and says so, again 50%, 75%, 100% (0.02, all of
    it); the 50% button writes 0.01. Turned to a buy, 100% is of the buying power: a size the form accepts, whose
    margin and taker fee take (nearly) all that is available."""
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.02")
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, lambda: app.feed.state.account.positions, what="the position")
        form = await open_form(pilot, "s")
        size = form.query_one("#size", Input)
        for want in ("0.005", "0.01", "0.015", "0.02"):
            await pilot.press("ctrl+o")
            await settle(pilot, lambda want=want: size.value == want, what=f"preset {want}")
        await settle(pilot, lambda: "size 0.02 = 100% of the long 0.02" in text(form, "#summary"), what="the words")
        await pilot.click("#preset-50")
        await settle(pilot, lambda: size.value == "0.01", what="the 50% button")
        await pilot.press("ctrl+t")  # a buy: it adds to the long, so it is of the buying power
        await settle(pilot, lambda: str(form.query_one("#side").value) == "buy", what="buy")  # type: ignore[attr-defined]
        await pilot.click("#preset-100")
        await settle(pilot, lambda: "100% of buying power" in text(form, "#summary"), what="of buying power")
        full = D(size.value)
        form.submit()
        await pilot.pause()
        assert "size" not in form.shown_errors, form.shown_errors
        if isinstance(app.screen, ConfirmScreen):  # a large order asks first: not sent
            await pilot.press("n")
        ctx, inputs = app.main.desk.context("BTC-PERP"), form.sizing.risk()
        assert ctx is not None and ctx.leverage == 10 and ctx.best_ask and inputs and inputs.taker_rate
        taken = [s * ctx.best_ask / 10 + s * ctx.best_ask * inputs.taker_rate for s in (full,)]
        # the account moves with the mark (the long's uPnL): 100% takes all but a sliver of what is available now
        assert abs(taken[0] - ctx.available) < ctx.available / 200
    assert [p.size for p in await trader.positions(ALICE.address) if p.size] == [D("0.02")]  # nothing sent


async def test_size_from_risk_with_its_stop_as_a_bracket(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A buy limit 1,000 under the bid, risk 0.5% of equity, stop 1,000 under the entry: the size is the one whose
    loss at the stop (fees included) is within 0.5% of equity and one more lot is not; the form says the loss; a
    stop on the wrong side is refused under its field; with "place stop" ticked the order goes with its stop, in
    one placeOrder, the stop reduce-only and grouped with the entry."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(pilot, "b")
        bid = app.feed.state.market.book.best_bid
        assert bid is not None
        entry = bid - 1000
        form.query_one("#price", Input).value = str(entry)
        form.query_one("#risk_pct", Input).value = "0.5"
        form.query_one("#stop", Input).value = str(entry + 10)
        await settle(pilot, lambda: "a buy's stop goes below its entry" in text(form, "#err-stop"), what="wrong side")
        form.query_one("#stop", Input).value = str(entry - 1000)
        await settle(pilot, lambda: "loss at stop" in text(form, "#summary"), what="the loss line")
        size = form.query_one("#size", Input)
        assert size.disabled  # the risk decides the size while it is filled
        inputs = form.sizing.risk()
        assert inputs is not None and inputs.margin_balance and inputs.taker_rate is not None
        budget = inputs.margin_balance * D("0.005")
        sized = D(size.value)
        stop = entry - 1000
        assert loss_at("buy", sized, entry, stop, inputs.taker_rate) <= budget
        assert loss_at("buy", sized + D("0.0001"), entry, stop, inputs.taker_rate) > budget
        assert f"risk {budget:,.2f} USDC → size {sized} · stop not placed" in text(form, "#summary")
        assert f"loss at stop {loss_at('buy', sized, entry, stop, inputs.taker_rate):,.2f} with fees" in text(
            form, "#summary"
        )
        form.query_one("#with_stop", Checkbox).value = True
        await pilot.pause()
        form.submit()
        if isinstance(app.screen, ConfirmScreen):
            await pilot.press("y")
        await settle(pilot, lambda: len(app.feed.state.account.open_orders) == 2, what="the order and its stop")
    orders = sorted((await trader.open_orders(ALICE.address)).data, key=lambda o: o.tpsl)
    assert [(o.tpsl, o.side, o.size, o.reduce_only, o.grouping) for o in orders] == [
        ("", "b", sized, False, ""),
        ("sl", "s", sized, True, "normal"),
    ]
    assert orders[0].limit_price == entry and orders[1].trigger_px == stop
