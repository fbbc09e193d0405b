"""The trade journal screen: a round trip's realized PnL, fees and net, per day and per instrument."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

from textual_plotext import PlotextPlot

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard, feed_ready
from tests.ui.screen_steps import cells, until
from tests.ui.test_nothing_fabricated import PlotApp, drawn_text
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.feed.journal import Journal, Totals
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.journal import JournalScreen, draw_journal
from tui.ui.widgets.record_table import RecordTable

ALICE = Signer(ALICE_KEY)


async def test_a_round_trip_in_the_journal(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    book = await trader.orderbook("BTC-PERP", depth=5)
    await trader.place_order([order_item(1, "b", book.asks[-1].price, "0.01", tif="IOC")])
    book = await trader.orderbook("BTC-PERP", depth=5)
    await trader.place_order([order_item(1, "s", book.bids[-1].price, "0.01", tif="IOC")])
    fills = (await trader.fills(ALICE.address)).data
    realized = sum((f.closed_pnl for f in fills), Decimal(0))
    fees = sum((f.fee + f.broker_fee for f in fills), Decimal(0))
    net = realized - fees
    app = dashboard(trader, sim, clock, ALICE, read_only=True)  # it sends nothing: read-only can read it
    seen = Seen()
    async with app.run_test(size=(160, 48), message_hook=seen) as pilot:
        await feed_ready(app)
        await pilot.press("J")
        await until(pilot, lambda: isinstance(app.screen, JournalScreen) and seen.loads[app.screen] >= 1, "the journal")
        screen = app.screen
        assert isinstance(screen, JournalScreen)
        [day] = cells(screen.query_one("#journal-days", RecordTable))
        assert day[0] == "2026-01-01" and day[1] == str(len(fills))
        assert day[3:7] == [f"{realized:,.2f}", f"{fees:,.2f}", "0.00", f"{net:,.2f}"]
        [btc] = cells(screen.query_one("#journal-instruments", RecordTable))
        assert btc[0] == "BTC-PERP" and btc[-1] == f"{net:,.2f}"
        total = str(screen.query_one("#journal-total").render())
        assert total.startswith(f"Last 30 days · net {net:,.2f} USDC = realized {realized:,.2f}")
        await pilot.press("left_square_bracket")
        await until(pilot, lambda: screen.days == 7 and seen.loads[screen] >= 2, "a week")


async def test_a_days_bar_hangs_from_a_zero_the_axis_labels() -> None:
    """One day's loss (-12.50): the bar hangs from a line at zero, labelled 0.00 on the axis (it hung from an
    unlabelled zero, between -1.36 and 0.62 or so)."""
    day = Totals(fills=2, volume=Decimal(1000), realized=Decimal("-11.5"), fees=Decimal(1), funding=Decimal(0))
    journal = Journal(by_day={dt.date(2026, 1, 1): day}, by_instrument={"BTC-PERP": day}, total=day)
    app = PlotApp()
    async with app.run_test(size=(100, 24)) as pilot:
        plot = app.query_one(PlotextPlot)
        draw_journal(plot, journal, app, 30)
        await pilot.pause()
        text = drawn_text(plot)
    [zero] = [line for line in text.splitlines() if re.match(r"\s*0\.00\b", line)]
    assert zero.count("─") >= 40, zero  # the line at zero, across the plot
    labels = re.findall(r"^\s*(-?[\d,]+\.\d\d)\b", text, re.M)
    assert "-12.50" in labels or any(Decimal(x) < Decimal(-12) for x in labels), labels
