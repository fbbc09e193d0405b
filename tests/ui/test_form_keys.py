"""One key per decision, the same in every form, each budget proved by counting the keys pressed: a market buy of a
typed size is ``b``, the size, ctrl+n, Enter; market <-> limit is one key (ctrl+n), ctrl+y steps through every
type; ctrl+b / ctrl+a / ctrl+g put the best bid / ask / mid in the price; Enter sends from a choice or a box; each
form opens on its first number, a pre-filled number is selected so typing replaces it; ctrl+t flips the side of
the bracket, scale, TWAP and chase forms as it does in the order form."""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR
from decimal import Decimal as D
from typing import Any

import pytest
from textual.widgets import Checkbox, Input, Select

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tests.ui.test_order_form import buy_form
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.form import FormScreen
from tui.ui.screens.form_controls import SideToggle
from tui.ui.screens.order_form import OrderFormScreen

ALICE = Signer(ALICE_KEY)
KEY_OF = {".": "full_stop"}


def typed(text: str) -> list[str]:
    return [KEY_OF.get(c, c) for c in text]


async def test_a_market_buy_is_b_the_size_the_type_key_and_enter(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """On the dashboard: ``b``, ``0.01``, ctrl+n, Enter, pressed in one go: the exchange has a market BUY of 0.01
    (filled: a position of 0.01, nothing resting)."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        state = app.feed.state
        await settle(pilot, lambda: state.account.summary is not None and state.market.book.loaded, what="the book")
        keys = ["b", *typed("0.01"), "ctrl+n", "enter"]
        assert len(keys) == 3 + len("0.01")  # four decisions: b, the size, the type, Enter
        await pilot.press(*keys)
        await settle(pilot, lambda: app.screen is app.main, what="the form sent and closed")
        history: list[Any] = []

        async def placed() -> bool:
            history[:] = (await trader.order_history(ALICE.address)).data
            return bool(history)

        for _ in range(100):
            if await placed():
                break
            await pilot.pause(0.05)
        [order] = history
        assert order.is_market and order.side in ("b", "buy") and order.size == D("0.01")
        assert (await trader.open_orders(ALICE.address)).data == []


async def test_market_and_limit_are_one_key_apart_from_any_field(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """ctrl+n: limit -> market -> limit, one key each way, whatever has the focus (size, price, the Type choice, the
    TIF choice, a box); ctrl+y steps limit, market, stop, take-profit, stop-loss and back to limit."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await buy_form(pilot)
        kind = form.query_one("#kind", Select)
        for where in ("size", "price", "kind", "tif", "post_only"):
            form.query_one(f"#{where}").focus()
            await pilot.pause()
            assert kind.value == "limit"
            await pilot.press("ctrl+n")
            assert kind.value == "market", where
            assert form.query_one("#price", Input).disabled
            await pilot.press("ctrl+n")
            assert kind.value == "limit", where
        form.query_one("#size", Input).focus()
        seen = []
        for _ in range(5):
            await pilot.press("ctrl+y")
            seen.append(kind.value)
        assert seen == ["market", "stop", "take_profit", "stop_loss", "limit"]
        assert not kind.expanded
        assert form.query_one("#size", Input).value == ""  # nothing typed into the field with the focus


async def test_the_bid_the_ask_and_the_mid_go_into_the_price_in_one_key(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """From the size field: ctrl+b puts the book's best bid in the price, ctrl+a the best ask (not the field's
    Home), ctrl+g the mid on the tick (down for a buy, up for a sell). On a market order the key makes it a limit."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await buy_form(pilot)
        book = app.feed.state.market.book
        await settle(pilot, lambda: book.best_bid is not None and book.best_ask is not None, what="the book")
        price = form.query_one("#price", Input)
        await pilot.press(*typed("0.01"))
        for key, side in (("ctrl+b", book.best_bid), ("ctrl+a", book.best_ask)):
            await pilot.press(key)
            assert D(price.value) == side, key
        assert form.query_one("#size", Input).value == "0.01"  # the focus stayed, its text untouched
        bid, ask = book.best_bid, book.best_ask
        assert bid is not None and ask is not None
        await pilot.press("ctrl+g")
        assert D(price.value) == ((bid + ask) / 2 / D("0.1")).to_integral_value(ROUND_FLOOR) * D("0.1")
        await pilot.press("ctrl+t", "ctrl+g")  # a sell's mid rounds up
        assert D(price.value) == ((bid + ask) / 2 / D("0.1")).to_integral_value(ROUND_CEILING) * D("0.1")
        await pilot.press("ctrl+n")
        assert form.query_one("#kind", Select).value == "market"
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert form.query_one("#kind", Select).value == "limit" and D(price.value) == bid
        assert not price.disabled


@pytest.mark.parametrize("where", ["kind", "tif", "post_only"])
async def test_enter_on_a_choice_or_a_box_sends_the_order(
    sim: LocalExchange, clock: FrozenClock, trader: Client, where: str
) -> None:
    """Size 0.01, the focus on the Type choice (or TIF, or post-only), Enter: the limit order is on the exchange;
    the list never opened, the box never ticked. Space opens the list (or ticks the box)."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await buy_form(pilot)
        await pilot.press(*typed("0.01"))
        field = form.query_one(f"#{where}")
        field.focus()
        await pilot.pause()
        await pilot.press("space")
        if isinstance(field, Select):
            assert field.expanded
            await pilot.press("escape")
            assert field.expanded is False and isinstance(app.screen, OrderFormScreen)
        else:
            assert isinstance(field, Checkbox) and field.value
            await pilot.press("space")
            assert not field.value
        await pilot.press("enter")
        await settle(pilot, lambda: app.screen is app.main, what="the order sent")
        orders = (await trader.order_history(ALICE.address)).data
        assert [(o.size, o.is_market) for o in orders] == [(D("0.01"), False)]


async def open_dialog(pilot: Any, *keys: str) -> FormScreen[Any]:
    app = pilot.app
    for key in keys:
        await pilot.press(key)
    await settle(pilot, lambda: isinstance(app.screen, FormScreen), what=f"the form of {keys}")
    form = app.screen
    assert isinstance(form, FormScreen)
    await settle(pilot, lambda: form.focused is not None, what="its focus")
    return form


async def test_every_order_form_opens_on_its_first_number_and_a_prefilled_one_is_replaced_by_typing(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """The order form (b), the bracket (o), the scale (S), the TWAP (V n) and the chase (O n) open with the focus on
    the size; the side, where there is one, is a toggle (ctrl+t) and never takes the focus. A pre-filled number
    reached with Tab (the bracket's entry price, the TWAP's slices) is selected: one digit typed replaces it."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(140, 40)) as pilot:
        form = await buy_form(pilot)
        assert app.focused is form.query_one("#size", Input)
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        await settle(pilot, lambda: app.feed.state.market.book.loaded, what="the book")
        for keys, back, replaced in (("o", "shift+tab", "price"), ("S", None, None), ("Vn", "tab", "slices"),
                                     ("On", None, None)):  # fmt: skip
            dialog = await open_dialog(pilot, *keys)
            size = dialog.query_one("#field-size", Input)
            assert app.focused is size, keys
            toggle = dialog.query_one("#field-side", SideToggle)
            assert not toggle.can_focus and toggle.value == "buy"
            await pilot.press("ctrl+t")
            assert dialog.values()["side"] == "sell" and "SELL" in str(toggle.render()), keys
            await pilot.press("ctrl+t")
            assert dialog.values()["side"] == "buy"
            assert app.focused is size and size.value == "", keys  # the side key typed nothing
            if back is not None and replaced is not None:
                await pilot.press(back)
                field = dialog.query_one(f"#field-{replaced}", Input)
                assert app.focused is field and field.value
                assert field.selected_text == field.value, keys  # shown selected
                await pilot.press("7")
                assert field.value == "7", keys
            await pilot.press("escape")
            await settle(pilot, lambda: not isinstance(app.screen, FormScreen), what="the dialog closed")
            if keys[0] in "VO":
                await pilot.press("escape")
                await settle(pilot, lambda: app.screen is app.main, what="the dashboard")


async def test_a_sell_bracket_from_the_toggle(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    """The bracket: ctrl+t, a size, a stop-loss above, Enter: the review asks about a SELL entry (the side is what
    the toggle shows)."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(140, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.market.book.loaded, what="the book")
        form = await open_dialog(pilot, "o")
        await pilot.press("ctrl+t", *typed("0.01"))
        form.query_one("#field-sl", Input).value = str(int(form.values()["price"].split(".")[0]) + 1000)
        await pilot.press("enter")
        await settle(pilot, lambda: not isinstance(app.screen, FormScreen), what="the review")
        shown = " ".join(str(w.render()) for w in app.screen.query("Static"))
        assert "SELL 0.01 BTC-PERP" in shown
