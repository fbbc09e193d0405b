"""The dashboard survives the exchange dropping the WebSocket: it says so, keeps polling, comes back live."""

from __future__ import annotations

from decimal import Decimal

import pytest
from textual.widgets import Static

from tests.conftest import ALICE_KEY, QUIET_WS, governor_for
from tests.ui.conftest import dashboard, feed_ready, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.app import XtuiApp, make_app
from tui.ui.widgets.book_lines import BookLines

ALICE = Signer(ALICE_KEY)
FAST_RECONNECT = {"backoff_min": 0.05, "backoff_max": 0.2}


def status_text(app: object) -> str:
    return str(app.main.query_one("#status", Static).render())  # type: ignore[attr-defined]


async def test_socket_drop_shows_reconnecting_then_live_and_the_book_matches_info(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE, feed_options={"poll_s": 0.3, "ws_options": FAST_RECONNECT})
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        status = app.feed.state.status
        await settle(pilot, lambda: "● live" in status_text(app), what="live")

        sim.limiter.limits.ws_connections = 0  # reconnects are refused until the test allows them
        for conn in list(sim.hub.connections):
            await conn.ws.close()
        # down: the bar says so (reconnecting, or polling once an /info poll has come back)
        await settle(pilot, lambda: status.connection in ("reconnecting", "polling"), what="the drop")
        await settle(pilot, lambda: status.connection in status_text(app), what="the status bar")
        assert "live" not in status_text(app)

        # while down, the book still follows by polling: a bid placed now shows up
        await trader.place_order([order_item(1, "b", "99990.5", "0.25")])
        book = app.feed.state.market.book
        await settle(pilot, lambda: book.size_at("bids", Decimal("99990.5")) >= Decimal("0.25"), what="a poll")

        sim.limiter.limits.ws_connections = 100
        await settle(pilot, lambda: status.connection == "live", what="the reconnect")
        await settle(pilot, lambda: "● live" in status_text(app), what="live in the status bar")
        assert status.reconnects >= 1 and "×" in status_text(app)  # the bar counts reconnects
        # the event log says when the socket was lost (once) and when it came back
        kinds = [e.kind for e in app.feed.state.account.events.book.entries()]
        assert kinds.count("disconnect") == 1 and kinds.index("disconnect") < kinds.index("reconnect")

        # after the reconnect the book is the exchange's book, in the state and on screen
        info = await trader.orderbook("BTC-PERP", depth=20)
        bids = [(lv.price, lv.size) for lv in info.bids]
        asks = [(lv.price, lv.size) for lv in info.asks]
        await settle(pilot, lambda: book.levels("bids", 20) == bids and book.levels("asks", 20) == asks, what="sync")
        lines = app.main.query_one("#book-table", BookLines)
        await settle(pilot, lambda: lines.cell("b0", 0) == f"{bids[0][0]:,.1f}", what="the pane")
        assert lines.cell("a0", 0) == f"{asks[0][0]:,.1f}"


def on_a_stepped_clock(trader: Client, sim: LocalExchange, clock: FrozenClock, now: list[float]) -> XtuiApp:
    """The dashboard whose own clock is ``now[0]``, moved by the test, and which polls only when the test asks."""
    app = make_app(
        trader,
        sim.ws_url,
        ALICE,
        clock=lambda: now[0],
        wall_clock=lambda: clock.now_ms() / 1000,
        feed_options={"poll_s": 3600.0, "ws_options": QUIET_WS},
    )
    app.feed.state.status.clock_drift_ms = 0
    return app


