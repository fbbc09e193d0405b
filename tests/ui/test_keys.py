"""Keys: the command palette runs the same actions, the help lists every binding, keys can be remapped."""

from __future__ import annotations

from decimal import Decimal

import pytest
from textual.command import CommandPalette
from textual.widgets import DataTable

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, palette_search, press_to_quit, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.help import HelpScreen
from tui.ui.screens.main import MainScreen
from tui.ui.screens.order_form import OrderFormScreen
from tui.ui.widgets.book_lines import BookLines
from tui.ui.widgets.key_table import KeyTable

ALICE = Signer(ALICE_KEY)


def test_every_binding_has_an_id_and_a_description() -> None:
    from tui.ui.app import XtuiApp

    for binding in [*XtuiApp.BINDINGS, *MainScreen.BINDINGS]:
        assert binding.id and binding.description and binding.tooltip, binding  # type: ignore[union-attr]


@pytest.mark.long
async def test_palette_lists_and_runs_the_dashboard_actions(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.account.summary is not None, what="the account")
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await palette_search(pilot, "sell at the best bid", "to sell at the best bid")
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form from the palette")
        assert app.screen.query_one("#form-title").render().plain.startswith("SELL")  # type: ignore[attr-defined]
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")


async def test_help_lists_bindings_with_the_remapped_keys(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE, keymap={"buy": "B", "sell": "S"})
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.account.summary is not None, what="the account")
        await pilot.press("b")  # remapped away: nothing opens
        await pilot.pause()  # the key handled: a binding would have pushed its form by now
        assert app.screen is app.main
        await pilot.press("B")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form on B")
        await pilot.press("escape", "question_mark")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        table = app.screen.query_one(KeyTable)
        rows = {ident: keys for keys, _, ident, _ in table.rows}
        assert rows["buy"] == "B" and rows["sell"] == "S" and rows["cancel_order"] == "x" and rows["quit"] == "q"
        # and so it reads on screen: the key first on the line that names the binding's id
        shown = [line.split() for line in table.text_lines()]
        assert any(words[0] == "B" and "buy" in words for words in shown)
        assert any(words[0] == "q" and "quit" in words for words in shown)
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")


