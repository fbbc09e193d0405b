"""The chart's indicators as a trader chooses them: i steps through none, each alone and all; the palette turns
each on or off; the choice is the profile's, kept on disk, and the next start draws the same."""

from __future__ import annotations

from textual.command import CommandPalette

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, palette_search, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.feed.indicator_choice import IndicatorChoice
from tui.feed.indicators import INDICATORS
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.widgets.chart import CandleChart, ChartPane

ALICE = Signer(ALICE_KEY)


async def test_i_steps_the_indicators_the_palette_toggles_one_and_the_profile_keeps_them(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        pane, plot = app.main.query_one(ChartPane), app.main.query_one(CandleChart)
        await settle(pilot, lambda: pane.picture is not None and pane.picture.shown > 1, what="the candles")
        await pilot.press("i")
        await settle(pilot, lambda: "SMA20" in plot.text()[-1], what="SMA in the legend")
        assert pane.indicators == ("sma",) and "SMA50" in plot.text()[-1]
        for _ in INDICATORS:
            await pilot.press("i")
        await settle(pilot, lambda: pane.indicators == INDICATORS, what="all of them")
        await settle(pilot, lambda: any(" RSI14 " in line for line in plot.text()), what="the RSI pane")
        path = app.session.indicators.file.path
        assert IndicatorChoice.load(path).chosen == INDICATORS
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await palette_search(pilot, "indicator rsi", "Chart indicator RSI 14")
        await pilot.press("enter")
        await settle(pilot, lambda: pane.indicators == tuple(n for n in INDICATORS if n != "rsi"), what="RSI off")
        await settle(pilot, lambda: not any(" RSI14 " in line for line in plot.text()), what="the RSI pane gone")
        assert IndicatorChoice.load(path).chosen == pane.indicators
    again = dashboard(trader, sim, clock, ALICE)  # the next start of the profile
    async with again.run_test(size=(160, 48)) as pilot:
        await feed_ready(again)
        assert again.main.query_one(ChartPane).indicators == tuple(n for n in INDICATORS if n != "rsi")


async def test_the_profiles_periods_are_drawn_named_and_offered(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A profile with chart_ma_periods = [9, 21, 50] and chart_rsi_period = 7: the legend names SMA9, SMA21 and
    SMA50 and the RSI pane RSI7, each at the value computed from the candles shown; the palette offers "SMA 9, 21
    and 50"."""
    app = dashboard(trader, sim, clock, ALICE, chart_ma_periods=(9, 21, 50), chart_rsi_period=7)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        pane, plot = app.main.query_one(ChartPane), app.main.query_one(CandleChart)
        await settle(pilot, lambda: pane.picture is not None and pane.picture.shown > 1, what="the candles")
        for _ in range(len(INDICATORS) + 1):  # none, each alone, then all
            await pilot.press("i")
        await settle(pilot, lambda: pane.indicators == INDICATORS, what="all of them")
        await settle(pilot, lambda: any(" RSI7 " in line for line in plot.text()), what="the RSI pane")
        legend = plot.text()[-1]
        assert all(f"SMA{p}" in legend for p in (9, 21, 50)) and "SMA20" not in legend
        assert set(pane.tracker.values) == {"SMA9", "SMA21", "SMA50", "EMA9", "EMA21", "EMA50", "VWAP", "RSI7"}
        closes = [c.close for c in app.feed.state.market.candles]
        assert pane.tracker.values["SMA9"][-1] == sum(closes[-9:]) / 9  # the live candle's, from the last nine
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await palette_search(pilot, "indicator sma", "Chart indicator SMA 9, 21 and 50")
