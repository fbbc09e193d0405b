"""The chart pane as a user drives it: resolution and zoom keys, switching instrument, and no blank frame on a
switch (the old picture stays until the new candles are in). The picture is read as text from the widget."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.widgets import DataTable

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.widgets.chart import CandleChart, ChartPane
from tui.ui.widgets.display import fmt_price

ALICE = Signer(ALICE_KEY)


def marked(app: Any) -> str:
    """The price on the highlighted row of the axis."""
    plot = app.main.query_one(CandleChart)
    return next(t.strip() for line in plot.lines for t, role in line if role.startswith("last-"))


async def loading(market: Any) -> None:
    """Until the feed has dropped the shown chart for the new one (no network reply is waited for)."""
    for _ in range(100):
        if market.chart_loading:
            assert not market.candles
            return
        await asyncio.sleep(0)
    raise AssertionError("the feed never started loading the new chart")


def last_close(app: Any) -> str:
    market = app.feed.state.market
    return fmt_price(market.candles[-1].close, market.instruments[market.selected].tick_size)


async def test_resolution_keys_redraw_without_a_blank_frame(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        pane = app.main.query_one(ChartPane)
        await settle(pilot, lambda: pane.picture is not None and pane.picture.shown > 1, what="1m candles")
        assert marked(app) == last_close(app) and f"close {last_close(app)}" == pane.border_subtitle
        market = app.feed.state.market
        old = app.main.query_one(CandleChart).text()
        app.main.action_resolution(1)  # what ] does
        await loading(market)
        # the moment between the key and the new history (a few ms here, longer over a real network): the
        # feed has dropped the 1m candles; the pane, flushed now, keeps its picture and says it is loading
        pane.dirty = True
        pane.flush()
        assert app.main.query_one(CandleChart).text() == old and "loading" in str(pane.border_subtitle)
        await settle(pilot, lambda: "· 5m" in str(pane.border_title), what="the 5m chart")
        assert market.resolution == "5" and marked(app) == last_close(app)
        times = app.main.query_one(CandleChart).text()[-1].split()
        assert len(times) >= 3 and all(t[2] in ":-" for t in times), times  # HH:MM, or MM-DD at midnight


async def test_zoom_keys_make_candles_wider_or_thinner(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        pane = app.main.query_one(ChartPane)
        await settle(pilot, lambda: pane.picture is not None and pane.picture.shown > 1, what="candles")
        assert pane.picture is not None
        before = (pane.picture.shown, pane.picture.body)
        await pilot.press("plus")
        await settle(pilot, lambda: pane.picture is not None and pane.picture.body > before[1], what="wider")
        assert pane.picture.shown < before[0]
        assert any("┌" in line or "███" in line for line in app.main.query_one(CandleChart).text())
        await pilot.press("minus", "minus")
        await settle(pilot, lambda: pane.picture is not None and pane.picture.shown > before[0], what="thinner")
        await pilot.press("equals_sign")  # the other key for wider
        await settle(pilot, lambda: pane.picture is not None and pane.picture.shown == before[0], what="back")
        for _ in range(6):
            await pilot.press("minus")  # held at the thinnest: one column, no gap
        await settle(pilot, lambda: pane.slot == 1, what="the thinnest")


async def test_switching_instrument_shows_its_candles(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        pane = app.main.query_one(ChartPane)
        await settle(pilot, lambda: pane.picture is not None and pane.picture.shown > 1, what="BTC candles")
        btc, old = marked(app), app.main.query_one(CandleChart).text()
        market = app.feed.state.market
        await pilot.press("1", "down")
        app.main.query_one("#markets-table", DataTable).action_select_cursor()  # what enter does
        await loading(market)
        pane.dirty = True
        pane.flush()
        assert app.main.query_one(CandleChart).text() == old and "BTC-PERP" in str(pane.border_title)
        await settle(
            pilot,
            lambda: market.selected == "ETH-PERP" and not market.chart_loading and "ETH-PERP" in str(pane.border_title),
            what="the ETH chart",
        )
        assert marked(app) == last_close(app) != btc
        assert f"close {last_close(app)}" == pane.border_subtitle


async def test_the_chart_at_80x24_through_v(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed_ready(app)
        await pilot.press("v", "v")
        pane = app.main.query_one(ChartPane)
        await settle(pilot, lambda: pane.picture is not None and pane.picture.shown > 1, what="candles at 80x24")
        plot = app.main.query_one(CandleChart)
        assert len(plot.text()) == plot.size.height and all(len(t) == plot.size.width for t in plot.text())
        assert marked(app) == last_close(app)
        await pilot.press("plus", "right_square_bracket")
        await settle(pilot, lambda: "· 5m" in str(pane.border_title), what="5m at 80x24")
