"""Changing and closing the way traders do: amend an open order (cancel and replace, reported as one step,
nothing placed when the cancel fails), close part of a position or at a limit price, cancel every order
on every instrument as its own confirmed action; scale orders placed as one and cancelled as a group."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.widgets import DataTable, Input, Static

from tests.conftest import ALICE_KEY
from tests.ui.conftest import asked, dashboard, feed_ready, noted, settle
from tui.api.client import Client
from tui.api.models import Order
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.form import FormScreen

ALICE = Signer(ALICE_KEY)


async def buy_through_the_book(trader: Client, instrument: int, symbol: str, size: str) -> None:
    book = await trader.orderbook(symbol, depth=5)
    through = (book.asks[-1].price * Decimal("1.01")).quantize(book.asks[0].price)
    await trader.place_order([order_item(instrument, "b", through, size, tif="IOC")])


def form_error(app: object) -> str:
    """The open form's error line, as the trader reads it ("" while no form is shown)."""
    screen = app.screen  # type: ignore[attr-defined]
    return str(screen.query_one("#form-error", Static).render()) if isinstance(screen, FormScreen) else ""


def field(app: object, name: str) -> Input:
    return app.screen.query_one(f"#field-{name}", Input)  # type: ignore[attr-defined]


async def amend_form(pilot: Any) -> Order:
    """Once the dashboard shows the account's one open order, ``e`` on the orders pane: the amend form is up; the
    order it amends."""
    account = pilot.app.feed.state.account
    await settle(pilot, lambda: len(account.open_orders) == 1, what="the order")
    [order] = account.open_orders
    await pilot.press("4", "e")
    await settle(pilot, lambda: isinstance(pilot.app.screen, FormScreen), what="the amend form")
    return order


async def test_amend_changes_price_and_size_in_one_step(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    await trader.place_order([order_item(1, "b", "90000", "0.01", cloid="mine-1")])
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (120, 40)) as (pilot, notes):
        account = app.feed.state.account
        old = await amend_form(pilot)
        assert (field(app, "price").value, field(app, "size").value) == ("90000", "0.01")  # the order as it is
        assert not app.screen.query("#field-trigger")  # a plain limit order has no trigger to change
        field(app, "price").value = "90500"
        field(app, "size").value = "0.02"
        await pilot.press("enter")
        await settle(pilot, lambda: any(m.startswith("amended") for m in notes.messages), what="the amend")
        await settle(pilot, lambda: [o.order_id for o in account.open_orders] != [old.order_id], what="the new order")
    [new] = (await trader.open_orders(ALICE.address)).data
    assert (new.limit_price, new.size, new.side, new.cloid) == (Decimal(90500), Decimal("0.02"), "b", "mine-1")
    [report] = [m for m in notes.messages if m.startswith("amended")]
    assert report.startswith(f"amended oid {old.order_id} → oid {new.order_id}\nBUY 0.02 BTC-PERP @ 90,500 (limit GTC)")
    assert not [m for m in notes.messages if "exchange cancelled" in m.lower()]  # the trader's own cancel


