"""The watchlist from the keyboard: * on the markets pane, w to see it, a to add (a wrong name refused), shift+arrows
to reorder, d to remove, Enter to show an instrument on the dashboard; kept across a restart; a bad file is moved
aside and said."""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path

import pytest
from textual.command import CommandPalette

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard, feed_ready, palette_search, settle
from tests.ui.screen_steps import cells, error_of, fill_form, show, until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.feed.watchlist import watchlist_path
from tui.paths import data_dir
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.form import FormScreen
from tui.ui.screens.watchlist import SPARK_HOURS, WatchlistScreen, sparkline
from tui.ui.widgets.display import fmt_price
from tui.ui.widgets.record_table import RecordTable

ALICE = Signer(ALICE_KEY)


def test_sparkline_heights() -> None:
    assert sparkline([D(1), D(2), D(3), D(4), D(5), D(6), D(7), D(8)]) == "▁▂▃▄▅▆▇█"
    assert sparkline([D(5), D(1), D(9)]) == "▅▁█"
    assert sparkline([D(3), D(3)]) == "▄▄" and sparkline([]) == ""


async def test_watch_reorder_remove_and_show(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE, read_only=True)  # the watchlist sends nothing: read-only has it
    notes = Seen()
    async with app.run_test(size=(140, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        market = app.feed.state.market
        await settle(pilot, lambda: {"BTC-PERP", "ETH-PERP"} <= set(market.tickers), what="the tickers")
        await pilot.press("asterisk", "down", "asterisk")  # the markets pane: its first two rows
        assert app.watchlist.symbols == ["BTC-PERP", "ETH-PERP"]
        assert "ETH-PERP added to the watchlist (w shows it)" in notes.messages

        screen = await show(pilot, notes, "w", WatchlistScreen)
        table = screen.query_one("#watchlist-table", RecordTable)
        await until(pilot, lambda: len(screen.sparks) == 2, "the sparklines")
        screen.show()
        [btc, eth] = cells(table)
        ticker, info = market.tickers["BTC-PERP"], market.instruments["BTC-PERP"]
        assert btc[:2] == ["BTC-PERP", fmt_price(ticker.last_price, info.tick_size)]
        assert btc[2][0] in "▲▼" and btc[3].endswith("%/1h") and eth[0] == "ETH-PERP"
        assert len(btc[4]) == SPARK_HOURS * 4 and set(btc[4]) <= set("▁▂▃▄▅▆▇█")  # 15-minute candles

        form = await fill_form(pilot, "a", {"symbol": "nope"})
        await pilot.press("enter")
        await until(pilot, lambda: "NOPE is not an instrument" in error_of(form), "NOPE refused")
        assert app.screen is form
        form.query_one("#field-symbol").value = "eth-perp"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await until(pilot, lambda: "ETH-PERP is already in the watchlist" in error_of(form), "ETH-PERP refused")
        assert app.screen is form
        form.query_one("#field-symbol").value = "sol-perp"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, FormScreen) and table.row_count == 3, "SOL listed")
        assert [r[0] for r in cells(table)] == ["BTC-PERP", "ETH-PERP", "SOL-PERP"]

        await pilot.press("down", "down", "shift+up", "shift+up")  # SOL to the top
        assert app.watchlist.symbols == ["SOL-PERP", "BTC-PERP", "ETH-PERP"]
        assert [r[0] for r in cells(table)] == app.watchlist.symbols and table.cursor_row == 0
        await pilot.press("shift+up")  # already at the top: nothing moves
        await pilot.press("down", "d")  # BTC off the list
        assert app.watchlist.symbols == ["SOL-PERP", "ETH-PERP"]
        assert [r[0] for r in cells(table)] == ["SOL-PERP", "ETH-PERP"]

        await pilot.press("down", "enter")  # ETH on the dashboard, the watchlist closed
        await until(pilot, lambda: app.screen is app.main and market.selected == "ETH-PERP", "ETH on the dashboard")
        await settle(pilot, lambda: market.book.loaded, what="ETH's book")

    again = dashboard(trader, sim, clock, ALICE)  # a restart: the same profile reads the same file
    assert again.watchlist.symbols == ["SOL-PERP", "ETH-PERP"] and not again.watchlist.problem


@pytest.mark.long
async def test_the_palette_watches_the_selected_market(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: "BTC-PERP" in app.feed.state.market.tickers, what="the tickers")
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await palette_search(pilot, "add the selected market to the watchlist", "Add the selected market")
        await pilot.press("enter")
        await until(pilot, lambda: app.watchlist.symbols == ["BTC-PERP"], "BTC watched from the palette")


async def test_a_bad_watchlist_file_is_kept_aside_and_said(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    path = watchlist_path(data_dir(), "LOCAL")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"symbols": ["BTC-PERP",')
    app = dashboard(trader, sim, clock, ALICE)
    notes = Seen()
    async with app.run_test(size=(120, 30), message_hook=notes) as pilot:
        await feed_ready(app)
        await until(pilot, lambda: any("could not be read" in m for m in notes.messages), "the notice")
        screen = await show(pilot, notes, "w", WatchlistScreen)
        note = str(screen.query_one("#watchlist-note").render())
        assert "could not be read" in note and ".bad-" in note
    [aside] = Path(path.parent).glob("watchlist-local.json.bad-*")
    assert aside.read_text() == '{"symbols": ["BTC-PERP",'
