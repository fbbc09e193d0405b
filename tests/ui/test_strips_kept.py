"""What the dashboard keeps of what it drew: the lines nobody sees are not kept line by line.

Textual keeps every line a widget drew, and each cut the screen made of it, while the widget shows: ~1 KB a
line. The screen and the grid, which the panes cover, drew 92 lines no one saw; each pane drew its inside, which
its table covers, line by line. Tried: every pane of the dashboard at 160x48 drawn both ways, whole and in part,
and compared cell by cell and style by style. And what a closed screen's widgets drew is let go: Textual kept it
(an ``lru_cache`` on a method holds each widget's line cache), ~0.55 MB each time the order form closed."""

from __future__ import annotations

import gc

from textual._styles_cache import StylesCache
from textual.containers import Vertical
from textual.geometry import Region
from textual.strip import Strip

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, drawn, feed_ready, settle
from tests.ui.test_order_form import buy_form
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.main import MainScreen
from tui.ui.widgets.pane import FeedPane

ALICE = Signer(ALICE_KEY)


def _alive(kind: type) -> int:
    """How many ``kind`` objects are alive, once the collector has freed what it can."""
    gc.collect()
    return sum(isinstance(o, kind) for o in gc.get_objects())


async def test_a_pane_draws_what_textual_draws_with_one_line_for_its_inside(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await drawn(pilot)
        panes = [pane for pane in app.main.query(FeedPane) if pane.region]
        assert len(panes) == 6  # markets, book, tape, chart, positions, open orders (its top border is the tabs)
        for pane in panes:
            width, height = pane.outer_size
            top, _, bottom, _ = pane.styles.gutter
            for crop in (Region(0, 0, width, height), Region(3, 1, width - 5, height - 2)):
                ours, textuals = pane.render_lines(crop), Vertical.render_lines(pane, crop)
                assert [list(line) for line in ours] == [list(line) for line in textuals], (pane.id, crop)
            inside = pane.render_lines(Region(0, 0, width, height))[top : height - bottom]
            assert len({id(line) for line in inside}) == 1, pane.id


async def test_the_dashboard_keeps_a_few_hundred_strips_not_thousands(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    before = _alive(Strip)
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await drawn(pilot)
        for _ in range(3):  # a few frames more, as the market moves
            await pilot.pause()
        kept = _alive(Strip) - before
        assert kept < 600, f"{kept} strips kept"  # 1,643 when the screen, the grid and the panes' insides were kept


FORM_CACHES = 57  # the styles caches of one order form's widgets


async def test_the_order_form_opened_and_closed_leaves_nothing_drawn_behind(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        alive: list[int] = []
        for _ in range(6):
            await buy_form(pilot)
            await pilot.press("escape")
            await settle(pilot, lambda: isinstance(app.screen, MainScreen), what="the dashboard back")
            await pilot.pause()
            alive.append(_alive(StylesCache))
        # The first closing may leave the dashboard's own widgets drawn anew. After it nothing grows: at most the form
        # closed last lingers a moment (57 caches; seen 36 or 93 at random), never one more per form (93, 150, 207...)
        assert max(alive[1:]) - min(alive[1:]) <= FORM_CACHES + 5, alive
