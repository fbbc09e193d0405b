"""ctrl+r on a position reverses it: asked first even armed, one IOC order of twice the size, and what it left said
from the exchange's record; a partial fill says exactly where the position stands."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from textual.command import CommandPalette

from tests.conftest import ALICE_KEY
from tests.ui.conftest import asked, dashboard, feed_ready, noted, palette_search, settle
from tests.ui.test_amend_close import buy_through_the_book
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.fault_plan import FaultPlan
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.help import HelpScreen
from tui.ui.widgets.key_table import KeyTable

ALICE = Signer(ALICE_KEY)


async def held(trader: Client) -> list[D]:
    return [p.size for p in await trader.positions(ALICE.address) if p.size]


def reasons(app: object) -> str:
    return " ".join(str(s.render()) for s in app.screen.query(".reason"))  # type: ignore[attr-defined]


async def test_reverse_asks_even_armed_then_goes_short(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    """Long 0.02 with a reduce-only sell resting far above (its take-profit), armed: ctrl+r on the position asks (it
    REVERSES the position, and that sell cannot protect the short), No sends nothing; asked again and answered y,
    one IOC sell of 0.04 leaves a short of 0.02, the old sell is cancelled, and the notice says both."""
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.02")
    await trader.place_order([order_item(1, "s", "150000", "0.02", reduce_only=True)])
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (160, 48)) as (pilot, notes):
        await settle(pilot, lambda: app.feed.state.account.positions, what="the position")
        await pilot.press("exclamation_mark", "3", "ctrl+r")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question, though armed")
        assert "REVERSES the BTC-PERP position: long 0.02 becomes short 0.02" in reasons(app)
        assert "The long's 1 reduce-only order(s) cannot protect the short" in reasons(app)
        assert "BTC-PERP TP: SELL 0.02 limit 150,000" in reasons(app)
        await pilot.press("n")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        assert await held(trader) == [D("0.02")]
        await asked(pilot, "ctrl+r")
        await pilot.press("y")
        said = "reversed BTC-PERP: long 0.02 → short 0.02; the long's 1 reduce-only order(s) cancelled"
        await settle(pilot, lambda: any(said in n for n in notes.messages), what="the outcome")
    assert await held(trader) == [D("-0.02")]
    assert [o for o in (await trader.open_orders(ALICE.address)).data if o.reduce_only] == []
    [order] = [o for o in (await trader.order_history(ALICE.address)).data if o.cloid.startswith("rv")]
    assert (order.side, order.size, order.tif, order.reduce_only, order.is_market) == (
        "s",
        D("0.04"),
        "IOC",
        False,
        True,
    )


async def test_k_reverses_and_keeps_the_old_sides_orders(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """The same long and its reduce-only sell: k reverses and leaves the sell resting, and the positions pane's title
    then says it cannot protect the short."""
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.02")
    await trader.place_order([order_item(1, "s", "150000", "0.02", reduce_only=True)])
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (160, 48)) as (pilot, notes):
        await settle(pilot, lambda: app.feed.state.account.positions, what="the position")
        await asked(pilot, "3", "ctrl+r")
        await pilot.press("k")
        said = "reversed BTC-PERP: long 0.02 → short 0.02"
        await settle(pilot, lambda: any(said in n for n in notes.messages), what="the outcome")
        title = "1 reduce-only order(s) on BTC-PERP cannot protect the short"
        await settle(pilot, lambda: title in str(app.main.query_one("#positions").border_subtitle), what="the note")
    assert await held(trader) == [D("-0.02")]
    assert len([o for o in (await trader.open_orders(ALICE.address)).data if o.reduce_only]) == 1


async def test_the_palette_and_the_help_list_reverse(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    """ctrl+p, "reverse": the palette's first command is the reverse, and running it from there asks the same
    question; the help lists ctrl+r, and the order form's ctrl+o."""
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.02")
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.account.positions, what="the position")
        await pilot.press("3", "ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await palette_search(pilot, "reverse", "Reverse")
        await asked(pilot, "enter")
        assert "REVERSES the BTC-PERP position" in reasons(app)
        await pilot.press("n", "question_mark")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        rows = {ident: keys for keys, _, ident, _ in app.screen.query_one(KeyTable).rows}
        assert (rows["reverse_position"], rows["form.size_preset"]) == ("^r", "^o")


@pytest.mark.parametrize(
    "sim_config",
    [SimConfig(seed=7, market=True, limits=Limits(), faults=FaultPlan(partial_fill_rate=D(1)))],
    ids=["every-taker-order-fills-half"],
)
async def test_a_reverse_filled_in_part_says_where_the_position_is(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """The exchange fills half of every IOC order: Alice's buy of 0.04 leaves her long 0.02; the reverse (sell 0.04)
    fills 0.02 and leaves her flat, which the notice says exactly, from the record; nothing is sent again."""
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.04")
    assert await held(trader) == [D("0.02")]
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (80, 24)) as (pilot, notes):
        await settle(pilot, lambda: app.feed.state.account.positions, what="the position")
        await asked(pilot, "3", "ctrl+r")
        await pilot.press("y")
        said = (
            "BTC-PERP reversed in part: 0.02 of 0.04 filled within the slippage bound, the rest cancelled (IOC);"
            " the position is now flat"
        )
        await settle(pilot, lambda: any(said in n for n in notes.messages), what="the partial outcome")
    assert await held(trader) == []
    assert len([o for o in (await trader.order_history(ALICE.address)).data if o.cloid.startswith("rv")]) == 1
