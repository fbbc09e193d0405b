"""Alerts under file faults, on the dashboard: an alert that fires is seen (notice and bell first) when its file
cannot be written, and a bad alerts file at start is set aside with a notice saying where it went."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard, feed_ready, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.feed.alerts import Alert, AlertBook, alerts_path
from tui.paths import data_dir
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

ALICE = Signer(ALICE_KEY)


async def test_an_alert_fires_and_rings_when_its_file_cannot_be_saved(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Tried: the alerts file cannot be written (its temporary file is a directory: as a read-only data dir, which
    root's chmod would not give), then the mark falls past a "below" alert. Before: no notice, no bell, and the
    alert disarmed for the session unseen. Now: the alert's notice, then the bell, then "could not be saved";
    the alert is disarmed in memory and does not fire twice."""
    path = alerts_path(data_dir(), "LOCAL")
    app = dashboard(trader, sim, clock, ALICE, read_only=True)
    notes = Seen(at_markets=lambda: getattr(app.feed.state.market.tickers.get("BTC-PERP"), "mark_price", None))
    said: list[str] = []  # what the app showed and rang, in its order
    app.bell = lambda: said.append("(bell)")  # type: ignore[method-assign]  # the terminal's bell, counted
    notify = app.notify

    def shown_and_kept(message: str, **kw: Any) -> None:
        said.append(message)
        notify(message, **kw)

    app.notify = shown_and_kept  # type: ignore[method-assign]
    async with app.run_test(size=(140, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        tickers = app.feed.state.market.tickers
        await settle(pilot, lambda: "BTC-PERP" in tickers, what="the tickers")
        mark = tickers["BTC-PERP"].mark_price
        book = app.alerts
        book.put(Alert(1, "BTC-PERP", "mark", "below", mark - 50))
        path.rename(path.with_name("real"))  # a link in its place is never written over: now no save can be
        path.symlink_to(path.with_name("real"))
        sim.engine.set_index_price(1, str(mark - 500))  # the mark follows the index down, past the level
        sim.step(1000)
        await settle(pilot, lambda: any("could not be saved" in m for m in notes.messages), what="the notices")
        shown = [m for m in said if m.startswith("BTC-PERP mark price below") or "(bell)" in m or "saved" in m]
        assert [m[:26] for m in shown] == ["BTC-PERP mark price below ", "(bell)", "Alerts could not be saved "]
        assert "symbolic link" in shown[2] and "the file still has them armed" in shown[2]
        assert [a.armed for a in book.alerts] == [False]
        fired_at = tickers["BTC-PERP"].mark_price
        sim.engine.set_index_price(1, str(mark - 600))  # further past the level
        sim.step(1000)
        await settle(
            pilot, lambda: any(m is not None and m < fired_at for m in notes.markets), what="the alert checked again"
        )
        assert len([m for m in notes.messages if m.startswith("BTC-PERP mark price below")]) == 1  # once
    assert [a.armed for a in AlertBook.load(path.with_name("real")).alerts] == [True]  # not written: it says so


async def test_a_bad_alerts_file_is_set_aside_and_the_dashboard_starts(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Tried: an alerts file whose level is 1e999999999 (before: it loaded, and the first price crashed the
    dashboard, on every start). Now the dashboard starts, the notice names where the file went, and the file
    is there, unchanged."""
    path = alerts_path(data_dir(), "LOCAL")
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"alerts": [{"id": 1, "symbol": "BTC-PERP", "source": "mark", "condition": "below",
                                   "level": "1e999999999"}]})  # fmt: skip
    path.write_text(text)
    app = dashboard(trader, sim, clock, ALICE, read_only=True)
    notes = Seen()
    async with app.run_test(size=(140, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: any("could not be read" in m for m in notes.messages), what="the notice")
        checked = len(notes.markets)
        sim.step(1000)
        await settle(pilot, lambda: len(notes.markets) > checked, what="new prices taken")  # a bad level would crash
        assert app.is_running and app.alerts.alerts == []
    [said] = [m for m in notes.messages if "could not be read" in m]
    [aside] = path.parent.glob(path.name + ".bad-*")
    assert str(aside) in said and "level must be a number above 0" in said and aside.read_text() == text
    assert Decimal(json.loads(text)["alerts"][0]["level"]) > 0
