"""The history screen's positions tab: closed positions rebuilt from the fills, numbers checked against the fills,
at the largest and the smallest terminal; snapshots of the tab."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal as D
from typing import Any

import pytest

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard, drawn, feed_ready, seeded_market
from tests.ui.screen_steps import cells, show, until
from tests.ui.test_snapshots import snapshot_app
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.history import MONEY_PLACES, HistoryScreen, fmt_duration, fmt_money
from tui.ui.widgets.record_table import RecordTable

ALICE = Signer(ALICE_KEY)
MINUTE = 60_000


async def take(c: Client, instrument: int, symbol: str, side: str, size: str) -> None:
    """An IOC order through the far side of the book (5% beyond its best): it fills at the book's prices."""
    book = await c.orderbook(symbol, depth=1)
    far = book.asks[0].price * D("1.05") if side == "b" else book.bids[0].price * D("0.95")
    await c.place_order([order_item(instrument, side, far.quantize(D("0.1")), size, tif="IOC")])


async def round_trips(c: Client, step: Any) -> None:
    """BTC: long 0.02 closed in two sells a minute apart each; ETH: a short of 0.5 closed by a buy of 0.8 that
    leaves a long of 0.3 open."""
    await take(c, 1, "BTC-PERP", "b", "0.02")
    step()
    await take(c, 1, "BTC-PERP", "s", "0.01")
    step()
    await take(c, 1, "BTC-PERP", "s", "0.01")
    await take(c, 2, "ETH-PERP", "s", "0.5")
    step()
    await take(c, 2, "ETH-PERP", "b", "0.8")


async def test_closed_positions_from_the_fills(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    """Tab 5 lists the two closed positions, newest first: the ETH short (its flip's first 0.5) and the BTC long,
    each with its entry and exit the size-weighted average of its fills, realized = what the closing fills brought
    less what the opening ones cost, its fees, and how long it was held; the ETH long still open is counted on the
    page line, not listed. At 80x24 too."""
    await round_trips(trader, lambda: sim.step(MINUTE))
    fills = (await trader.fills(ALICE.address, limit=100)).data
    btc = [f for f in fills if f.instrument == "BTC-PERP"]
    bought = sum((f.price * f.size for f in btc if f.side == "b"), D(0))
    sold = sum((f.price * f.size for f in btc if f.side == "s"), D(0))
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        screen = await show(pilot, seen, "H", HistoryScreen)
        await pilot.press("5")
        line = screen.query_one("#page-line")
        await until(pilot, lambda: "Positions · page 1 of 1 · 2 records" in str(line.render()), "the positions")
        assert "1 open, not shown" in str(line.render())
        rows = cells(screen.query_one("#positions-table", RecordTable))
        assert [(r[1], r[2], r[3]) for r in rows] == [("ETH-PERP", "short", "0.5"), ("BTC-PERP", "long", "0.02")]
        long = dict(zip(["closed", "instrument", "side", "size", "entry", "exit", "pnl", "fees", "funding", "net",
                         "held", "opened"], rows[1], strict=True))  # fmt: skip
        assert D(long["entry"].replace(",", "")) == (bought / D("0.02")).quantize(D("0.001"))
        assert D(long["exit"].replace(",", "")) == (sold / D("0.02")).quantize(D("0.001"))
        assert long["pnl"] == fmt_money(sold - bought, MONEY_PLACES)  # cents, as the balances (exact: xtui export)
        assert long["fees"] == fmt_money(sum((f.fee for f in btc), D(0)), MONEY_PLACES)
        assert long["held"] == "2m 00s"
        await pilot.press("f")
        await pilot.press(*"btc-perp", "enter")
        await until(pilot, lambda: "1 records · instrument BTC-PERP" in str(line.render()), "filtered")
        assert "open, not shown" not in str(line.render())


def test_durations() -> None:
    """Seconds, minutes, hours, days: two units at most."""
    import datetime as dt

    assert [fmt_duration(dt.timedelta(seconds=s)) for s in (45, 725, 11_220, 187_200)] == [
        "45s", "12m 05s", "3h 07m", "2d 04h",
    ]  # fmt: skip
    assert fmt_duration(None) == "-"


@pytest.fixture(scope="module")
def frozen() -> FrozenClock:
    return FrozenClock()


@pytest.fixture(scope="module")
def exchange(frozen: FrozenClock) -> Iterator[EmbeddedExchange]:
    """A few minutes of market in which Alice closes a long and flips a short."""
    with seeded_market(frozen, 3, MINUTE) as ex:

        async def trade() -> None:
            async with Client(ex.url, signer=ALICE, clock_ms=frozen.now_ms, testnet=True) as alice:
                await alice.cancel_all()  # the faucet
                await round_trips(alice, lambda: ex.call(lambda sim: sim.step(MINUTE)))
                await alice.place_order([order_item(1, "b", "95000", "0.01", cloid="snap-rest")])
            ex.call(lambda sim: sim.step(1000))

        asyncio.run(trade())
        yield ex


@pytest.mark.parametrize("size", [(160, 48), (80, 24)], ids=["160x48", "80x24"])
def test_positions_tab_snapshot(
    snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        app = pilot.app
        await feed_ready(app)
        await pilot.press("H")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
        await pilot.press("5")
        line = app.screen.query_one("#page-line")
        await until(pilot, lambda: "Positions · page 1" in str(line.render()), "the positions")
        await drawn(pilot)

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=size, run_before=run_before)
