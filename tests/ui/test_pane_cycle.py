"""Every terminal size has every pane: where the book, the tape and the chart share a place, v shows each in turn
(and says so in the footer); at full size they all show and v is not offered."""

from __future__ import annotations

from decimal import Decimal

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, settle
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.widgets.positions import PositionsPane

ALICE = Signer(ALICE_KEY)


def shown(app: object) -> list[str]:
    main = app.main  # type: ignore[attr-defined]
    return [name for name in ("book", "tape", "chart") if main.query_one(f"#{name}").display]


async def test_v_cycles_the_shared_place_at_80x24(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.market.candles, what="the chart's candles")
        assert shown(app) == ["book"] and app.main.check_action("cycle_panes", ()) is True
        for expected in (["tape"], ["chart"], ["book"]):
            await pilot.press("v")
            await settle(pilot, lambda e=expected: shown(app) == e, what=f"{expected}")
        await pilot.press("v", "v")
        chart = app.main.query_one("#chart")
        await settle(pilot, lambda: chart.region.width > 30, what="the chart laid out")
        # the top row beside the markets (the positions and orders take the whole width below)
        assert shown(app) == ["chart"] and chart.region.height == 10


async def test_120x30_has_room_for_entry_mark_and_liquidation(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    book = await trader.orderbook("BTC-PERP", depth=5)
    through = (book.asks[-1].price * Decimal("1.01")).quantize(book.asks[0].price)
    await trader.place_order([order_item(1, "b", through, "0.01", tif="IOC")])
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(120, 30)) as pilot:
        await feed_ready(app)
        pane = app.main.query_one(PositionsPane)
        await settle(pilot, lambda: app.feed.state.account.positions and pane.rows and pane.rows.keys, what="a row")
        assert {"entry", "mark", "liq"} <= set(pane.columns), pane.columns
        assert shown(app) == ["book"]


async def test_full_size_shows_all_three_and_offers_no_cycle(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await pilot.pause()
        assert shown(app) == ["book", "tape", "chart"] and app.main.check_action("cycle_panes", ()) is False
        await pilot.press("v")
        await pilot.pause()
        assert shown(app) == ["book", "tape", "chart"]
