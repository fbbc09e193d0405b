"""Price alerts from the keyboard: added on their screen, fired by the live market with a notice, kept across
a restart; a wrong field is refused by the form."""

from __future__ import annotations

from decimal import Decimal

from textual.widgets import Input, Static

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard, feed_ready, settle
from tests.ui.screen_steps import cells, until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.alerts import AlertsScreen
from tui.ui.screens.form import FormScreen
from tui.ui.widgets.record_table import RecordTable

ALICE = Signer(ALICE_KEY)


async def test_an_alert_added_fires_once_and_is_kept(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE, read_only=True)  # alerts send nothing: read-only has them
    notes = Seen(at_markets=lambda: getattr(app.feed.state.market.tickers.get("BTC-PERP"), "mark_price", None))
    async with app.run_test(size=(140, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        tickers = app.feed.state.market.tickers
        await settle(pilot, lambda: "BTC-PERP" in tickers, what="the tickers")
        mark = tickers["BTC-PERP"].mark_price
        await pilot.press("L")
        await until(pilot, lambda: isinstance(app.screen, AlertsScreen) and notes.loads[app.screen] >= 1, "the alerts")
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the form")
        form = app.screen
        for name, value, said in (("level", "1e5", "not a plain decimal"), ("symbol", "NOPE", "not an instrument")):
            form.query_one(f"#field-{name}", Input).value = value
            await pilot.press("enter")
            await until(pilot, lambda said=said: said in str(form.query_one("#form-error", Static).render()), said)
            assert app.screen is form
        form.query_one("#field-symbol", Input).value = "BTC-PERP"
        form.query_one("#field-source", Input).value = "mark"
        form.query_one("#field-condition", Input).value = "below"
        form.query_one("#field-level", Input).value = str(mark - 50)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, AlertsScreen)
        table = screen.query_one("#alerts-table", RecordTable)
        await until(pilot, lambda: table.row_count == 1, "the alert listed")
        assert cells(table)[0][1] == f"BTC-PERP mark price below {mark - 50:,f}" and cells(table)[0][3] == "yes"

        sim.engine.set_index_price(1, str(mark - 500))  # the mark follows the index down, past the level
        sim.step(1000)
        await settle(pilot, lambda: any(m.startswith("BTC-PERP mark price below") for m in notes.messages), what="it")
        [said] = [m for m in notes.messages if m.startswith("BTC-PERP mark price below")]
        assert ": now " in said
        fired_at = app.feed.state.market.tickers["BTC-PERP"].mark_price
        sim.engine.set_index_price(1, str(mark - 600))  # further past the level
        sim.step(1000)
        await settle(
            pilot, lambda: any(m is not None and m < fired_at for m in notes.markets), what="the alert checked again"
        )
        assert len([m for m in notes.messages if m.startswith("BTC-PERP mark price below")]) == 1  # once
        screen.show()
        assert cells(table)[0][3] == "no"  # disarmed

    again = dashboard(trader, sim, clock, ALICE)  # a restart: the same profile reads the same file
    assert [(a.symbol, a.level, a.armed) for a in again.alerts.alerts] == [("BTC-PERP", mark - 50, False)]
    assert isinstance(again.alerts.alerts[0].level, Decimal)
