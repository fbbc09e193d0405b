"""Nothing fabricated: a figure not known yet is `—`, never 0; a chart of one point (or one day) is drawn and
labelled sanely, its axis in money."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Static
from textual_plotext import PlotextPlot

from tests.conftest import ALICE_KEY, client_for
from tests.ui.conftest import dashboard, feed_ready, settle
from tui.api.client import Client
from tui.api.models import AccountHistoryPoint
from tui.api.signing import Signer
from tui.feed.journal import Journal, Totals
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.account_chart import draw_history
from tui.ui.screens.journal import draw_journal
from tui.ui.widgets.markets import MarketsPane
from tui.ui.widgets.money_axis import money_axis

ALICE = Signer(ALICE_KEY)


def market_row(app: Any, symbol: str) -> list[str]:
    table = app.main.query_one(MarketsPane).table
    return [str(c).strip() for c in table.get_row(symbol)]


async def test_a_market_with_no_trade_yet_shows_dashes_not_zeros(sim: LocalExchange, clock: FrozenClock) -> None:
    """A fresh exchange whose clock has not moved: no trade yet, so its tickers say last 0, volume 0, open
    interest 0. The markets pane shows `—` for each of those (never 0), the mark it knows, and `-` only where
    a figure does not apply (a spot pair's funding and OI)."""
    async with client_for(sim, ALICE_KEY, clock) as client:
        app = dashboard(client, sim, clock, ALICE)
        async with app.run_test(size=(160, 48)) as pilot:
            await feed_ready(app)
            market = app.feed.state.market
            await settle(pilot, lambda: {"BTC-PERP", "BTC/USDC"} <= set(market.tickers), what="the tickers")
            btc = market.tickers["BTC-PERP"]
            assert (btc.last_price, btc.volume_24h, btc.open_interest) == (0, 0, 0)  # as the exchange says it
            await settle(pilot, lambda: market_row(app, "BTC/USDC")[1:2] == ["—"], what="the rows drawn")
            _, last, mark, _, volume, _, oi = market_row(app, "BTC-PERP")
            assert (last, volume, oi) == ("—", "—", "—") and mark == f"{btc.mark_price:,.1f}"
            _, last, mark, _, volume, funding, oi = market_row(app, "BTC/USDC")
            assert (last, volume, funding, oi) == ("—", "—", "-", "-")


class PlotApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PlotextPlot()


def drawn_text(plot: PlotextPlot) -> str:
    rendered = plot.render()
    return rendered.plain if isinstance(rendered, Text) else re.sub(r"\x1b\[[0-9;]*m", "", str(rendered))


async def test_an_account_chart_of_one_point_is_a_point_on_a_money_axis() -> None:
    """One point of account history (185,251.40): a marker, and axis labels in money around it
    (185,25x.xx), not a zero-height axis labelled with a raw float (185251.4)."""
    point = AccountHistoryPoint(
        "0x" + "ab" * 20, Decimal("12.5"), Decimal(1000), Decimal("185251.40"), "2026-01-01T00:00:00.000Z"
    )
    app = PlotApp()
    async with app.run_test(size=(100, 24)) as pilot:
        plot = app.query_one(PlotextPlot)
        draw_history(plot, [point], app)
        await pilot.pause()
        text = drawn_text(plot)
    assert "185251.4" not in text
    labels = re.findall(r"\d{3},\d{3}\.\d\d", text)
    assert "185,251.40" in labels and len(labels) >= 3
    assert all(Decimal("185000") < Decimal(x.replace(",", "")) < Decimal("185500") for x in labels)


def test_the_money_axis_of_one_value_or_of_zero_has_room() -> None:
    one = money_axis([Decimal("185251.40")])
    assert one.lower < Decimal("185251.40") < one.upper and one.labels[2] == "185,251.40"
    zero = money_axis([Decimal(0)])
    assert (zero.lower, zero.upper) == (Decimal(-1), Decimal(1))
    day = money_axis([Decimal("-12.5"), Decimal("-12.5")], include_zero=True)
    assert day.lower < Decimal("-12.5") and day.upper > 0


async def test_a_journal_of_one_day_is_a_bar_not_a_block() -> None:
    """One day of net PnL (+40): the bar is one day wide among a week's room, not the chart's whole width."""
    day = Totals(fills=2, volume=Decimal(1000), realized=Decimal(41), fees=Decimal(1), funding=Decimal(0))
    journal = Journal(by_day={dt.date(2026, 1, 1): day}, by_instrument={"BTC-PERP": day}, total=day)
    app = PlotApp()
    async with app.run_test(size=(100, 24)) as pilot:
        plot = app.query_one(PlotextPlot)
        draw_journal(plot, journal, app, 30)
        await pilot.pause()
        text = drawn_text(plot)
    widest = max(len(run) for line in text.splitlines() for run in re.findall(r"█+", line))
    assert widest <= 100 // 6


def bar_text(app: Any) -> str:
    return str(app.main.query_one("#account", Static).render())


async def test_a_vault_deposit_leaves_the_equity_where_it_was(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Alice deposits 1,000 USDC in a vault while the dashboard watches: the account bar's equity stays what it
    was (it used to fall by the 1,000), and its split says where the money is (`+ vaults 1,000.00`)."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(200, 48)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: account.summary is not None, what="the summary")
        assert account.summary is not None
        before = account.summary.total_account_equity
        vault = (await trader.vaults()).vaults[0].vault_address
        await trader.vault_deposit(vault, Decimal(1000))
        await app.feed.refresh_account()
        await settle(pilot, lambda: "+ vaults 1,000.00" in bar_text(app), what="the vault in the bar")
        assert account.summary.total_account_equity == before
        assert bar_text(app).startswith(f"Equity {before:,.2f} = perps ")
