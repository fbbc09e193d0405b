"""Notices never cover a table the trader is reading: on the event log, TWAP and Chase & OCO screens a notice shows
in the screen's own line above the footer, in its severity's colour, instead of a toast over the table's rows;
elsewhere notices stay toasts."""

from __future__ import annotations

import pytest
from textual.widgets._toast import Toast

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tests.ui.test_dialogs_fit import screen_lines
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.chase import ChaseScreen
from tui.ui.screens.data_screen import DataScreen
from tui.ui.screens.events import EventLogScreen
from tui.ui.screens.twap import TwapScreen
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.notice_line import NoticeLine
from tui.ui.widgets.record_table import RecordTable

ALICE = Signer(ALICE_KEY)
WORDS = "Sold 0.0100 BTC-PERP at 100,000.0 · maker · rebate 0.02"


@pytest.mark.parametrize(
    ("key", "kind"), [("N", EventLogScreen), ("V", TwapScreen), ("O", ChaseScreen)], ids=["events", "twap", "chase"]
)
@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
async def test_a_notice_shows_in_the_screens_line_and_the_tables_rows_stay_visible(
    sim: LocalExchange, clock: FrozenClock, trader: Client, key: str, kind: type[DataScreen], size: tuple[int, int]
) -> None:
    """Forty entries in the log (more than the screen holds); the table at its last row; two notices: no
    toast on the screen, the newest notice in the line (the other counted), the line between the table and the
    footer, and the table's last row (and every row in view) on the screen whole."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=size, notifications=True) as pilot:
        await feed_ready(app)
        for n in range(40):
            app.feed.state.account.events.add("alert", f"entry {n:02d} of the log, long enough to reach the right")
        await pilot.press(key)
        await settle(pilot, lambda: isinstance(app.screen, kind), what=kind.__name__)
        screen = app.screen
        table = screen.query_one(RecordTable)
        if kind is EventLogScreen:
            await settle(pilot, lambda: table.row_count >= 40, what="the log's rows")
        table.move_cursor(row=table.row_count - 1)  # the oldest entry, at the table's end
        await pilot.pause()
        app.notify(WORDS, title="Fill", severity="error", timeout=60)
        app.notify(f"later: {WORDS}", title="Fill", timeout=60)
        line = screen.query_one(NoticeLine)
        await settle(pilot, lambda: "later: Sold" in line.text, what="the notice in the line")
        assert "(+1 earlier)" in line.text and line.has_class("-information")
        assert not screen.query(Toast), "a toast over the table"
        footer = screen.query_one(Footer)
        assert table.region.bottom <= line.region.y < footer.region.y
        lines = screen_lines(app.export_screenshot())
        assert any("Fill: later: Sold 0.0100 BTC-PERP" in text for text in lines)
        if table.row_count:
            last = str(table.get_row_at(table.row_count - 1)[-1])  # its last column, the widest
            assert any(last[:30] in text for text in lines), (last, lines)
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        app.notify("on the dashboard", timeout=60)
        await settle(pilot, lambda: app.screen.query(Toast), what="a toast on the dashboard")
