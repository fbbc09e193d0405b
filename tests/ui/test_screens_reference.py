"""The markets reference: instruments with their margin tiers, collateral with its bridges, live prices."""

from __future__ import annotations

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard
from tests.ui.screen_steps import cells, show, until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.reference import ReferenceScreen
from tui.ui.widgets.record_table import RecordTable

ALICE = Signer(ALICE_KEY)


async def test_instruments_collateral_and_prices(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
        screen = await show(pilot, seen, "M", ReferenceScreen)
        perps = cells(screen.query_one("#perps-table", RecordTable))
        assert perps[0][:8] == ["1", "BTC-PERP", "BTC/USD", "0.1", "0.0001", "50x", "10", "no"]
        assert perps[3][1] == "HYPE-PERP" and perps[3][7] == "yes"  # isolated only
        tiers = screen.query_one("#tiers-table", RecordTable)
        assert cells(tiers)[1] == ["1,000,000", "20x", "2.50%", "15,000"]
        perps_table = screen.query_one("#perps-table", RecordTable)
        perps_table.focus()
        await pilot.press("down", "down")
        await until(pilot, lambda: "SOL-PERP" in str(screen.query_one("#tiers-title").render()), "SOL's tiers")
        assert [r[1] for r in cells(tiers)] == ["20x", "10x", "5x"]

        await pilot.press("2")
        spot = cells(screen.query_one("#spot-table", RecordTable))
        assert spot[0][:8] == ["101", "BTC/USDC", "BTC/USDC", "0.1", "0.00001", "BTC", "USDC", "no"]
        await pilot.press("3")
        collateral = cells(screen.query_one("#collateral-table", RecordTable))
        assert collateral[1][:7] == ["2", "USDT", "Tether USD", "6", "0.98", "1", "10,000,000"]
        assert "USDC: weight tiers from 0: 1 · bridges" in str(screen.query_one("#bridges-title").render())
        assert [r[0] for r in cells(screen.query_one("#bridges-table", RecordTable))] == ["1", "42161", "11155111"]

        await pilot.press("4")
        prices = screen.query_one("#prices-table", RecordTable)
        mid = {m.symbol: m.mid_price for m in await trader.mids()}["ETH-PERP"]
        index = (await trader.oracle("ETH-PERP")).index_price
        row = next(r for r in cells(prices) if r[0] == "ETH-PERP")
        # prices at ETH-PERP's tick (0.01); the mid, half a tick finer, a place more
        assert row[1] == f"{mid:,.3f}" and row[7] == f"{index:,.2f}"
        assert all(len(cell.split(".")[1]) == 2 for cell in (row[2], row[4], row[7], row[8])), row
        assert [r[0] for r in cells(prices)][-3:] == ["BTC/USDC", "ETH/USDC", "USDT/USDC"]
