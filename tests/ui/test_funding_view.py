"""Funding on the dashboard: the rate with its period in the markets pane and the header, F to see it per 8 hours or
annualised, a countdown to the next payment that repaints only itself, and funding paid per position."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.widgets import DataTable

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, noted, settle
from tui.api import wire
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.widgets.display import fmt_money
from tui.ui.widgets.funding import FundingLine, fmt_countdown, fmt_funding, fmt_period
from tui.ui.widgets.header import ProfileHeader
from tui.ui.widgets.positions import PositionsPane

ALICE = Signer(ALICE_KEY)
D = Decimal
HOUR_MS = 3_600_000


def test_rates_with_their_period() -> None:
    assert fmt_funding(D("0.00001253"), 3_600) == "0.0013%/1h"
    assert fmt_funding(D("-0.0005"), 3_600) == "-0.0500%/1h"
    assert fmt_funding(D("0.00001253"), 3_600, "8h") == "0.0100%/8h"
    assert fmt_funding(D("0.0001"), 8 * 3_600, "8h") == "0.0100%/8h"
    assert fmt_funding(D("0.00001253"), 3_600, "apr") == "APR 11.0%"
    assert fmt_funding(D("-0.0005"), 3_600, "apr") == "APR -438.0%"
    assert fmt_funding(None, 3_600) == "-"
    assert [fmt_period(s) for s in (3_600, 8 * 3_600, 1_800, 86_400, 90)] == ["1h", "8h", "30m", "1d", "90s"]


def test_countdowns() -> None:
    assert [fmt_countdown(s) for s in (754, 59.9, 0, -3, 3_600, 3_723)] == [
        "12:34", "00:59", "00:00", "00:00", "1:00:00", "1:02:03",
    ]  # fmt: skip


def header_texts(app: Any) -> tuple[str, str]:
    return str(app.main.query_one(ProfileHeader).render()), str(app.main.query_one(FundingLine).render())


def markets_funding(app: Any, symbol: str) -> str:
    table = app.main.query_one("#markets-table", DataTable)
    return str(table.get_cell(symbol, "funding")).strip()


async def test_f_cycles_the_period_and_the_countdown_repaints_only_itself(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (160, 40)) as (pilot, notes):
        market = app.feed.state.market
        await settle(pilot, lambda: "BTC-PERP" in market.tickers, what="the tickers")
        rate = market.tickers["BTC-PERP"].funding_rate
        left = 3_600 - (clock.now_ms() // 1000) % 3_600
        _, line = header_texts(app)
        assert line == f"funding {fmt_funding(rate, 3_600)} in {fmt_countdown(left)}"
        assert markets_funding(app, "BTC-PERP") == fmt_funding(rate, 3_600)
        assert markets_funding(app, "BTC/USDC") == "-"  # spot pays no funding

        for mode, said in (("8h", "per 8 hours"), ("apr", "annualised (APR)"), ("period", "per funding period")):
            await pilot.press("F")
            await settle(pilot, lambda said=said: f"Funding rates {said}" in notes.messages, what=said)
            rate = market.tickers["BTC-PERP"].funding_rate
            assert markets_funding(app, "BTC-PERP") == fmt_funding(rate, 3_600, mode)  # type: ignore[arg-type]
            assert header_texts(app)[1].startswith(f"funding {fmt_funding(rate, 3_600, mode)} in ")  # type: ignore[arg-type]

        header, funding = app.main.query_one(ProfileHeader), app.main.query_one(FundingLine)
        header_calls: list[Any] = []
        line_calls: list[Any] = []
        for widget, calls in ((header, header_calls), (funding, line_calls)):
            original = widget.refresh

            def recording(*regions: Any, _calls: list[Any] = calls, _refresh: Any = original, **kw: Any) -> Any:
                _calls.append((regions, kw.get("layout", False)))
                return _refresh(*regions, **kw)

            widget.refresh = recording  # type: ignore[method-assign]
        clock.advance(5_000)  # the exchange's time only: nothing else moves
        try:
            await settle(pilot, lambda: header_texts(app)[1].endswith(fmt_countdown(left - 5)), what="the countdown")
        except AssertionError as failed:  # once in a full run (never alone): what was shown, and the drift read
            drift = app.feed.state.status.clock_drift_ms
            raise AssertionError(f"{failed}: the line shows {header_texts(app)[1]!r}, drift {drift} ms") from None
        assert header_calls == [] and line_calls  # the header is not repainted; the funding line ...
        for regions, layout in line_calls:  # ... only where the countdown's digits changed, with no layout pass
            assert not layout and len(regions) == 1 and regions[0].height == 1 and regions[0].width <= 2


async def test_the_header_leaves_out_funding_where_there_is_no_room(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: "BTC-PERP" in app.feed.state.market.tickers, what="the tickers")
        header, line = header_texts(app)
        assert header.rstrip().endswith("BTC-PERP") and line == "", (header, line)
        await pilot.resize_terminal(110, 30)  # the banner ("trading as ... · testnet") takes 76 with its padding
        await settle(pilot, lambda: header_texts(app)[1].startswith("funding "), what="the funding line")


async def test_funding_paid_per_position_is_the_exchanges(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Alice goes long; two funding payments later the positions pane shows their sum, as the exchange's
    records and its ledger have it."""
    book = await trader.orderbook("BTC-PERP", depth=1)
    await trader.place_order([wire.order_item(1, "b", book.asks[0].price, "0.05", tif="IOC")])
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 40)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: len(account.positions) == 1, what="the position")
        table = app.main.query_one("#positions-table", DataTable)
        column = app.main.query_one(PositionsPane).columns.index("funding")
        assert str(table.get_row_at(0)[column]).strip() == "0.00"  # no payment yet
        for _ in range(2):
            sim.step(HOUR_MS)
        await settle(pilot, lambda: len(account.funding) == 2, what="two payments")
        records = (await trader.funding_history(ALICE.address)).data
        paid = sum((r.funding_payment for r in records if r.instrument_id == 1), D(0))
        ledger = sim.engine.accounts[ALICE.address.lower()].positions[1].funding
        assert len(records) == 2 and paid == ledger != 0
        await settle(pilot, lambda: str(table.get_row_at(0)[column]).strip() == fmt_money(paid), what="funding paid")
