"""Safety rails: read-only mode, the PANIC key, the clock-drift warning, who signs in the header."""

from __future__ import annotations

import re
from decimal import Decimal

from textual.command import CommandPalette

from tests.conftest import ALICE_KEY, client_for
from tests.ui.conftest import MARKET_STEPS, Notes, dashboard, feed_ready, noted, palette_search, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.app import make_app
from tui.ui.messages import FeedChanged
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.widgets.header import ProfileHeader
from tui.ui.widgets.status_bar import StatusBar

ALICE = Signer(ALICE_KEY)
AGENT = Signer("0x" + "4a" * 32)


def text_of(app: object, selector: type[ProfileHeader] | type[StatusBar]) -> str:
    return str(app.main.query_one(selector).render())  # type: ignore[attr-defined]


async def open_orders_and_positions(trader: Client) -> None:
    """Two resting bids (BTC-PERP, ETH-PERP) and two long positions, bought through the book."""
    await trader.place_order([order_item(1, "b", "90000", "0.01", cloid="rest-btc")])
    await trader.place_order([order_item(2, "b", "3000", "0.1", cloid="rest-eth")])
    for instrument, symbol, size in ((1, "BTC-PERP", "0.002"), (2, "ETH-PERP", "0.05")):
        book = await trader.orderbook(symbol, depth=5)
        through = (book.asks[-1].price * Decimal("1.01")).quantize(book.asks[0].price)
        await trader.place_order([order_item(instrument, "b", through, size, tif="IOC")])


TRADING_KEYS = ("b", "s", "e", "x", "X", "C", "k", "c", "P")
TRADING_LABELS = ("Buy", "Sell", "Cancel", "Close", "PANIC")


def footer_text(app: object) -> str:
    from tui.ui.widgets.footer import Footer

    footer = app.main.query_one(Footer)  # type: ignore[attr-defined]
    return footer.text()


async def test_read_only_offers_no_trading_key_and_sends_nothing(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await open_orders_and_positions(trader)
    app = dashboard(trader, sim, clock, ALICE, read_only=True)  # even with a key at hand
    notes = Notes()
    async with app.run_test(size=(120, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 2 and len(account.positions) == 2, what="the account")
        await settle(pilot, lambda: "READ-ONLY" in text_of(app, ProfileHeader), what="the header mark")
        await settle(pilot, lambda: "Quit" in footer_text(app), what="the footer")
        shown = footer_text(app)
        assert not [label for label in TRADING_LABELS if label in shown], shown  # hidden, not shown then refused
        await pilot.press("3")  # the positions pane: c would have a selected position
        for key in TRADING_KEYS:
            await pilot.press(key)
            await pilot.pause()  # the key handled: a binding would have pushed its screen by now
            assert app.screen is app.main, key  # no form, no prompt, no confirmation
        assert not [m for m in notes.messages if "not sent" in m]  # nothing was offered, so nothing refused
    orders = await trader.open_orders(ALICE.address)
    positions = await trader.positions(ALICE.address)
    assert len(orders.data) == 2 and len([p for p in positions if p.size]) == 2  # nothing was touched


async def test_watch_only_offers_no_trading_key(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, None, account=ALICE.address)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: "Quit" in footer_text(app), what="the footer")
        shown = footer_text(app)
        assert not [label for label in TRADING_LABELS if label in shown], shown
        assert all(app.main.check_action(a, ()) is False for a in app.main.TRADING_ACTIONS)
        await pilot.press("b")
        await pilot.pause()  # the key handled: a binding would have pushed its form by now
        assert app.screen is app.main


async def test_panic_default_no_changes_nothing_then_yes_flattens_the_account(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    await open_orders_and_positions(trader)
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (120, 40)) as (pilot, notes):
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.open_orders) == 2 and len(account.positions) == 2, what="the account")

        await pilot.press("P")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the panic question")
        shown = " ".join(str(s.render()) for s in app.screen.query(".reason"))
        assert "2 open order(s) will be cancelled" in shown and "2 position(s) will be closed" in shown
        assert "BTC-PERP long 0.002" in shown and "ETH-PERP long 0.05" in shown
        await pilot.press("enter")  # No has the focus: nothing is sent
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        await pilot.press("r")
        sending = lambda: [w for w in app.workers if w.group == "submit" and not w.is_finished]  # noqa: E731
        await settle(pilot, lambda: not sending(), what="nothing being sent")  # a panic started would be over
        assert len((await trader.open_orders(ALICE.address)).data) == 2
        assert len([p for p in await trader.positions(ALICE.address) if p.size]) == 2
        assert not [m for m in notes.messages if "cancelled every" in m]

        await pilot.press("P")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the panic question")
        await pilot.press("y")
        await settle(pilot, lambda: any(m.startswith("done") for m in notes.messages), what="the panic's report")
        await settle(pilot, lambda: not account.open_orders and not account.positions, what="a flat account")
    assert (await trader.open_orders(ALICE.address)).data == []
    assert [p for p in await trader.positions(ALICE.address) if p.size] == []
    reports = [m for m in notes.messages if "cancelled every open order" in m or "reduce-only" in m or "done" in m]
    assert reports[0].startswith("cancelled every open order (2 shown) · tx 0x")
    closes = sorted(m.split("\n")[0] for m in reports[1:3])
    assert [c.split(" @ ")[0] for c in closes] == ["SELL 0.002 BTC-PERP", "SELL 0.05 ETH-PERP"]
    assert all(c.endswith(") (market IOC reduce-only)") and "@ market (at least " in c for c in closes)
    assert all("\noid " in m for m in reports[1:3])
    assert reports[-1] == "done: 2 of 2 position(s) closed"


