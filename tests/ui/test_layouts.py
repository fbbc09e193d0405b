"""Layouts on the dashboard: Y switches to a saved layout of several markets (each pane following its own instrument,
loaded and kept live by its own channels) and back; b opens the order form on the focused pane's instrument, which
its title names; the palette saves the layout shown under a name and lays out markets side by side; a terminal too
small for a layout says what it needs; a bad layouts file is set aside with a notice."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.widgets import Input, Static

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Notes, dashboard, feed_ready, noted, palette_search, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.feed.layouts import LayoutBook, default_layout, layouts_path
from tui.paths import data_dir
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.layout_screen import LayoutScreen
from tui.ui.screens.order_form import OrderFormScreen, fmt_plain
from tui.ui.screens.prompt import PromptScreen
from tui.ui.widgets.book import OrderBookPane
from tui.ui.widgets.chart import ChartPane
from tui.ui.widgets.display import fmt_price
from tui.ui.widgets.ticker_pane import TickerPane

ALICE = Signer(ALICE_KEY)

TWO_MARKETS = {
    "name": "two markets",
    "columns": ["1fr", "1fr"],
    "rows": [4, "1fr", "1fr", 6],
    "panes": [
        {"pane": "ticker", "row": 0, "col": 0, "instrument": "BTC-PERP"},
        {"pane": "ticker", "row": 0, "col": 1, "instrument": "ETH-PERP"},
        {"pane": "chart", "row": 1, "col": 0, "instrument": "BTC-PERP"},
        {"pane": "chart", "row": 1, "col": 1, "instrument": "ETH-PERP"},
        {"pane": "book", "row": 2, "col": 0, "instrument": "BTC-PERP"},
        {"pane": "book", "row": 2, "col": 1, "instrument": "ETH-PERP"},
        {"pane": "positions", "row": 3, "col": 0, "cols": 2},
    ],
}


def write_layouts(*layouts: dict[str, Any]) -> None:
    path = layouts_path(data_dir(), "LOCAL")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"layouts": list(layouts)}))


async def test_two_markets_follow_their_own_instruments_and_the_form_names_the_focused_one(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A saved two-market layout at 160x48: Y shows it, each chart and book loads its own instrument (ETH's is not
    the selected one), the market moving moves both; Tab to ETH's chart and b opens the form titled BUY ETH-PERP;
    Escape (and Y past the last layout) comes back to the dashboard, and the side channels end."""
    write_layouts(TWO_MARKETS)
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (160, 48)) as (pilot, notes):
        assert app.feed.state.market.selected == "BTC-PERP"
        subs_before = app.feed.state.status.subscriptions
        await pilot.press("Y")
        await settle(pilot, lambda: isinstance(app.screen, LayoutScreen), what="the layout")
        screen = app.screen
        assert isinstance(screen, LayoutScreen)
        charts = list(screen.query(ChartPane))
        books = list(screen.query(OrderBookPane))
        assert [c.state.market.selected for c in charts] == ["BTC-PERP", "ETH-PERP"]
        await settle(pilot, lambda: all(b.state.market.book.loaded for b in books), what="both books")
        await settle(pilot, lambda: all(c.state.market.candles for c in charts), what="both charts")
        eth = charts[1]
        assert "ETH-PERP" in str(eth.border_title) and "ETH-PERP" in str(books[1].border_title)
        seq = books[1].state.market.book.sequence
        candles = eth.state.market.candles[-1]
        for _ in range(20):
            sim.step(250)
        await settle(pilot, lambda: books[1].state.market.book.sequence > seq, what="ETH's book moving")
        await settle(pilot, lambda: eth.state.market.candles[-1] != candles, what="ETH's candle moving")
        assert app.feed.state.status.subscriptions > subs_before  # ETH's channels, held by the layout

        eth.focus()
        await pilot.pause()
        assert "b/s trade ETH-PERP" in str(screen.query_one("#layout-bar").render())
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the order form")
        assert "BUY ETH-PERP" in str(app.screen.query_one("#form-title").render())
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is screen, what="back on the layout")

        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        await settle(pilot, lambda: app.feed.state.status.subscriptions == subs_before, what="ETH's channels ended")
        assert notes.messages == []  # the layout's bar names it


