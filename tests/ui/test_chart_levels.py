"""The trader's prices on the candle chart, as a user sees them: a position's entry, liquidation price, TP and SL
and a resting order as labelled lines that go when the order is cancelled, fills as ▲/▼ marks, and the
position's TP/SL on its row. The picture is read as text from the widget."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.widgets import DataTable

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.widgets.chart import CandleChart
from tui.ui.widgets.chart_layout import SELL_MARK
from tui.ui.widgets.display import fmt_price

ALICE = Signer(ALICE_KEY)
TICK = Decimal("0.1")  # BTC-PERP's


def chart_text(app: Any) -> str:
    return "\n".join(app.main.query_one(CandleChart).text())


def roles(app: Any) -> set[str]:
    return {role for line in app.main.query_one(CandleChart).lines for _, role in line}


async def short_with_exits(trader: Client) -> tuple[Decimal, Decimal]:
    """Alice short 0.5 BTC sold through the book (cross: ~100k behind it puts liquidation far above), a position
    TP 2% under the bid and SL 2% over the ask."""
    book = await trader.orderbook("BTC-PERP", depth=5)
    through = (book.bids[-1].price * Decimal("0.99")).quantize(TICK)
    await trader.place_order([order_item(1, "s", through, "0.5", tif="IOC")])
    tp = (book.bids[0].price * Decimal("0.98")).quantize(TICK)
    sl = (book.asks[0].price * Decimal("1.02")).quantize(TICK)
    for kind, trigger in (("tp", tp), ("sl", sl)):
        await trader.place_order(
            [order_item(1, "b", "0", "0.5", tif="IOC", trigger_px=trigger, is_market=True, tpsl=kind,
                        grouping="position", reduce_only=True)]
        )  # fmt: skip
    return tp, sl


async def test_position_lines_an_order_line_and_its_cancel(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A short with a TP and an SL, and a resting sell placed while the dashboard runs: the chart labels entry,
    TP, SL and the sell with their prices, and says the liquidation price far above at the top edge (↑ liq);
    cancelling the sell takes its line away, the others stay."""
    tp, sl = await short_with_exits(trader)
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 2 and account.positions, what="exits, position")
        await settle(pilot, lambda: "entry short 0.5000" in chart_text(app), what="the entry line")
        book = await trader.orderbook("BTC-PERP", depth=5)
        resting = (book.asks[0].price + 20 * TICK).quantize(TICK)
        await trader.place_order([order_item(1, "s", resting, "0.02", cloid="rest-1")])
        await settle(pilot, lambda: "sell 0.0200" in chart_text(app), what="the resting sell's line")
        text = chart_text(app)
        entry = account.positions[0].entry_price
        assert f"entry short 0.5000 {fmt_price(entry, TICK)}" in text
        assert f"TP {fmt_price(tp, TICK)}" in text and f"SL {fmt_price(sl, TICK)}" in text
        assert f"sell 0.0200 {fmt_price(resting, TICK)}" in text
        liq = account.summary.perp_positions["BTC-PERP"].liquidation_price
        top = app.main.query_one(CandleChart).text()[0]
        # far off the scale: said at the edge, not drawn (with any other line above the view, nearest first)
        assert top.startswith("↑ ") and f"liq {fmt_price(liq, TICK)}" in top, top
        assert {"lv-entry", "lv-liq", "lv-sell", "lv-buy"} <= roles(app)
        oid = next(o.order_id for o in account.open_orders if o.cloid == "rest-1")
        await trader.cancel_by_oid([(oid, 1)])
        await settle(pilot, lambda: "sell 0.0200" not in chart_text(app), what="the sell's line gone")
        assert f"TP {fmt_price(tp, TICK)}" in chart_text(app) and "entry short" in chart_text(app)


async def test_fills_are_marked_and_the_row_shows_tp_sl(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    """The sell that opened the short is a ▼ on the chart; the positions row has the TP and SL trigger prices."""
    tp, sl = await short_with_exits(trader)
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: SELL_MARK in chart_text(app), what="the fill's mark")
        assert "fill-sell" in roles(app)
        table = app.main.query_one("#positions-table", DataTable)
        await settle(pilot, lambda: table.row_count == 1, what="the position row")
        await settle(pilot, lambda: fmt_price(tp, TICK) in " ".join(str(c) for c in table.get_row_at(0)), what="TP")
        row = " ".join(str(c).strip() for c in table.get_row_at(0))
        assert fmt_price(sl, TICK) in row, row