async def test_ages_grey_out_when_data_stops(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    sim.hub.repeat_after_s = ()  # no repeated first pictures: after the first, nothing arrives at all
    now = [1000.0]
    app = on_a_stepped_clock(trader, sim, clock, now)
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        bar = app.main.query_one("#status", Static)
        await settle(pilot, lambda: "data fresh" in status_text(app), what="fresh data")  # no ages while fresh
        assert "$stale" not in _styles_of(bar, "data fresh")
        now[0] += 5  # five quiet seconds: no frame, no poll
        await settle(pilot, lambda: "book 5s" in status_text(app), what="the ages to move on")
        assert "$stale" in _styles_of(bar, "book 5s")


def _styles_of(bar: Static, text: str) -> str:
    """The styles of the span of the status bar that holds ``text``."""
    content = bar.render()  # what it shows now (``visual`` follows only once it is painted)
    plain = content.plain  # type: ignore[union-attr]
    start = plain.index(text)
    return " ".join(str(span.style) for span in content.spans if span.start <= start < span.end)  # type: ignore[union-attr]


async def test_status_bar_and_header_leave_live_when_the_socket_goes_quiet(
    sim: LocalExchange, clock: FrozenClock, trader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    quiet = {"ping_interval": 0.1, "stale_after": 0.4, "idle_timeout": 60.0}  # stale, never taken for dead here
    app = dashboard(trader, sim, clock, ALICE, feed_options={"poll_s": 3600.0, "ws_options": quiet})
    send = sim.hub._send  # private: the one place the exchange's socket writes, silenced below (frames and pongs)
    talking = [True]

    def say(conn: object, frame: bytes) -> None:
        if talking[0]:  # else the exchange says nothing at all on the socket: no frames, no pongs
            send(conn, frame)  # type: ignore[arg-type]

    monkeypatch.setattr(sim.hub, "_send", say)  # private: as above
    async with app.run_test(size=(120, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: "● live" in status_text(app), what="live")

        talking[0] = False
        status = app.feed.state.status
        await settle(pilot, lambda: status.connection != "live", what="the feed to notice")
        # stale, or polling once an /info poll has kept the panes up to date meanwhile
        await settle(pilot, lambda: status.connection in status_text(app), what="the status bar")
        assert status.connection in ("stale", "polling") and "live" not in status_text(app)
        header = str(app.main.query_one("#header", Static).render())
        assert status.connection in header and "live" not in header

        talking[0] = True  # it answers again: live, without a reconnect
        await settle(pilot, lambda: "● live" in status_text(app), what="live again")
        assert app.feed.state.status.reconnects == 0


async def test_the_rate_limit_wait_and_a_ban_count_down_and_an_error_clears_once_its_source_recovers(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    now = [1000.0]
    ended = [0.0]  # seconds the governor's clock has skipped: a ban made to end
    trader.governor = governor_for(sim, clock, ahead=lambda: ended[0])
    app = on_a_stepped_clock(trader, sim, clock, now)
    async with app.run_test(size=(160, 40)) as pilot:
        await feed_ready(app)
        bar = app.main.query_one("#status", Static)
        # a 429 asked for 12 s, a 418 for 300 s: what the bar says counts down with the clock, not with new reads
        trader.governor.rate_limited(12)
        trader.governor.banned(300)
        app.feed._refresh_status()  # private: the feed reads the governor now, not at its next poll or socket news
        await settle(pilot, lambda: "wait 12s" in status_text(app) and "BANNED 300s" in status_text(app), what="12s")
        # private: no new read of the governor: the bar counts down from the one it has
        app.feed._refresh_status = lambda: None  # type: ignore[method-assign]
        now[0] += 5
        bar.dirty = True  # the dashboard's one-second tick does this
        await settle(pilot, lambda: "wait 7s" in status_text(app) and "BANNED 295s" in status_text(app), what="7s")
        now[0] += 8
        bar.dirty = True
        await settle(pilot, lambda: "wait" not in status_text(app) and "BANNED 287s" in status_text(app), what="done")
        ended[0] += 300  # the ban ends, so the poll below can run

        # an error names its source, and goes when that source answers again (the next account poll)
        app.feed._error("fills", "HTTP 429: too many requests")  # private: a 429 on the fills read, as a poll meets it
        await settle(pilot, lambda: "fills: HTTP 429" in status_text(app), what="the error shown")
        await app.feed.refresh_account()
        await settle(pilot, lambda: "fills: HTTP 429" not in status_text(app), what="the error cleared by a poll")