async def test_markets_filter_takes_typing_and_enter_selects(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        table = app.main.query_one("#markets-table", DataTable)
        await pilot.press("slash", *"sol")  # "s" is sell elsewhere: in the filter it is a letter
        await settle(pilot, lambda: [str(k.value) for k in table.rows] == ["SOL-PERP"], what="SOL-PERP alone")
        assert app.screen is app.main
        await pilot.press("enter", "enter")
        await settle(pilot, lambda: app.feed.state.market.book.symbol == "SOL-PERP", what="SOL-PERP")
        await settle(pilot, lambda: app.feed.state.market.book.loaded, what="its book")
        await pilot.press("escape")  # clears the filter
        await settle(pilot, lambda: table.row_count == 7, what="every market")


async def test_book_cursor_picks_the_price_for_the_form(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        book = app.feed.state.market.book
        await settle(pilot, lambda: book.loaded and app.feed.state.account.summary, what="the book")
        lines = app.main.query_one("#book-table", BookLines)
        await pilot.press("2")  # the book: the cursor starts on the spread row
        await settle(pilot, lambda: app.main.focused is lines, what="the book focused")
        await pilot.press("down", "down")  # the second-best bid
        second_bid = book.levels("bids", 2)[1][0]
        await settle(pilot, lambda: app.main.desk.picked == second_bid, what="the second-best bid picked")
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the form")
        assert Decimal(app.screen.query_one("#price").value) == second_bid  # type: ignore[attr-defined]
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")

        # a click picks the price of the row clicked
        await pilot.click("#book-table", offset=(5, 3))
        await settle(pilot, lambda: str(lines.cursor_key).startswith("a"), what="an ask picked")
        key = lines.cursor_key
        assert key is not None and key.startswith("a")
        assert f"{app.main.desk.picked:,.1f}" == lines.cell(key, 0)
        assert f"picked {app.main.desk.picked:,.1f}" in str(app.main.query_one("#book").border_subtitle)

        # g groups the book by 10 ticks: every shown price is a multiple of 1.0
        await pilot.press("g")
        await settle(pilot, lambda: lines.cell("b0", 0).endswith(".0"), what="grouped prices")
        assert all(lines.cell(f"b{i}", 0).endswith(".0") for i in range(3))


async def test_chart_keys_switch_resolution_and_price(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        market = app.feed.state.market
        chart = app.main.query_one("#chart")
        await pilot.press("right_square_bracket", "right_square_bracket", "t")
        await settle(pilot, lambda: (market.resolution, market.chart_type) == ("15", "mark"), what="the chart")
        await settle(pilot, lambda: "mark · 15m" in str(chart.border_title), what="the chart title")
        await pilot.press("left_square_bracket")
        await settle(pilot, lambda: market.resolution == "5" and market.candles, what="5m candles")


@pytest.mark.parametrize("way", ["q", "ctrl+q", "palette"])
async def test_every_way_to_quit_asks_first_while_a_submission_is_in_flight(
    sim: LocalExchange, clock: FrozenClock, trader: Client, way: str
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        app.main.desk.in_flight = 1  # as while an order's worker awaits the exchange
        if way == "palette":  # the command palette's Quit, as a trader would find it
            await pilot.press("ctrl+p")
            await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
            await palette_search(pilot, "quit", "Quit")
            await pilot.press("enter")
        else:
            await pilot.press(way)
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        await pilot.press("enter")  # the default is No
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        assert app.is_running
        app.main.desk.in_flight = 0
        await press_to_quit(pilot, "q")
        await settle(pilot, lambda: not app.is_running, what="the exit")


async def test_a_key_typed_right_after_escape_is_not_lost(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Escape then b within the terminal's escape delay reach the app as the bytes ESC b, which the terminal
    parser reads as one key, alt+b (the event below is what it makes of them): the dialog closes and b
    opens the buy form, as the trader meant. A bound alt+ key keeps its binding."""
    from textual import events

    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await pilot.press("question_mark")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        app.post_message(events.Key("alt+b", "b"))
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the buy form")
        assert app.screen_stack[-2] is app.main  # the help was closed on the way


async def test_back_on_the_dashboard_its_screen_resumes_once(
    sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual calls the ScreenResume handler of every class of the screen that has one: MainScreen's calling
    Screen's too ran Textual's twice on every resume (focus, layout and a repaint of the whole screen, twice,
    each time a dialog closed). The first resume does not restyle: the screen was styled as it mounted."""
    from textual.screen import Screen

    resumes: list[bool] = []
    # private: a handler run twice for one event shows in no message; Textual's own handler is counted
    textual_resume = Screen._on_screen_resume

    def counted(screen: Screen[object], event: object) -> None:
        if isinstance(screen, MainScreen):
            resumes.append(event.refresh_styles)  # type: ignore[attr-defined]
        textual_resume(screen, event)  # type: ignore[arg-type]

    monkeypatch.setattr(Screen, "_on_screen_resume", counted)  # private: as above
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        assert resumes == [False]  # shown once, not restyled
        for _ in range(2):
            await pilot.press("question_mark")
            await settle(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
            await pilot.press("escape")
            await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        await pilot.pause()  # every message the closing help sent the dashboard, handled
        assert len(resumes) == 3  # once per time it was shown


async def test_a_key_typed_before_the_dashboard_has_mounted_is_handled_once_it_has(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """The feed can be ready before every pane has mounted, and a key typed then was sometimes lost (the snapshot
    tests under load: G pressed, no agents screen, 3 times in ~15 runs; none in 10 since). Here the key is in the
    app's queue before it starts, so it comes while the main screen still mounts: it is held, and handled once
    the screen is up. (Whether the key was lost without the hold depended on timing: this checks the hold.)"""
    from textual import events

    from tui.ui.screens.data_screen import DataScreen

    app = dashboard(trader, sim, clock, ALICE)
    app.post_message(events.Key("G", "G"))
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: isinstance(app.screen, DataScreen), what="the agents screen")


async def test_focus_starts_on_the_markets_list_and_nowhere_else(
    sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's default first focus is the first focusable widget: the market filter, hidden until `/`. It took
    the focus, then on_mount gave it to the list, and both were restyled as the dashboard started."""
    from textual.screen import Screen

    focused: list[str | None] = []
    textual_set_focus = Screen.set_focus

    def recorded(screen: Screen[object], widget: object, *args: object, **kwargs: object) -> None:
        if isinstance(screen, MainScreen):
            focused.append(getattr(widget, "id", None))
        textual_set_focus(screen, widget, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Screen, "set_focus", recorded)
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: focused, what="the first focus")
        assert focused == ["markets-table"] and app.main.focused is app.main.query_one("#markets-table")
