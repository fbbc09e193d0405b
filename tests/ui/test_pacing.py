"""The byte pacer: news drawn at once while the terminal's budget lasts, held while it is spent or the link is
behind (tui.ui.render.pacing), with a stepped clock and a hand-counted byte total."""

from __future__ import annotations

import pytest

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tests.ui.screen_steps import until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.messages import FeedChanged
from tui.ui.render.pacing import MAX_DEBT_S, BytePacer
from tui.ui.screens.main import REFRESH_S
from tui.ui.widgets.account_bar import AccountBar
from tui.ui.widgets.book import OrderBookPane
from tui.ui.widgets.header import ProfileHeader
from tui.ui.widgets.positions import PositionsPane

ALICE = Signer(ALICE_KEY)


class Wire:
    """A stepped clock, the bytes written so far and the writes still queued for the terminal."""

    def __init__(self) -> None:
        self.now = 0.0
        self.written: int | None = 0
        self.queued = 0

    def pacer(self, rate: float = 1_000, burst_s: float = 0.5) -> BytePacer:
        return BytePacer(rate, lambda: self.now, lambda: self.written, lambda: self.queued, burst_s=burst_s)


def test_draws_at_once_while_the_budget_lasts() -> None:
    """A quiet terminal: each change may be drawn the moment it comes (no time-based coalescing)."""
    wire = Wire()
    pacer = wire.pacer()
    for _ in range(5):
        assert pacer.wait() == 0.0
        wire.written = (wire.written or 0) + 50
        wire.now += 0.05
    assert pacer.held == 0


def test_a_spent_budget_holds_the_next_draw_until_it_has_filled_back() -> None:
    """500 bytes of burst at 1,000 B/s: after 800 bytes written the bucket is 300 short, so 0.3 s to wait;
    the wait shrinks as the clock moves on, and the draw is allowed once it has passed."""
    wire = Wire()
    pacer = wire.pacer()
    assert pacer.wait() == 0.0
    wire.written = 800
    assert pacer.wait() == pytest.approx(0.3)
    wire.now = 0.2
    assert pacer.wait() == pytest.approx(0.1)
    wire.now = 0.31
    assert pacer.wait() == 0.0
    assert pacer.held == 2


def test_the_budget_paces_a_busy_feed_to_its_rate() -> None:
    """A feed that would redraw 60 times a second at 200 bytes a redraw (12,000 B/s) is drawn only as often as
    1,000 B/s pays for: over 10 s, about 10,000 bytes plus the burst."""
    wire = Wire()
    pacer = wire.pacer()
    for _ in range(600):
        if pacer.wait() == 0.0:
            wire.written = (wire.written or 0) + 200
        wire.now += 1 / 60
    assert 10_000 <= (wire.written or 0) <= 10_000 + 500 + 200


def test_a_dialogs_burst_holds_the_panes_at_most_a_second() -> None:
    """An order form opening and closing writes ~80 KB at once: at 1,000 B/s that debt would hold every redraw
    for 80 s (the book froze after a trade); it holds them at most MAX_DEBT_S."""
    wire = Wire()
    pacer = wire.pacer()
    assert pacer.wait() == 0.0
    wire.written = 80_000
    assert pacer.wait() == pytest.approx(MAX_DEBT_S)
    wire.now += MAX_DEBT_S + 0.01
    assert pacer.wait() == 0.0


def test_a_link_behind_holds_every_draw_until_the_queue_is_out() -> None:
    """Writes still queued for the terminal (the pty write blocked): nothing more is drawn, however much budget
    is left, and drawing resumes when the queue is empty."""
    wire = Wire()
    pacer = wire.pacer()
    wire.queued = 2
    assert pacer.wait() > 0
    wire.now += 1.0
    assert pacer.wait() > 0
    wire.queued = 0
    assert pacer.wait() == 0.0


def test_headless_no_budget_applies() -> None:
    """No driver counts bytes (headless, the tests' Pilot apps): every change is drawn at once."""
    wire = Wire()
    wire.written = None
    pacer = wire.pacer(rate=1)
    for _ in range(100):
        assert pacer.wait() == 0.0
        wire.now += 0.001