async def test_panic_from_the_palette_asks_the_same_question(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await palette_search(pilot, "PANIC", "PANIC")
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the panic question")
        assert "PANIC" in str(app.screen.query_one(".title").render())
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")


async def test_a_drifting_clock_warns_in_the_status_bar_and_once_as_a_notification(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    sim.hub.repeat_after_s = ()  # a late repeat of a snapshot would measure the drift again over the one set here
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (120, 40)) as (pilot, notes):
        status = app.feed.state.status
        await settle(pilot, lambda: "drift +0ms" in text_of(app, StatusBar), what="the drift figure")
        assert "WARNING" not in text_of(app, StatusBar)
        status.clock_drift_ms = 1500  # as the feed measures it from the exchange's frames
        app.post_message(FeedChanged(frozenset({"status"})))
        await settle(pilot, lambda: "WARNING" in text_of(app, StatusBar), what="the warning")
        line = text_of(app, StatusBar)
        assert line.startswith(" WARNING  this clock is 1.5s behind the exchange's: orders may be rejected")
        status.clock_drift_ms = -1600
        app.post_message(FeedChanged(frozenset({"status"})))
        await settle(pilot, lambda: "1.6s ahead of" in text_of(app, StatusBar), what="the warning, other way")
        told = [m for m in notes.messages if "nonces and expiresAfter" in m]
        assert told == [
            "This clock is 1.5s behind the exchange's. xtui signs nonces and expiresAfter on the exchange's clock "
            "as it measures it, but an order sent before that may be rejected: sync the system clock (NTP)."
        ]  # once a session
        status.clock_drift_ms = 200
        app.post_message(FeedChanged(frozenset({"status"})))
        await settle(pilot, lambda: "WARNING" not in text_of(app, StatusBar), what="the warning to go")


async def test_drift_measured_from_an_exchange_clock_two_seconds_ahead(sim: LocalExchange, clock: FrozenClock) -> None:
    for _ in range(MARKET_STEPS):
        sim.step(250)
    async with client_for(sim, ALICE_KEY, clock) as client:
        await client.cancel_all()
        app = make_app(
            client,
            sim.ws_url,
            ALICE,
            wall_clock=lambda: clock.now_ms() / 1000 - 2,  # this machine two seconds behind the exchange
            feed_options={"poll_s": 0.5},
        )
        notes = Notes()
        async with app.run_test(size=(120, 40), message_hook=notes) as pilot:
            await feed_ready(app)
            status = app.feed.state.status

            def measured() -> bool:
                sim.step(250)  # the market moves: book and trade frames carry the exchange's time
                return status.clock_drift_ms is not None and abs(status.clock_drift_ms - 2000) < 300

            await settle(pilot, measured, what="the drift from the frames")
            await settle(pilot, lambda: "WARNING" in text_of(app, StatusBar), what="the warning")
            # A frame read after the next step says 1.75 s: a busy machine may show 1.8 rather than 2.0.
            shown = re.search(r"this clock is (\d+\.\d)s behind the exchange's", text_of(app, StatusBar))
            assert shown is not None and abs(float(shown[1]) - 2.0) <= 0.3, text_of(app, StatusBar)
            assert any("nonces and expiresAfter" in m for m in notes.messages)


async def test_the_header_shows_the_account_and_who_signs_for_it(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    # an agent signing for Alice: both addresses are on show
    app = dashboard(trader, sim, clock, AGENT, account=ALICE.address)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        short = f"{ALICE.address[:6]}…{ALICE.address[-4:]}"
        agent = f"{AGENT.address[:6]}…{AGENT.address[-4:]}"
        banner = f"trading as {short} · signer agent {agent} · testnet"
        await settle(pilot, lambda: banner in text_of(app, ProfileHeader))
    app = dashboard(trader, sim, clock, None, account=ALICE.address)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: f"trading as {short} · watch-only · testnet" in text_of(app, ProfileHeader))
