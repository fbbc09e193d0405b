"""The TWAP screen while a slice is unconfirmed: the exchange takes the slice but every /info answer fails (a
proxy answers 500), so what it filled cannot be read; the TWAP row says it waits for the exchange, a notice
says so, and once /info answers the row shows the slice counted."""

from __future__ import annotations

from decimal import Decimal

from tests.conftest import ALICE_KEY
from tests.fault_proxy import FaultProxy
from tests.ui.conftest import Seen, dashboard, feed_ready, settle
from tests.ui.screen_steps import cells, until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading.twap import TwapSpec
from tui.ui.screens.twap import TwapScreen
from tui.ui.widgets.record_table import RecordTable

ALICE = Signer(ALICE_KEY)


async def test_the_twap_row_says_a_slice_is_unconfirmed_until_the_exchange_answers(
    sim: LocalExchange, clock: FrozenClock, proxied: tuple[FaultProxy, Client]
) -> None:
    """A TWAP of 0.02 BTC in 2 slices an hour apart; /info fails (500) as slice 1 goes. The row's "Next slice"
    reads "slice 1 unconfirmed: waiting for the exchange …" and a notice says the same; /info back, the row
    shows 0.01 done and the next slice's countdown."""
    proxy, client = proxied
    app = dashboard(client, sim, clock, ALICE)
    notes = Seen()
    async with app.run_test(size=(160, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.market.book.loaded, what="the book")
        await pilot.press("V")
        await until(
            pilot, lambda: isinstance(app.screen, TwapScreen) and notes.loads[app.screen] >= 1, "the TWAP screen"
        )
        table = app.screen.query_one("#twap-table", RecordTable)
        runner = app.twaps
        assert runner is not None
        proxy.mode = "500"
        twap = runner.start(TwapSpec("BTC-PERP", "buy", Decimal("0.02"), 2, 3600.0))
        await until(pilot, lambda: table.row_count == 1 and "unconfirmed" in cells(table)[0][4], "unconfirmed row")
        row = cells(table)[0]
        assert row[4].startswith("slice 1 unconfirmed: waiting for the exchange")
        assert row[3].startswith("0.0000 of 0.0200")
        said = "slice 1 unconfirmed: waiting for the exchange"  # the notice may come a moment after the row
        await until(pilot, lambda: any(m.startswith(said) for m in notes.messages), "the notice")
        proxy.mode = "pass"
        await until(pilot, lambda: cells(table)[0][3].startswith("0.0100 of 0.0200"), "the slice counted", timeout_s=20)
        assert cells(table)[0][4].startswith("in ") and not twap.waiting
        runner.cancel(twap)
