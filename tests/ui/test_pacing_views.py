"""Every view over the dashboard is paced by the terminal's byte budget as the dashboard is (tui.ui.render.pacing):
the ladder (D), the heatmap (h) and a layout of several markets (Y) each hold their redraws while the budget is
spent, and draw them once it has filled back. Each view's pacer is swapped for one on a stepped clock whose byte
total the test moves as a driver would (``Wire``, as in test_pacing)."""

from __future__ import annotations

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tests.ui.screen_steps import until
from tests.ui.test_layouts import TWO_MARKETS, write_layouts
from tests.ui.test_pacing import Wire
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.heatmap import HeatmapScreen
from tui.ui.screens.layout_screen import LayoutScreen
from tui.ui.screens.live_screen import LiveScreen
from tui.ui.screens.main import REFRESH_S
from tui.ui.screens.main_pacing import NewsPacing
from tui.ui.widgets.book import OrderBookPane
from tui.ui.widgets.heatmap import HeatmapPane
from tui.ui.widgets.ladder import LadderPane

ALICE = Signer(ALICE_KEY)


def spend(pacing: NewsPacing | None, wire: Wire) -> None:
    """The view's pacer on ``wire``, its budget spent: 9.5 s of it to wait for at 1,000 B/s."""
    assert pacing is not None, "the view is not paced"
    pacing.pacer = wire.pacer(rate=1_000, burst_s=0.5)
    assert pacing.pacer.wait() == 0.0
    wire.written = 10_000


async def test_the_ladder_holds_the_books_news_while_the_budget_is_spent(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """With the budget spent, the book's news leaves the ladder dirty (undrawn) through its refresh ticks; once the
    stepped clock has paid the bytes back, the held redraw draws it. (Before, the ladder drew every book change,
    whatever the bytes.)"""
    wire = Wire()
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await pilot.press("D")
        await settle(pilot, lambda: isinstance(app.screen, LiveScreen) and app.screen.pacing is not None, what="D")
        screen = app.screen
        assert isinstance(screen, LiveScreen)
        ladder = screen.query_one(LadderPane)
        await settle(pilot, lambda: not ladder.dirty, what="the ladder drawn")
        spend(screen.pacing, wire)
        screen.feed_changed(frozenset({"book"}))
        await until(pilot, lambda: screen.pacing is not None and screen.pacing.pacer.held >= 1, "a redraw held")
        for _ in range(3):
            await pilot.pause(REFRESH_S)
        assert ladder.dirty, "the ladder was drawn with the budget spent"
        wire.now += 10.0
        await until(pilot, lambda: not ladder.dirty, "the held redraw")


async def test_the_heatmap_holds_a_new_column_while_the_budget_is_spent(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A column taken with the budget spent is not drawn at the heatmap's tick; it is once the budget is back."""
    wire = Wire()
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        history = app.main.depth_history
        await settle(pilot, lambda: history.samples >= 1, what="a column of the book")
        app.main.sampling = False  # the test takes the next column itself
        await pilot.press("h")
        await settle(pilot, lambda: isinstance(app.screen, HeatmapScreen), what="the heatmap")
        screen = app.screen
        assert isinstance(screen, HeatmapScreen)
        pane = screen.query_one(HeatmapPane)
        await settle(pilot, lambda: pane.grid, what="the picture")
        width = len(pane.grid[0])
        spend(screen.pacing, wire)
        history.sample(app.feed.state.market, 99.0)
        await until(pilot, lambda: screen.pacing is not None and screen.pacing.pacer.held >= 1, "a redraw held")
        await pilot.pause(screen.refresh_s * 1.5)  # the heatmap's own tick comes and goes
        assert len(pane.grid[0]) == width, "the column was drawn with the budget spent"
        wire.now += 10.0
        await until(pilot, lambda: len(pane.grid[0]) == width + 1, "the held column")


async def test_a_layout_of_two_markets_holds_its_books_news_while_the_budget_is_spent(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Two markets side by side: with the budget spent, the book's news leaves both books dirty through the
    layout's refresh ticks; once the budget is back they are drawn. (Before, a layout drew every change of every
    market at once: ~22,700 B/s at 160x48 where the dashboard's budget is 5,000.)"""
    write_layouts(TWO_MARKETS)
    wire = Wire()
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await pilot.press("Y")
        await settle(pilot, lambda: isinstance(app.screen, LayoutScreen), what="the layout")
        screen = app.screen
        assert isinstance(screen, LayoutScreen)
        books = list(screen.query(OrderBookPane))
        await settle(pilot, lambda: all(b.state.market.book.loaded and not b.dirty for b in books), what="books")
        spend(screen.pacing, wire)
        screen.feed_changed(frozenset({"book"}))
        await until(pilot, lambda: screen.pacing is not None and screen.pacing.pacer.held >= 1, "a redraw held")
        for _ in range(3):
            await pilot.pause(REFRESH_S)
        assert all(b.dirty for b in books), "a book was drawn with the budget spent"
        wire.now += 10.0
        await until(pilot, lambda: not any(b.dirty for b in books), "the held redraw")
