"""The dashboard at every terminal size, as a trader sees it: at 80x24 the positions row has the mark and the
liquidation price, and the account bar shows every figure it shows in full (short forms such as ``M 5.0k``) and
within the width; at 160x48 six open orders show without scrolling; z zooms the focused pane and gives it back.
Short money forms: rounding, negatives, every unit."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from rich.cells import cell_len
from textual.widgets import DataTable, Static

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.widgets.account_bar import AccountBar
from tui.ui.widgets.chart import CandleChart
from tui.ui.widgets.display import fmt_money_short, fmt_price
from tui.ui.widgets.orders import OpenOrdersPane
from tui.ui.widgets.positions import PositionsPane

ALICE = Signer(ALICE_KEY)
TICK = Decimal("0.1")


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("0", "0.00"),
        ("12.34", "12.34"),  # in cents under a thousand, as the position rows beside it
        ("-0.004", "0.00"),  # no "-0.00"
        ("-0.25", "-0.25"),
        ("999.99", "999.99"),
        ("999.995", "1.0k"),  # rounds to 1,000.00: the unit it reaches
        ("-999.995", "-1.0k"),
        ("4000", "4.0k"),
        ("-4321", "-4.3k"),
        ("999949.99", "999.9k"),
        ("999950", "1.0M"),
        ("-1234567", "-1.2M"),
        ("1500000000", "1.5B"),
        ("2000000000000", "2,000.0B"),
    ],
)
def test_short_money(value: str, shown: str) -> None:
    assert fmt_money_short(Decimal(value)) == shown


async def short_position(trader: Client) -> None:
    """Alice short 0.5 BTC, sold through the book: cross, ~5,000 of margin, liquidation far above."""
    book = await trader.orderbook("BTC-PERP", depth=5)
    await trader.place_order(
        [order_item(1, "s", (book.bids[-1].price * Decimal("0.99")).quantize(TICK), "0.5", tif="IOC")]
    )


def bar_text(app: Any) -> str:
    return str(app.main.query_one("#account", Static).render())


async def test_80x24_positions_have_mark_and_liq_and_the_account_bar_is_never_cut(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A short at 80x24: the row shows the signed size, the mark and the liquidation price; the account bar's
    text fits its 78 columns and every figure in it is whole (``Eq 123.5k``, ``M 5.0k``); before, it was cut
    after "Margin"."""
    await short_position(trader)
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: account.positions and account.summary is not None, what="the short")
        pane = app.main.query_one(PositionsPane)
        table = app.main.query_one("#positions-table", DataTable)
        await settle(pilot, lambda: table.row_count == 1, what="its row")
        assert {"market", "size", "mark", "liq"} <= set(pane.columns), pane.columns
        cells = dict(zip(pane.columns, (str(c).strip() for c in table.get_row_at(0)), strict=True))
        liq = account.summary.perp_positions["BTC-PERP"].liquidation_price
        assert cells["size"] == "-0.5000" and cells["liq"] == fmt_price(liq, TICK)
        bar = app.main.query_one("#account", Static)
        await settle(pilot, lambda: bar_text(app).startswith("Eq "), what="the short account bar")
        text, room = bar_text(app), bar.size.width - 2
        assert cell_len(text) <= room, (text, room)
        margin = text.split("│ M ")[1].split()[0]
        assert margin.endswith("k") and Decimal(margin[:-1]) > 0, text  # ~5,000 of margin in use: "5.0k"
        drawn = app.main.query_one(AccountBar).summary_drawn  # the summary it was drawn from: a newer may be in
        assert f"Eq {fmt_money_short(drawn.total_account_equity)}" in text


async def test_160x48_shows_six_open_orders_and_z_zooms_the_pane(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Six resting buys at 160x48: all six rows in view (nothing to scroll). `4` then `z`: the orders pane fills
    the screen; `z` again puts it back in its cell."""
    await trader.place_order([order_item(1, "b", str(80_000 + i * 100), "0.01") for i in range(6)])
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        table = app.main.query_one("#orders-table", DataTable)
        await settle(pilot, lambda: table.row_count == 6, what="six orders")
        await pilot.pause()
        assert table.max_scroll_y == 0 and table.size.height >= 7, table.size  # the header and six rows
        pane = app.main.query_one(OpenOrdersPane)
        before = pane.size.height
        await pilot.press("4", "z")
        await settle(pilot, lambda: app.main.maximized is pane and pane.size.height > 30, what="the zoomed pane")
        await pilot.press("z")
        await settle(pilot, lambda: app.main.maximized is None and pane.size.height == before, what="back")


async def test_z_zooms_the_chart_and_it_is_drawn_for_the_whole_screen(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """The chart focused (as Tab reaches it), `z`: the chart fills the screen and its picture is drawn for the new
    size; Escape puts it back and draws it for its cell again."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        plot = app.main.query_one(CandleChart)
        await settle(pilot, lambda: len(plot.lines) == plot.size.height > 0, what="the chart drawn")
        small = plot.size
        plot.focus()
        await pilot.press("z")
        await settle(
            pilot, lambda: plot.size.height > small.height and len(plot.lines) == plot.size.height, what="zoomed"
        )
        assert plot.size.width > small.width
        await pilot.press("escape")
        await settle(pilot, lambda: plot.size == small and len(plot.lines) == small.height, what="back in its cell")
