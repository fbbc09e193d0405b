"""The app takes a session whole and reads no file as it is made; it can take another session: the dashboard then
shows the other account, and a TWAP started in the first session runs on in it until the dashboard quits."""

from __future__ import annotations

import sys
from decimal import Decimal
from typing import Any

from tests.conftest import ALICE_KEY, BOB_KEY, QUIET_WS
from tests.ui.conftest import dashboard, feed_ready, press_to_quit, settle
from tests.ui.screen_steps import until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading.twap import TwapSpec
from tui.ui.app import XtuiApp
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.session import open_session
from tui.ui.themes import xtui_themes
from tui.ui.widgets.display import short_address
from tui.ui.widgets.header import ProfileHeader

ALICE = Signer(ALICE_KEY)
BOB = Signer(BOB_KEY)

OPENED: list[str] | None = None  # while a list, the paths opened are noted in it (an audit hook stays for good)


def _note_opens(event: str, args: tuple[Any, ...]) -> None:
    """Files opened, but for Python's own imports (Textual imports some modules as an app is made)."""
    if OPENED is not None and event == "open" and not str(args[0]).endswith((".py", ".pyc")):
        OPENED.append(str(args[0]))


sys.addaudithook(_note_opens)


def test_the_app_reads_no_file_as_it_is_made() -> None:
    """The session reads the account's stores (a watchlist and an alert file are there), the themes are read
    before too; making the app then opens no file at all."""
    global OPENED
    client = Client("http://127.0.0.1:9")  # nobody serves: nothing is asked of it here
    session = open_session(client, "ws://127.0.0.1:9/ws/", ALICE, feed_options={"ws_options": QUIET_WS})
    session.watchlist.add("ETH-PERP")
    assert session.watchlist.path.exists()
    themes = xtui_themes()
    OPENED = []
    try:
        app = XtuiApp(session, themes=themes)
    finally:
        opened, OPENED = OPENED, None
    assert opened == [], opened
    assert app.watchlist.symbols == ["ETH-PERP"] and app.context.watchlist is session.watchlist
    assert app.twaps is session.twaps is app.context.twaps and app.twaps is not None


async def test_a_switch_shows_the_other_account_and_the_running_twap_keeps_its_session(
    sim: LocalExchange, clock: FrozenClock, trader: Client, bob: Client
) -> None:
    """Alice's dashboard with a TWAP running (a slice an hour), then Bob's session, watch-only, taken whole: the
    header names Bob's account and says watch-only, the feed is Bob's, Alice's feed has stopped and her main screen
    is gone; the TWAP runs on with Alice's client, and q asks about it, then cancels it on the way out."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(140, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.market.book.loaded, what="the book")
        alice_runner, alice_feed, alice_main = app.twaps, app.feed, app.main
        assert alice_runner is not None
        twap = alice_runner.start(TwapSpec("BTC-PERP", "buy", Decimal("0.02"), 4, 3600.0))
        await until(pilot, lambda: twap.sent == 1, "the first slice")

        bobs = open_session(
            bob,
            sim.ws_url,
            None,
            account=BOB.address,
            wall_clock=lambda: clock.now_ms() / 1000,
            feed_options={"poll_s": 0.5, "ws_options": QUIET_WS},
        )
        await app.switch_session(bobs)
        await feed_ready(app)
        header = app.main.query_one(ProfileHeader)
        await settle(pilot, lambda: short_address(BOB.address) in str(header.render()), what="Bob's account")
        assert "watch-only" in str(header.render()) and short_address(ALICE.address) not in str(header.render())
        assert app.feed is bobs.feed and app.context.account == BOB.address and app.twaps is None
        assert alice_feed.state.status.connection == "closed"
        assert app.screen_stack == [app.main] and not alice_main.is_attached  # replaced whole, not hidden
        assert twap.state == "running" and twap.sent == 1  # Alice's TWAP, on Alice's client

        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert str(app.screen.query_one(".title").render()) == "Quit with 1 order tool(s) running (TWAP)?"
        await press_to_quit(pilot, "y")
        await until(pilot, lambda: twap.state == "cancelled", "cancelled on the way out")
