"""The account screen: the summary in full, info, fees, and leverage changed from a checked, confirmed form."""

from __future__ import annotations

from decimal import Decimal

from textual.widgets import Input, Label, TabbedContent

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard
from tests.ui.screen_steps import cells, confirm, error_of, fill_form, result_of, show, tx_of, until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.account import AccountScreen
from tui.ui.screens.form import FormScreen
from tui.ui.widgets.record_table import Facts, RecordTable

ALICE = Signer(ALICE_KEY)


async def test_account_screen_shows_the_summary_and_changes_leverage(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    book = await trader.orderbook("BTC-PERP", depth=1)
    await trader.place_order([order_item(1, "b", book.asks[0].price, "0.01", tif="IOC")])
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(140, 44), message_hook=seen) as pilot:
        screen = await show(pilot, seen, "A", AccountScreen)
        collateral = cells(screen.query_one("#collateral", RecordTable))
        assert collateral[0][:2] == ["USDC", "derivatives"]
        assert ["BTC", "spot", "0.1", "0.1"] in collateral
        [leg] = cells(screen.query_one("#legs", RecordTable))
        assert leg[:5] == ["BTC-PERP", "oneWay", "BOTH", "0.01", f"{book.asks[0].price:,.1f}"]  # the entry at the tick
        assert leg[5] == "cross 10x"
        margin = screen.query_one("#margin", Facts).text
        assert "Maintenance margin" in margin and "Transfer margin req." in margin
        assert ALICE.address in str(screen.query_one("#account-address", Label).render())  # whole
        await pilot.press("y")
        assert app.clipboard == ALICE.address  # written to the terminal as OSC 52 too
        await pilot.press("2")
        assert screen.query_one(TabbedContent).active == "info"
        assert ALICE.address in screen.query_one("#account-info", Facts).text
        await pilot.press("4")
        assert "-0.0100% / +0.0500%" in screen.query_one("#fees", Facts).text  # perp maker / taker
        lev = screen.query_one("#leverage-table", RecordTable)
        assert cells(lev)[0][:4] == ["BTC-PERP", "cross", "10x", "50x"]

        # l: a form for the selected instrument, checked against its max leverage, then confirmed
        form = await fill_form(pilot, "l", {"leverage": "60"})
        await pilot.press("enter")
        assert "from 1 to 50" in error_of(form)
        form.query_one("#field-leverage", Input).value = "20"
        lines = await confirm(pilot)
        assert any("10x -> 20x" in line for line in lines)
        await until(pilot, lambda: "BTC-PERP set to 20x" in result_of(screen), "the result")
        assert (await trader.transaction(tx_of(result_of(screen)))).success  # the full hash, the exchange's own
        assert (await trader.instrument_leverage(ALICE.address, "BTC-PERP")).leverage == Decimal(20)
        await until(pilot, lambda: cells(lev)[0][2] == "20x", "the new leverage shown")
        theme = app.theme
        await pilot.press("3", "T")  # the chart is redrawn in the next theme's colours
        assert app.theme != theme and screen.query_one(TabbedContent).active == "chart"
        await pilot.press("escape")
        assert app.screen is app.main


async def test_down_then_l_sets_the_leverage_of_the_selected_row_without_tab(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(140, 44), message_hook=seen) as pilot:
        screen = await show(pilot, seen, "A", AccountScreen)
        await pilot.press("4")  # the leverage tab: its table takes the focus, so Down moves its selection
        lev = screen.query_one("#leverage-table", RecordTable)
        await until(pilot, lambda: len(cells(lev)) > 1 and app.focused is lev, "the leverage table, focused")
        second = cells(lev)[1][0]
        assert second != "BTC-PERP"
        await pilot.press("down", "l")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the leverage form")
        assert str(app.screen.query_one(".title", Label).render()) == f"Leverage on {second}"


async def test_with_no_account_the_data_screens_name_the_flag_that_gives_one(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Started with no key and no account: the account, wallet, history and referrals screens say how to give one,
    with the flag the command line has (--address; they named an --account that does not exist)."""
    from tui.cli.main import build_parser

    assert "--address" in build_parser().format_help() and "--account " not in build_parser().format_help()
    app = dashboard(trader, sim, clock, None)
    async with app.run_test(size=(140, 44)) as pilot:
        for key, where in (("A", "#margin"), ("W", "#wallet-facts"), ("H", "#page-line"), ("R", "#referral-facts")):
            await pilot.press(key)
            await until(pilot, lambda where=where: bool(app.screen.query(where)), f"{where} shown")
            node = app.screen.query_one(where)
            await until(pilot, lambda node=node: "start with a key or --address" in words(node), f"{where}'s words")
            await pilot.press("escape")


def words(node: object) -> str:
    return node.text if isinstance(node, Facts) else str(node.render())  # type: ignore[attr-defined]
