"""Keys: d shows the book as a depth chart and back, left/right move its cursor (the price under it changes);
F12 opens and closes the diagnostics overlay, which shows its figures while keys still reach the dashboard."""

from __future__ import annotations

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.widgets.book import OrderBookPane
from tui.ui.widgets.diagnostics_overlay import DiagnosticsOverlay

ALICE = Signer(ALICE_KEY)


async def test_d_toggles_the_depth_chart_and_the_cursor_names_a_price(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        book = app.main.query_one(OrderBookPane)
        await settle(pilot, lambda: book.lines.cell("b0", 0), what="the ladder")
        await pilot.press("2", "d")
        chart = book.chart
        await settle(pilot, lambda: chart.curve is not None, what="the depth chart")
        assert book.depth_shown and chart.display and not book.lines.display and chart.has_focus
        assert "depth" in str(book.border_title) and chart.readout().startswith("Σ bids")
        curve = chart.curve
        assert curve is not None and curve.mid == app.feed.state.market.book.mid
        await pilot.press("left")
        first = chart.readout()
        assert chart.cursor == curve.mid_column - 1 and first.startswith("◆") and "bids" in first
        await pilot.press("left", "left", "left")
        assert chart.cursor == curve.mid_column - 4 and chart.readout() != first
        assert curve.prices[chart.cursor] < curve.prices[curve.mid_column - 1] < curve.mid
        await pilot.press(*["right"] * 6)
        assert chart.cursor == curve.mid_column + 2 and "asks" in chart.readout()
        await pilot.press("d")
        await pilot.pause()
        assert not book.depth_shown and book.lines.display and not chart.display and book.lines.has_focus
        await pilot.press("1", "d")  # the key is the book pane's: elsewhere it does nothing
        await pilot.pause()
        assert not book.depth_shown


async def test_depth_chart_in_the_shared_place_at_80x24(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed_ready(app)
        book = app.main.query_one(OrderBookPane)
        await settle(pilot, lambda: book.lines.cell("b0", 0), what="the ladder")
        await pilot.press("2", "d")
        await settle(pilot, lambda: book.chart.curve is not None, what="the depth chart")
        assert book.chart.region.height >= 8 and book.chart.has_focus  # its cell beside the markets, less its header


async def test_f12_opens_and_closes_the_diagnostics_overlay(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.status.messages["orderbook"], what="a book frame")
        await pilot.press("f12")
        await settle(pilot, lambda: app.main.query(DiagnosticsOverlay), what="the overlay")
        overlay = app.main.query_one(DiagnosticsOverlay)
        # its per-channel rates count the last few seconds' frames: on a busy machine a draw may have none, so the
        # figures are read from one draw that has them all (a redraw between two reads dropped the book's once)
        figures = ("frames", "terminal", "process", "CPU", "RSS", "feed", "orderbook", "data age", "/info")
        shown: list[str] = []

        def all_figures() -> bool:
            shown[:] = ["\n".join(overlay.lines)]
            return all(figure in shown[0] for figure in figures)

        await settle(pilot, all_figures, what="every figure in the overlay")
        text = shown[0]
        assert "not counted" in text  # headless: no terminal driver counts bytes
        assert not overlay.has_focus and app.main.query_one("#markets-table").has_focus
        positions = app.main.query_one("#positions").region  # a row the width of the grid
        assert positions.width == 120  # the overlay floats: the dashboard is not narrowed
        await pilot.press("2")  # keys still reach the dashboard
        assert app.main.query_one(OrderBookPane).lines.has_focus
        await pilot.press("f12")
        await pilot.pause()
        assert not app.main.query(DiagnosticsOverlay)
