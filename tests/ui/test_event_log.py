"""The event log as a trader meets it: a fill made while another screen is open is in it, the header counts
what is unread until N opens it, alerts and refusals are in it, its file has the lines, and a damaged file
left by an earlier session stops nothing."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.widgets import Static
from textual.widgets._toast import Toast

from tests.conftest import ALICE_KEY, BOB_KEY, client_for
from tests.ui.conftest import Seen, dashboard, feed_ready, palette_search, settle, toasts
from tests.ui.screen_steps import confirm, fill_form, result_of, show, until
from tests.ui.test_account_events import inside_the_spread
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.feed.alerts import Alert
from tui.feed.event_file import event_log_path
from tui.paths import data_dir
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.events import EventLogScreen
from tui.ui.screens.referrals import ReferralsScreen
from tui.ui.screens.watchlist import WatchlistScreen
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.record_table import RecordTable

ALICE = Signer(ALICE_KEY)


def header(app: Any) -> str:
    return str(app.main.query_one("#header", Static).render())


def rows(app: Any) -> list[list[str]]:
    table = app.screen.query_one("#events-table", RecordTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_a_fill_while_another_screen_is_open_is_logged_counted_and_read(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Alice's resting order is filled by Bob in two pieces while her watchlist screen is open: the log has one
    entry for the order, the pieces summed; the header counts one unread event; N opens the log, which shows
    it, and the count clears; the file in the data directory gets the line."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        state = app.feed.state
        await settle(pilot, lambda: state.account.loaded and state.market.book.best_ask, what="the account")
        price = inside_the_spread(state, 1)[0]
        await trader.place_order([order_item(1, "s", str(price), "0.02")])
        await settle(pilot, lambda: state.account.open_orders, what="the resting order")
        await pilot.press("w")
        await settle(pilot, lambda: isinstance(app.screen, WatchlistScreen), what="the watchlist")

        async with client_for(sim, BOB_KEY, clock) as bob:
            for _ in range(2):
                await bob.place_order([order_item(1, "b", str(price), "0.01", tif="IOC")])
        book = state.account.events.book
        await settle(pilot, lambda: "2 pieces" in "".join(e.text for e in book.entries()), what="both pieces")
        [entry] = book.entries()
        assert entry.kind == "fill"
        assert entry.text.startswith(f"Sold 0.0200 BTC-PERP at avg {price:,.1f} · 2 pieces · maker · ")
        assert book.unread == 1

        await pilot.press("escape")
        await settle(pilot, lambda: "✉ 1 new event" in header(app), what="the unread count in the header")
        await pilot.press("N")
        await settle(pilot, lambda: isinstance(app.screen, EventLogScreen) and rows(app), what="the log screen")
        [row] = rows(app)
        assert row[1:] == ["fill", entry.text]
        await settle(pilot, lambda: book.unread == 0, what="read")
        await pilot.press("escape")
        await settle(pilot, lambda: "new event" not in header(app), what="the count gone from the header")

        app.write_events()
        assert await asyncio.to_thread(app.session.event_file.flushed, 10)
    path = event_log_path(data_dir(), "LOCAL")
    lines = path.read_text().splitlines()
    # the file is only appended to: a periodic write between the two pieces (a loaded machine) leaves the first
    # piece's line before the sum, so the sum is the last line and every line is this order's fill
    assert lines[-1].endswith(f" fill {entry.text}") and 1 <= len(lines) <= 2, lines
    assert [line.partition(" fill Sold ")[2][:6] for line in lines] == ["0.0100", "0.0200"][-len(lines) :], lines


async def test_alerts_and_refusals_are_logged(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    """An alert that fires at once and a cancel the exchange refuses (a client order id no order has): each an
    entry of its kind, with the words the trader was told."""
    app = dashboard(trader, sim, clock, ALICE)
    app.alerts.put(Alert(1, "BTC-PERP", "last", "above", Decimal(1)))
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        book = app.feed.state.account.events.book
        await settle(pilot, lambda: any(e.kind == "alert" for e in book.entries()), what="the alert's entry")
        [alert] = [e for e in book.entries() if e.kind == "alert"]
        assert alert.text.startswith("Alert 1: BTC-PERP")

        await pilot.press("k", *"nosuch", "enter")  # cancel by a client order id no order has
        await settle(pilot, lambda: any(e.kind == "refusal" for e in book.entries()), what="the refusal's entry")
        [refusal] = [e for e in book.entries() if e.kind == "refusal"]
        assert refusal.text.startswith("Cancel: rejected: ")
        await settle(pilot, lambda: "✉ 2 new events" in header(app), what="both counted")


async def test_a_damaged_log_file_from_an_earlier_session_stops_nothing(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """The profile's log file holds binary junk, escapes and a good line at its end: the dashboard starts, the
    log screen shows the good line as an earlier entry (and the junk only as printable text), and this
    session's entries are appended after it."""
    path = event_log_path(data_dir(), "LOCAL")
    path.parent.mkdir(parents=True, exist_ok=True)
    good = "2026-01-01T00:00:00.000Z fill Bought 0.0100 BTC-PERP at 100,000.0 · taker · fee 0.50"
    path.write_bytes(b"\x00\xff\xfe junk \x1b[2J\x1b]0;title\x07\n" * 100 + good.encode() + b"\n")
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        assert app.session.event_file.read.wait(10)
        app.feed.state.account.events.add("twap", "TWAP 1: slice 1 of 4 sent", at_ms=clock.now_ms())
        await pilot.press("N")
        await settle(pilot, lambda: isinstance(app.screen, EventLogScreen) and len(rows(app)) > 2, what="the log")
        shown = rows(app)
        assert shown[0][1:] == ["twap", "TWAP 1: slice 1 of 4 sent"]
        assert shown[1] == ["2026-01-01 00:00:00", "fill", good.split(" ", 2)[2]]
        assert all(all(c.isprintable() for c in cell) for row in shown for cell in row)
        app.write_events()
        assert await asyncio.to_thread(app.session.event_file.flushed, 10)
    assert path.read_text(errors="replace").splitlines()[-1].endswith(" twap TWAP 1: slice 1 of 4 sent")


