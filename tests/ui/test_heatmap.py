"""The book heatmap against the real local exchange: the dashboard takes a column of the book every second (every
five with --low-bandwidth) whether the heatmap is shown or not; ``h`` shows it, newest at the right, its price
axis around the mid; ``g`` groups the bands, ``t`` puts more time in a column, Escape goes back."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tests.ui.test_lean_repaint import spy_refreshes
from tui.api.client import Client
from tui.api.signing import Signer
from tui.feed.heatmap import SHADES
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.heatmap import HeatmapScreen
from tui.ui.widgets.heatmap import HeatmapPane, HeatmapView

ALICE = Signer(ALICE_KEY)


async def test_columns_are_taken_every_second_and_drawn_newest_at_the_right(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Two columns come in their two seconds before h is pressed; shown, they are the two rightmost of the
    picture, the best bid's band shaded in the bid's colour; a third column moves them one to the left; t shows a
    column for every two taken; g groups the bands."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 30)) as pilot:
        await feed_ready(app)
        history = app.main.depth_history
        await settle(pilot, lambda: history.samples >= 2, what="two columns of the book")
        app.main.sampling = False  # the picture is held from here: the test takes the next column itself
        await pilot.press("h")
        await settle(pilot, lambda: isinstance(app.screen, HeatmapScreen), what="the heatmap")
        pane = app.screen.query_one(HeatmapPane)
        await settle(pilot, lambda: pane.grid, what="the picture")
        width = len(pane.grid[0])
        assert width == len(history.ring) and pane.view.size.width - 12 >= width
        book = app.feed.state.market.book
        assert pane.top is not None and pane.step is not None and book.best_bid is not None
        row = int((pane.top - book.best_bid) // pane.step)
        assert pane.grid[row][-1].kind == "bid" and pane.grid[row][-1].text in SHADES[1:]
        assert "a column every 1 s" in str(pane.border_subtitle)
        shown = pane.view.strips[row].text
        assert shown.rstrip().endswith(pane.grid[row][-1].text * width)
        history.sample(app.feed.state.market, 99.0)
        await settle(pilot, lambda: len(pane.grid[0]) == width + 1, what="the third column")
        for at in range(3):  # three more columns: t shows one for every two, with the trades of both
            history.sample(app.feed.state.market, 100.0 + at)
        await pilot.press("t")
        halved = (len(history.ring) + 1) // 2
        await settle(pilot, lambda: len(pane.grid[0]) == halved, what="a column for every two")
        assert "a column every 2 s" in str(pane.border_subtitle)
        grouping = pane.grouping
        await pilot.press("g")
        assert pane.grouping != grouping
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")


async def test_low_bandwidth_takes_a_column_every_five_seconds(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """--low-bandwidth: the heatmap is drawn and sampled every 5 s, and says so; its minutes are five-column ones."""
    app = dashboard(trader, sim, clock, ALICE, low_bandwidth=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed_ready(app)
        await pilot.press("h")
        await settle(pilot, lambda: isinstance(app.screen, HeatmapScreen), what="the heatmap")
        screen = app.screen
        assert isinstance(screen, HeatmapScreen)
        pane = screen.query_one(HeatmapPane)
        assert screen.refresh_s == pane.period_s == 5.0
        await settle(pilot, lambda: "a column every 5 s" in str(pane.border_subtitle), what="the pace said")


class OneView(App[None]):
    def compose(self) -> ComposeResult:
        yield HeatmapView(id="view")


async def test_a_line_repaints_from_its_first_changed_cell_to_its_last() -> None:
    """Of three lines, one unchanged (not repainted), one with cells 3 and 5 changed (repainted from 3 to 5), one
    grown (repainted whole): what is repainted is what goes to the terminal."""
    app = OneView()
    async with app.run_test(size=(20, 5)) as pilot:
        view = app.query_one(HeatmapView)
        blank = Strip.blank(20)
        view.show([blank] * 3, [tuple("abcdefgh"), tuple("abcdefgh"), tuple("ab")])
        await pilot.pause()
        calls = spy_refreshes(view)
        view.show([blank] * 3, [tuple("abcdefgh"), tuple("abcXeYgh"), tuple("abc")])
        assert calls == [(Region(3, 1, 3, 1),), (Region(0, 2, 20, 1),)]