async def test_the_dashboard_holds_news_while_the_budget_is_spent_and_draws_it_once_refilled(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """The dashboard's pacer swapped for one on a stepped clock, whose byte total a test moves as a driver
    would: with 10 times the budget just written, news for the book leaves it dirty (undrawn) through the
    screen's refresh ticks; once the stepped clock has paid the bytes back, the held redraw draws it. (Before,
    news was drawn at once whatever the bytes.)"""
    wire = Wire()
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        book = app.main.query_one(OrderBookPane)
        await settle(pilot, lambda: not book.dirty, what="the book drawn")
        app.main.pacing.pacer = wire.pacer(rate=1_000, burst_s=0.5)
        assert app.main.pacing.pacer.wait() == 0.0
        wire.written = 10_000  # 9,500 bytes more than the bucket held: 9.5 s of budget to wait
        app.main.post_message(FeedChanged(frozenset({"book"})))
        await until(pilot, lambda: app.main.pacing.pacer.held >= 1, "a redraw held")
        for _ in range(3):  # the refresh ticks come and go; the book stays as it was
            await pilot.pause(REFRESH_S)
        assert book.dirty, "the book was drawn with the budget spent"
        wire.now += 10.0  # the budget has filled back
        await until(pilot, lambda: not book.dirty, "the held redraw")
        assert app.main.pacing.pacer.held >= 1


def test_urgent_news_is_drawn_whatever_the_budget_but_not_past_a_link_behind() -> None:
    """The account's own news (a fill) with the budget spent: drawn at once, its bytes counted; with writes queued
    for the terminal it waits like any other news (the picture sent is still the latest)."""
    wire = Wire()
    pacer = wire.pacer()
    assert pacer.wait() == 0.0
    wire.written = 10_000
    assert pacer.wait() > 0
    assert pacer.wait(urgent=True) == 0.0
    wire.queued = 1
    assert pacer.wait(urgent=True) > 0


async def test_a_fill_is_drawn_at_once_with_the_budget_spent_and_the_positions_pace_not_due(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A reverse seen in tmux on a slow link: the notice said "long 0.01 -> short 0.01" while the positions pane
    showed the long for 3-7 s more (a dialog's bytes had spent the budget, and the pane's own pace held it). Now,
    with the budget spent and the pane just drawn: news of positions alone stays held; with a fill, the positions
    pane and the account line are drawn at once, and so is the position's own news for a while after."""
    wire = Wire()
    app = dashboard(trader, sim, clock, ALICE, low_bandwidth=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        main = app.main
        positions, bar = main.query_one(PositionsPane), main.query_one(AccountBar)
        await settle(pilot, lambda: not positions.dirty and not bar.dirty, what="the account drawn")
        assert main.pacing is not None
        main.pacing.pacer = wire.pacer(rate=1_000, burst_s=0.5)
        assert main.pacing.pacer.wait() == 0.0
        wire.written = 10_000  # 9.5 s of budget to wait
        positions.flush()  # just drawn: its pace (every second on a slow link) is not due
        book = main.query_one(OrderBookPane)
        main.feed_changed(frozenset({"positions", "book"}))
        assert positions.dirty and book.dirty, "a mark's news drawn with the budget spent"
        main.feed_changed(frozenset({"fills", "orders", "events"}))
        assert not positions.dirty and not bar.dirty, "the fill waited for the budget or the pace"
        assert book.dirty, "the book was drawn with the account's news, past the budget"
        main.feed_changed(frozenset({"positions"}))  # the position's own push, just after
        assert not positions.dirty


async def test_a_resize_refits_the_lines_at_once_with_the_budget_spent(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Seen in tmux: after a resize to 80 columns the account line kept the 160-column wording, cut at the edge,
    for 3-8 s (the resize's repaint had spent the budget, and the line's own pace held it). With the budget
    spent and the line just drawn, a resize to 80x24 refits the account line and the header in the same turn:
    the account line fits its 78 columns (the equity's split left out, every figure kept), and neither is left
    waiting."""
    wire = Wire()
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        main = app.main
        bar, header = main.query_one(AccountBar), main.query_one(ProfileHeader)
        await settle(pilot, lambda: not bar.dirty and "perps" in str(bar.render()), what="the account line")
        assert main.pacing is not None
        main.pacing.pacer = wire.pacer(rate=1_000, burst_s=0.5)
        wire.written = 10_000  # 9.5 s of budget to wait
        bar.flush()  # just drawn: its pace (once a second) is not due
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: bar.region.width == 80, "the line at its new width")
        line = str(bar.render())
        assert not bar.dirty and not header.dirty, "a line waited for the budget or its pace"
        assert "perps" not in line and len(line) <= 78 and line.endswith("Margin 0.00"), line