@pytest.mark.parametrize("size", [(160, 48), (120, 30), (80, 24)], ids=["160x48", "120x30", "80x24"])
async def test_notices_never_cover_the_positions_or_the_footer(
    sim: LocalExchange, clock: FrozenClock, trader: Client, size: tuple[int, int]
) -> None:
    """Four long notices at once, an error among them, at each terminal size: two show (one at 80x24, where the
    positions take the whole width under the markets), the error among them, and no toast overlaps the positions,
    the orders, the account bar, the status bar or the footer."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=size, notifications=True) as pilot:
        await feed_ready(app)
        words = "Sold 0.0100 BTC-PERP at 100,000.0 · maker · rebate 0.02 · order filled " * 2
        app.notify(words, title="Fill", severity="error", timeout=60)
        for n in range(3):
            app.notify(f"{n} {words}", title="Fill", timeout=60)
        shown = 1 if size == (80, 24) else 2
        await settle(pilot, lambda: len(app.screen.query(Toast)) == shown, what=f"{shown} toasts")
        assert [toast.has_class("-error") for toast in toasts(app)] == [True, False][:shown]  # the error stays
        kept = [app.main.query_one(f"#{name}") for name in ("positions", "orders-tabs", "account", "status")]
        kept.append(app.main.query_one(Footer))
        for toast in app.screen.query(Toast):
            for widget in kept:
                assert not toast.region.overlaps(widget.region), (toast.region, widget.id, widget.region)


async def test_the_palette_opens_the_event_log(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    """ctrl+p, "event log", Enter: the event log screen, as N opens it."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await pilot.press("ctrl+p")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await palette_search(pilot, "event log", "Event log")
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, EventLogScreen), what="the log from the palette")


async def test_a_data_screens_refused_action_is_logged(
    sim: LocalExchange, clock: FrozenClock, trader: Client, bob: Client
) -> None:
    """On the referrals screen Alice creates a code Bob already has: the exchange refuses it, the screen says so,
    and the event log has the refusal in the same words."""
    await bob.create_referral_code("TAKEN1")
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
        screen = await show(pilot, seen, "R", ReferralsScreen)
        await fill_form(pilot, "n", {"code": "TAKEN1"})
        await confirm(pilot)
        await until(pilot, lambda: "rejected" in result_of(screen), "the refusal")
        book = app.feed.state.account.events.book
        [entry] = [e for e in book.entries() if e.kind == "refusal"]
        assert entry.text in result_of(screen)
