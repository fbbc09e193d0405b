"""Findable: the help filters as you type, the palette lists xtui's commands only, the markets filter says
when nothing matches and Enter takes the first match."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import DataTable

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, palette_search, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.help import HelpScreen
from tui.ui.widgets.key_table import KeyTable

ALICE = Signer(ALICE_KEY)


async def test_help_filters_as_you_type_and_escape_clears_then_closes(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await pilot.press("question_mark")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        table = app.screen.query_one(KeyTable)
        every = len(table.rows)
        await pilot.press("slash", "q", "u")  # q closes the help elsewhere: in the filter it is a letter
        await settle(pilot, lambda: 0 < len(table.shown) < every, what="the rows matching 'qu'")
        assert isinstance(app.screen, HelpScreen)
        assert all("qu" in " ".join(row).lower() for row in table.shown)
        assert not any("qu" in " ".join(row).lower() for row in table.rows if row not in table.shown)
        # on screen: each line that names a binding names one that matches
        ids = {ident for _, _, ident, _ in table.shown}
        named = [line.split()[-2] for line in table.text_lines()[1:] if len(line.split()) > 2 and line[1] != " "]
        assert named and set(named) <= ids and "quit" in ids
        await pilot.press("x", "y", "z")
        await settle(pilot, lambda: not table.shown, what="no row")
        assert "no match" in table.text_lines()[1]
        await pilot.press("escape")  # clears the filter; the help stays
        await settle(pilot, lambda: len(table.shown) == every, what="every row again")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")


async def test_the_palette_offers_xtuis_guarded_quit_only(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        app.main.desk.in_flight = 1  # as while an order's worker awaits the exchange: q asks first
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        listed = await palette_search(pilot, "quit", "Quit")
        assert listed == ["Quit (asks first while an order is being sent)"], listed
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question q asks")
        await pilot.press("enter")  # the default is No
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        assert app.is_running
        # none of Textual's own commands is offered (its titles, as Textual 8 names them)
        textual = ("Keys", "Maximize", "Screenshot", "Theme", "Quit the application")
        for words in ("keys", "maximize", "screenshot", "theme"):
            await pilot.press("ctrl+p")
            await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
            listed = await palette_search(pilot, words, None)  # None: whatever it ends with
            assert not [c for c in listed if c.startswith(textual)], (words, listed)
            await pilot.press("escape")
            await settle(pilot, lambda: app.screen is app.main, what="the dashboard")


async def test_markets_filter_says_no_match_and_enter_takes_the_first(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        pane = app.main.query_one("#markets")
        table = app.main.query_one("#markets-table", DataTable)
        await pilot.press("slash", *"zzz")
        await settle(pilot, lambda: table.row_count == 0, what="no row")
        await settle(pilot, lambda: "no match" in str(pane.border_subtitle), what="'no match'")
        await pilot.press("enter")  # nothing to take: the filter stays to be corrected
        await pilot.pause()
        assert app.feed.state.market.selected != "ETH-PERP" and pane.has_class("-filtering")
        await pilot.press(*["backspace"] * 3, *"eth")
        await settle(pilot, lambda: table.row_count > 1, what="the ETH markets")
        assert "no match" not in str(pane.border_subtitle)
        await pilot.press("enter")
        await settle(pilot, lambda: app.feed.state.market.selected == "ETH-PERP", what="ETH-PERP")
        await settle(pilot, lambda: app.feed.state.market.book.symbol == "ETH-PERP", what="its book")