@pytest.mark.long
async def test_palette_lays_out_markets_side_by_side_and_saves_it(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """At 120x30 with ETH and SOL on the watchlist: the palette's 'markets side by side' shows BTC, ETH and SOL a
    column each (ticker, chart, book); 'save the current one' under a name writes it to the profile's layouts file,
    and Y then cycles to it; the tickers show each instrument's own last price."""
    app = dashboard(trader, sim, clock, ALICE, read_only=True)
    app.watchlist.symbols = ["ETH-PERP", "SOL-PERP"]
    notes = Notes()
    async with app.run_test(size=(120, 30), message_hook=notes) as pilot:
        await feed_ready(app)
        market = app.feed.state.market
        await settle(pilot, lambda: {"BTC-PERP", "ETH-PERP", "SOL-PERP"} <= set(market.tickers), what="tickers")
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await palette_search(pilot, "side by side", "Layout: markets side by side")
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, LayoutScreen), what="the layout")
        screen = app.screen
        assert isinstance(screen, LayoutScreen) and not screen.has_class("-small")
        tickers = list(screen.query(TickerPane))
        assert [t.symbol for t in tickers] == ["BTC-PERP", "ETH-PERP", "SOL-PERP"]
        # three books loaded from /info: on a machine as busy as CI beside an exchange at 50x, 10 s was short
        books = lambda: all(b.state.market.book.loaded for b in screen.query(OrderBookPane))  # noqa: E731
        await settle(pilot, books, timeout_s=30, what="books")
        for t in tickers:
            shown = str(t.query_one(Static).render())
            assert t.symbol is not None and f"Ticker {t.symbol}" == t.border_title
            info = market.instruments[t.symbol]
            assert f"last {fmt_price(market.tickers[t.symbol].last_price, info.tick_size)}" in shown

        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await palette_search(pilot, "save the current", "Layout: save the current one")
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, PromptScreen), what="the name prompt")
        await pilot.press(*"three alts", "enter")
        await settle(pilot, lambda: app.screen is screen, what="back on the layout")
        path = layouts_path(data_dir(), "LOCAL")
        assert any(f"Layout 'three alts' saved in {path}" in m for m in notes.messages)
        kept = LayoutBook.load(path)
        assert kept.problem == "" and kept.names() == ["three alts"]
        assert kept.layouts[0].instruments == ["BTC-PERP", "ETH-PERP", "SOL-PERP"]

        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        await pilot.press("Y")
        await settle(pilot, lambda: isinstance(app.screen, LayoutScreen), what="the saved layout")
        assert app.screen.plan.name == "three alts"  # type: ignore[attr-defined]


