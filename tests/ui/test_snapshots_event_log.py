"""A snapshot of the event log at 120x30: a fill of one order in three pieces (one line, summed), an alert, a
TWAP step, a refusal, the socket lost and back, and two lines an earlier session left in the file. Built as
``test_snapshots`` builds its pictures: a seeded exchange, a frozen clock; the entries have fixed times."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.feed.test_events import BTC, ws_fill
from tests.ui.conftest import seeded_market, settle, toasts
from tests.ui.test_snapshots import MINUTES, snapshot_app
from tui.feed.event_file import event_log_path
from tui.paths import data_dir
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.messages import FeedChanged
from tui.ui.screens.events import EventLogScreen

AT = 1_767_225_600_000  # 2026-01-01 00:00:00 UTC
EARLIER = [
    "2025-12-31T23:10:00.000Z fill Bought 0.0100 BTC-PERP at 99,500.0 · taker · fee 0.50",
    "2025-12-31T23:20:00.000Z refusal Order: rejected: insufficient margin",
]


@pytest.fixture
def frozen() -> FrozenClock:
    return FrozenClock()


@pytest.fixture
def exchange(frozen: FrozenClock) -> Iterator[EmbeddedExchange]:
    with seeded_market(frozen, MINUTES) as ex:
        yield ex


def test_the_event_log(snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock) -> None:
    path = event_log_path(data_dir(), "LOCAL")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in EARLIER))

    async def open_log(pilot: Any) -> None:
        app = pilot.app
        await app.feed.wait_ready()
        assert app.session.event_file.read.wait(10)
        log = app.feed.state.account.events
        log.add("disconnect", "WebSocket lost: reconnecting; the account is polled meanwhile", at_ms=AT)
        log.add("reconnect", "WebSocket back: reloading the book, the account and the tape", at_ms=AT + 4_000)
        for i, (price, size) in enumerate((("100000", "0.01"), ("100010", "0.02"), ("100020", "0.01"))):
            fill = ws_fill(
                9_000_000 + i, order_id=42, side="b", price=price, size=size, fee="0.4", crossed=True,
                block_timestamp=AT + 60_000 + i,
            )  # fmt: skip
            assert log.fill(fill, BTC) is not None
        log.add("alert", "Alert 3: BTC-PERP last price above 100,000.0 (at 100,020.0)", at_ms=AT + 90_000)
        log.add("twap", "TWAP 1: slice 2 of 6: bought 0.0100 at 100,015.0 · avg 100,012.5", at_ms=AT + 120_000)
        log.add("refusal", "Order: rejected: order value 4,950.00 is above the maximum", at_ms=AT + 150_000)
        app.post_message(FeedChanged(frozenset({"events"})))  # as the feed says of a fill
        await settle(pilot, lambda: toasts(app))  # the fill's notice, then gone: the log is the picture
        app.clear_notifications()
        await pilot.press("N")
        await settle(pilot, lambda: isinstance(app.screen, EventLogScreen))

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=(120, 30), run_before=open_log)
