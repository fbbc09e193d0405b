"""The history screen: pages, the instrument filter, every tab, and a transfer opened in the explorer."""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal

from tests.conftest import ALICE_KEY, BOB_KEY
from tests.ui.conftest import Seen, dashboard
from tests.ui.screen_steps import cells, show, until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.explorer import ExplorerScreen
from tui.ui.screens.history import HistoryScreen
from tui.ui.screens.prompt import PromptScreen
from tui.ui.widgets.record_table import Facts, RecordTable

ALICE = Signer(ALICE_KEY)
BOB = Signer(BOB_KEY)


async def test_pages_filter_tabs_and_a_transfer_opened_in_the_explorer(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    for instrument_id, symbol, size in [(1, "BTC-PERP", "0.001"), (2, "ETH-PERP", "0.01")] * 2 + [
        (2, "ETH-PERP", "0.01")
    ]:
        ask = (await trader.orderbook(symbol, depth=1)).asks[0].price
        await trader.place_order([order_item(instrument_id, "b", ask, size, tif="IOC")])
    await trader.place_order([order_item(1, "b", "90000", "0.001", cloid="resting")])
    sent = await trader.transfer(1, "12.5", BOB.address)
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
        screen = await show(pilot, seen, "history", HistoryScreen, page_size=2)
        fills = screen.query_one("#fills-table", RecordTable)
        line = screen.query_one("#page-line")
        assert "page 1 of 3 · 5 records" in str(line.render())
        first = cells(fills)
        assert [r[1] for r in first] == ["ETH-PERP", "ETH-PERP"] and first[0][2] == "buy"
        await pilot.press("right_square_bracket")
        await until(pilot, lambda: "page 2 of 3" in str(line.render()), "page 2")
        await until(pilot, lambda: [r[1] for r in cells(fills)] == ["BTC-PERP", "ETH-PERP"], "page 2's rows")
        await pilot.press("right_square_bracket", "right_square_bracket")  # the second is past the end
        await until(pilot, lambda: "page 3 of 3" in str(line.render()) and fills.row_count == 1, "page 3")
        await pilot.press("left_square_bracket")
        await until(pilot, lambda: "page 2 of 3" in str(line.render()), "back to page 2")

        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen), "the filter prompt")
        await pilot.press(*"eth-perp", "enter")
        await until(pilot, lambda: "page 1 of 2 · 3 records · instrument ETH-PERP" in str(line.render()), "filter")
        assert {r[1] for r in cells(fills)} == {"ETH-PERP"}

        await pilot.press("2")
        orders = screen.query_one("#orders-table", RecordTable)
        await until(pilot, lambda: "Orders · page 1 of 2 · 3 records" in str(line.render()), "orders, filtered")
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen), "the filter prompt")
        await pilot.press("enter")  # empty: every instrument
        await until(pilot, lambda: "Orders · page 1 of 3 · 6 records" in str(line.render()), "every order")
        assert cells(orders)[0][1:5] == ["BTC-PERP", cells(orders)[0][2], "buy", "limit GTC"]
        assert cells(orders)[0][-1] == "resting" and cells(orders)[0][9] == "open"

        await pilot.press("3")
        await until(pilot, lambda: "Funding · page 1 of 1 · 0 records" in str(line.render()), "funding")
        await pilot.press("4")
        transfers = screen.query_one("#transfers-table", RecordTable)
        await until(pilot, lambda: transfers.row_count == 1, "the transfer")
        [row] = cells(transfers)
        assert row[1:] == [
            "derivative_balance_transfer", "0x5d5c…00D2", "0x" + BOB.address[2:6] + "…" + BOB.address[-4:], "USDC",
            "12.50", sent.tx_hash[:6] + "…" + sent.tx_hash[-4:],
        ]  # fmt: skip
        transfers.focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ExplorerScreen), "the explorer")
        detail = app.screen.query_one("#detail", Facts)
        await until(pilot, lambda: sent.tx_hash in detail.text, "the transaction in the explorer")
        assert "1052 derivativeBalanceTransferRequest" in detail.text
        await pilot.press("escape")
        assert app.screen is screen  # back in the history
        await pilot.press("escape")
        assert app.screen is app.main


async def test_order_history_shows_what_each_order_filled_prices_at_the_tick_and_money_in_cents(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    book = await trader.orderbook("BTC-PERP", depth=3)
    # walks into the second level (half of it, in whole lots: a level a taker has hit may hold an odd number)
    size = (book.asks[0].size + (book.asks[1].size / 2).quantize(Decimal("0.0001"), ROUND_CEILING)).normalize()
    bound = (book.asks[0].price * Decimal("1.05")).quantize(book.asks[0].price)
    await trader.place_order([order_item(1, "b", bound, size, tif="IOC", is_market=True)])
    await trader.place_order([order_item(1, "b", "90000", "0.001")])  # rests: nothing filled
    fills = (await trader.fills(ALICE.address)).data
    value = sum((f.price * f.size for f in fills), Decimal(0))
    average = (value / size).quantize(Decimal("0.001"))  # the tick (0.1), two places finer
    assert {f.price for f in fills} == {book.asks[0].price, book.asks[1].price}
    app = dashboard(trader, sim, clock, ALICE)
    seen = Seen()
    async with app.run_test(size=(160, 40), message_hook=seen) as pilot:
        screen = await show(pilot, seen, "history", HistoryScreen, page_size=50)
        fills_table = screen.query_one("#fills-table", RecordTable)
        await until(pilot, lambda: fills_table.row_count == 2, "the fills")
        fees = [row[7] for row in cells(fills_table)]
        assert all(len(fee.split(".")[1]) == 2 for fee in fees), fees  # USDC money in cents, as the balances
        await pilot.press("2")
        orders = screen.query_one("#orders-table", RecordTable)
        await until(pilot, lambda: orders.row_count == 2, "the orders")
        resting, market = cells(orders)
        assert market[4:10] == ["market", "market", f"{size:,f}", f"{size:,f}", f"{average.normalize():,f}", "filled"]
        assert resting[5:9] == ["90,000.0", "0.001", "0", "-"]  # a limit order's price at the tick; nothing filled