async def test_a_terminal_too_small_says_what_the_layout_needs(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """At 80x24 the two-market layout shows no squeezed panes but what it needs (its size, its tracks) and what to
    do; grown to 160x48 it draws its panes; read-only, b says why it does nothing; Y past the last layout is the
    dashboard again."""
    write_layouts(TWO_MARKETS)
    app = dashboard(trader, sim, clock, ALICE, read_only=True)
    async with noted(app, (80, 24)) as (pilot, notes):
        await pilot.press("Y")
        await settle(pilot, lambda: isinstance(app.screen, LayoutScreen), what="the layout")
        screen = app.screen
        assert isinstance(screen, LayoutScreen)
        await settle(pilot, lambda: screen.has_class("-small"), what="the size notice")
        said = str(screen.query_one("#layout-small", Static).render())
        assert "needs a terminal of at least 48x28 for 2 markets side by side" in said  # 4+7+7+6 lines, and 4
        assert "this one is 80x24" in said and "Escape for the dashboard" in said
        assert not screen.query_one("#layout-grid").display
        await pilot.resize_terminal(160, 48)
        await settle(pilot, lambda: not screen.has_class("-small"), what="the panes")
        await pilot.press("b")
        await settle(pilot, lambda: any("read-only: trading is disabled" in m for m in notes.messages), what="why")
        assert app.screen is screen
        await pilot.press("Y")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")


async def test_a_bad_layouts_file_is_set_aside_with_a_notice(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """A layouts file naming a pane xtui does not have: the dashboard starts, says the file was set aside and where,
    and Y says there is no saved layout yet (nothing of the file was lost: it is kept beside)."""
    write_layouts({**TWO_MARKETS, "panes": [{"pane": "heatmap-3d", "row": 0, "col": 0}]})
    path = layouts_path(data_dir(), "LOCAL")
    app = dashboard(trader, sim, clock, ALICE, read_only=True)
    async with noted(app, (120, 30)) as (pilot, notes):
        await settle(pilot, lambda: any("kept as" in m for m in notes.messages), what="the notice")
        [said] = [m for m in notes.messages if "kept as" in m]
        [aside] = path.parent.glob(path.name + ".bad-*")
        assert f"{path} could not be read" in said and "unknown pane 'heatmap-3d'" in said and str(aside) in said
        await pilot.press("Y")
        await settle(pilot, lambda: any("No saved layout yet" in m for m in notes.messages), what="no layout")
        assert app.screen is app.main and not path.exists()


async def test_an_order_from_a_layout_goes_to_the_focused_instrument_through_the_guards(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """On the two-market layout with max_order_notional 500 USDC and BTC selected on the dashboard: b on ETH's book
    opens BUY ETH-PERP at ETH's best ask; 0.2 ETH (~700 USDC) is refused under the form naming the limit, 0.1 (~350)
    goes, and the exchange holds one ETH order and no BTC one."""
    write_layouts(TWO_MARKETS)
    app = dashboard(trader, sim, clock, ALICE, max_order_notional=Decimal(500))
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await pilot.press("Y")
        await settle(pilot, lambda: isinstance(app.screen, LayoutScreen), what="the layout")
        screen = app.screen
        eth_book = list(screen.query(OrderBookPane))[1]
        await settle(pilot, lambda: eth_book.state.market.book.loaded, what="ETH's book")
        eth_book.view.focus()
        await pilot.pause()
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the order form")
        form = app.screen
        assert "BUY ETH-PERP" in str(form.query_one("#form-title").render())
        market = app.feed.state.market
        assert market.selected == "BTC-PERP"
        ask = market.tickers["ETH-PERP"].best_ask_price
        assert form.query_one("#price", Input).value == fmt_plain(ask)
        form.query_one("#price", Input).value = "3400"  # under the market: it rests
        await pilot.click("#size")
        await pilot.press(*"0.2", "enter")
        error = form.query_one("#err-send", Static)
        await settle(pilot, lambda: "max_order_notional 500 USDC" in str(error.render()), what="the refusal")
        form.query_one("#size", Input).value = "0.1"
        await pilot.press("enter")
        orders = app.feed.state.account.open_orders
        await settle(pilot, lambda: [o.instrument for o in orders] == ["ETH-PERP"], what="the ETH order")
        await settle(pilot, lambda: app.screen is screen, what="back on the layout")
    [order] = (await trader.open_orders(ALICE.address)).data
    assert (order.instrument, order.size, order.limit_price) == ("ETH-PERP", Decimal("0.1"), Decimal(3400))


async def test_another_instruments_book_goes_stale_when_the_socket_drops_and_is_the_exchanges_after(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """The two-market layout, then the exchange drops every socket and refuses new ones: ETH's book (not the
    selected instrument) is shown stale; a bid placed on ETH meanwhile is missed; once reconnects are allowed, ETH's
    book is the exchange's again, the bid in it, and no longer stale."""
    write_layouts(TWO_MARKETS)
    fast = {"ws_options": {"backoff_min": 0.05, "backoff_max": 0.2}, "poll_s": 0.3}
    app = dashboard(trader, sim, clock, ALICE, read_only=True, feed_options=fast)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await pilot.press("Y")
        await settle(pilot, lambda: isinstance(app.screen, LayoutScreen), what="the layout")
        eth = list(app.screen.query(OrderBookPane))[1]
        book = eth.state.market.book
        await settle(pilot, lambda: book.loaded and book.symbol == "ETH-PERP", what="ETH's book")
        status = app.feed.state.status

        sim.limiter.limits.ws_connections = 0
        for conn in list(sim.hub.connections):
            await conn.ws.close()
        await settle(pilot, lambda: status.connection in ("reconnecting", "polling"), what="the drop")
        await settle(pilot, lambda: book.stale and "resyncing" in str(eth.border_subtitle), what="ETH's book stale")
        await trader.place_order([order_item(2, "b", "3450.05", "0.5")])
        assert book.size_at("bids", Decimal("3450.05")) == 0

        sim.limiter.limits.ws_connections = 100
        await settle(pilot, lambda: status.connection == "live", what="the reconnect")
        await settle(pilot, lambda: not book.stale, what="ETH's book reloaded")
        info = await trader.orderbook("ETH-PERP", depth=20)
        want = [(lv.price, lv.size) for lv in info.bids]
        await settle(pilot, lambda: book.levels("bids", 20) == want, what="ETH's book as the exchange's")
        assert book.size_at("bids", Decimal("3450.05")) >= Decimal("0.5")


@pytest.mark.long
async def test_saving_on_the_dashboard_keeps_its_own_layout_at_this_size(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """On the dashboard at 120x30, the palette's save under "mine": the file holds the dashboard's own layout at
    that size (markets, book, positions, orders; no instrument named: they follow the selection); Y shows it, its
    book on the selected instrument; a name with an escape sequence is refused and nothing is written."""
    app = dashboard(trader, sim, clock, ALICE, read_only=True)
    async with noted(app, (120, 30)) as (pilot, notes):
        path = layouts_path(data_dir(), "LOCAL")
        for name in ("bad\x1bname", "mine"):
            await pilot.press("ctrl+p")
            await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
            await palette_search(pilot, "save the current", "Layout: save the current one")
            await pilot.press("enter")
            await settle(pilot, lambda: isinstance(app.screen, PromptScreen), what="the name prompt")
            app.screen.query_one(Input).value = name
            await pilot.press("enter")
            await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
            if name != "mine":
                await settle(pilot, lambda: any("Layout not saved" in m for m in notes.messages), what="refused")
                assert "is not a layout name" in notes.messages[-1] and not path.exists()
        [mine] = LayoutBook.load(path).layouts
        assert mine == default_layout(120, 30).with_name("mine") and mine.instruments == []
        await pilot.press("Y")
        await settle(pilot, lambda: isinstance(app.screen, LayoutScreen), what="the saved layout")
        [book] = app.screen.query(OrderBookPane)
        assert book.state is app.feed.state  # the selected instrument's book, not another's