async def test_amend_sends_nothing_when_the_form_is_wrong_or_cancelled(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await trader.place_order([order_item(1, "b", "90000", "0.01")])
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await amend_form(pilot)
        for price, said in (("90000.05", "tick size"), ("", "price")):
            field(app, "price").value = price
            await settle(pilot, lambda: form_error(app) == "", what="the last error cleared by the change")
            await pilot.press("enter")
            await settle(pilot, lambda said=said: said in form_error(app), what=said)
            assert isinstance(app.screen, FormScreen), price  # still open: nothing sent
            error = form_error(app)
            assert error.startswith("Price: ") and said in error, (price, error)
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
    [order] = (await trader.open_orders(ALICE.address)).data
    assert (order.limit_price, order.size) == (Decimal(90000), Decimal("0.01"))  # untouched


async def test_amend_places_nothing_when_the_cancel_fails(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await trader.place_order([order_item(1, "b", "90000", "0.01")])
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (120, 40)) as (pilot, notes):
        old = await amend_form(pilot)
        await trader.cancel_by_oid([(old.order_id, 1)])  # gone (filled, cancelled elsewhere) while the form is open
        field(app, "price").value = "90500"
        await pilot.press("enter")
        await settle(pilot, lambda: any("nothing was placed" in m for m in notes.messages), what="the refusal")
    assert (await trader.open_orders(ALICE.address)).data == []  # no replacement without the cancel
    [said] = [m for m in notes.messages if "nothing was placed" in m]
    assert said.startswith(f"Amend: rejected: could not cancel oid {old.order_id} (")


async def test_amend_a_stop_changes_its_trigger(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.01")
    book = await trader.orderbook("BTC-PERP", depth=1)
    stop = (book.bids[0].price * Decimal("0.9")).quantize(book.bids[0].price)
    stop_item = order_item(1, "s", "0", "0.01", tif="IOC", trigger_px=stop, is_market=True, tpsl="sl")
    await trader.place_order([{**stop_item, "r": True}])
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await amend_form(pilot)
        assert field(app, "price").value == ""  # a market stop: empty price means market when triggered
        assert Decimal(field(app, "trigger").value) == stop
        lower = stop - 1000
        field(app, "trigger").value = str(lower)
        await pilot.press("enter")
        await settle(
            pilot, lambda: [o.trigger_px for o in account.open_orders] == [lower], what="the stop's new trigger"
        )
    [order] = (await trader.open_orders(ALICE.address)).data
    assert (order.trigger_px, order.tpsl, order.reduce_only, order.size) == (lower, "sl", True, Decimal("0.01"))


async def test_close_half_at_market_then_the_rest_at_a_limit(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.02")
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        state = app.feed.state
        await settle(pilot, lambda: state.account.positions, what="the position")
        await pilot.press("3", "c")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the close form")
        assert app.screen.focused is field(app, "size")  # typed over: the whole text is selected
        await pilot.press(*"0.03", "enter")
        assert field(app, "size").value == "0.03"
        for size, said in (("0.03", "more than the 0.02 held"), ("150%", "at most 100"), ("-1", "size")):
            if field(app, "size").value != size:  # a change clears the last error (the same text is no change)
                field(app, "size").value = size
                await settle(pilot, lambda: form_error(app) == "", what="the last error cleared by the change")
            await pilot.press("enter")
            await settle(pilot, lambda said=said: said in form_error(app), what=said)
            assert isinstance(app.screen, FormScreen), size
        field(app, "size").value = "50%"
        await pilot.press("enter")
        await settle(pilot, lambda: [p.size for p in state.account.positions] == [Decimal("0.01")], what="half closed")

        ask = state.market.book.best_ask
        assert ask is not None
        limit = ask + 500  # above the market: it rests as a reduce-only sell
        await pilot.press("c")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the close form")
        assert field(app, "size").value == "0.01"
        field(app, "price").value = str(limit)
        await pilot.press("enter")
        await settle(pilot, lambda: state.account.open_orders, what="the resting close")
    [order] = (await trader.open_orders(ALICE.address)).data
    assert (order.side, order.limit_price, order.size, order.reduce_only) == ("s", limit, Decimal("0.01"), True)
    assert [p.size for p in await trader.positions(ALICE.address) if p.size] == [Decimal("0.01")]


async def test_cancel_every_order_asks_first_and_leaves_positions(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.01")
    await trader.place_order([order_item(1, "b", "90000", "0.01")])
    await trader.place_order([order_item(2, "b", "3000", "0.1")])
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (120, 40)) as (pilot, notes):
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 2, what="two orders")
        shown = await asked(pilot, "C")
        assert "2 open order(s) on 2 instrument(s)" in shown and "ETH-PERP: 1" in shown
        await pilot.press("enter")  # No has the focus
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        assert len((await trader.open_orders(ALICE.address)).data) == 2
        await asked(pilot, "C")
        await pilot.press("y")
        await settle(pilot, lambda: not account.open_orders, what="every order cancelled")
    assert (await trader.open_orders(ALICE.address)).data == []
    assert [p.size for p in await trader.positions(ALICE.address) if p.size] == [Decimal("0.01")]
    assert any(m.startswith("cancelled every open order, on every instrument") for m in notes.messages)


async def test_cancel_every_order_names_the_protection_and_k_keeps_it(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Long 0.01 with a stop-loss (reduce-only stop sell at 90,000), a take-profit (reduce-only limit sell at 120,000)
    and a plain bid: C names the two protective orders; k cancels only the bid, and the position keeps its TP/SL."""
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.01")
    await trader.place_order([order_item(1, "s", "0", "0.01", tif="IOC", reduce_only=True, trigger_px="90000",
                                         is_market=True, tpsl="sl", grouping="position")])  # fmt: skip
    await trader.place_order([order_item(1, "s", "120000", "0.01", reduce_only=True)])
    await trader.place_order([order_item(1, "b", "80000", "0.01")])
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (120, 40)) as (pilot, notes):
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 3, what="three orders")
        shown = await asked(pilot, "C")
        assert "2 of them protect a position" in shown
        assert "BTC-PERP SL: SELL 0.01 stop 90,000" in shown and "BTC-PERP TP: SELL 0.01 limit 120,000" in shown
        await pilot.press("k")
        await settle(pilot, lambda: len(account.open_orders) == 2, what="the bid cancelled")
        said = "cancelled 1 order(s); the 2 that protect a position stay"
        await settle(pilot, lambda: any(said in m for m in notes.messages), what="the outcome")
    left = (await trader.open_orders(ALICE.address)).data
    assert sorted(o.reduce_only for o in left) == [True, True]


async def test_a_scale_order_previewed_placed_and_cancelled_as_a_group(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await trader.place_order([order_item(1, "b", "80000", "0.01", cloid="mine")])  # not of the group
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (140, 40)) as (pilot, notes):
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 1, what="the order")
        await pilot.press("S")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the scale form")
        for name, value in (("low", "90000"), ("high", "94000"), ("count", "5"), ("weight", "flat")):
            field(app, name).value = value
        await pilot.press(*"0.05", "enter")  # the size has the focus
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the preview")
        shown = [str(s.render()) for s in app.screen.query(".reason")]
        assert shown[:5] == [f"BUY 0.01 @ {p}" for p in ("90,000", "91,000", "92,000", "93,000", "94,000")]
        assert shown[5].startswith("total 0.05 BTC-PERP · 4,600.00 USDC · average 92,000.0")  # at the tick (0.1)
        await pilot.press("y")
        await settle(pilot, lambda: len(account.open_orders) == 6, what="five more orders")
        assert any(m.startswith("5 orders placed (group sc") for m in notes.messages)
        app.main.query_one("#orders-table").focus()
        table = app.main.query_one("#orders-table", DataTable)
        scale_row = next(i for i, o in enumerate(account.open_orders) if o.cloid.startswith("sc"))
        table.move_cursor(row=scale_row)
        await pilot.press("K")
        await settle(pilot, lambda: [o.cloid for o in account.open_orders] == ["mine"], what="the group cancelled")
    assert [o.cloid for o in (await trader.open_orders(ALICE.address)).data] == ["mine"]


async def test_a_bracket_and_a_positions_stop_from_the_keyboard(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (140, 40)) as (pilot, _notes):
        state = app.feed.state
        await settle(pilot, lambda: state.market.book.loaded and state.account.summary is not None, what="ready")
        bid = state.market.book.best_bid
        assert bid is not None
        entry = bid - 1000
        await pilot.press("o")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the bracket form")
        field(app, "price").value = str(entry)
        field(app, "size").value = "0.01"
        for tp, sl, said in (("", "", "a take-profit or a stop-loss"), (str(entry - 500), "", "goes above")):
            field(app, "tp").value, field(app, "sl").value = tp, sl
            await settle(pilot, lambda: form_error(app) == "", what="the last error cleared by the change")
            await pilot.press("enter")
            await settle(pilot, lambda said=said: said in form_error(app), what=said)
            assert isinstance(app.screen, FormScreen)
        field(app, "tp").value, field(app, "sl").value = str(entry + 2000), str(entry - 1000)
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the preview")
        await pilot.press("y")
        await settle(pilot, lambda: len(state.account.open_orders) == 3, what="the bracket")
        assert sorted(o.tpsl for o in state.account.open_orders) == ["", "sl", "tp"]
        assert all(o.reduce_only for o in state.account.open_orders if o.tpsl)

        book = await trader.orderbook("BTC-PERP", depth=5)
        through = (book.asks[-1].price * Decimal("1.01")).quantize(book.asks[0].price)
        await trader.place_order([order_item(1, "b", through, "0.01", tif="IOC")])  # a position of its own
        await settle(pilot, lambda: state.account.positions, what="the position")
        await pilot.press("3", "a")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the TP/SL form")
        field(app, "sl").value = str(bid - 5000)
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the preview")
        await pilot.press("y")
        await settle(pilot, lambda: len(state.account.open_orders) == 4, what="the position's stop")
    orders = (await trader.open_orders(ALICE.address)).data
    assert sorted((o.tpsl, o.grouping) for o in orders) == [
        ("", ""),
        ("sl", "normal"),
        ("sl", "position"),
        ("tp", "normal"),
    ]
