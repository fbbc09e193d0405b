"""The price ladder against the real local exchange: opened with ``D``, its cursor moved a level, to the best bid and
recentred; an order at the cursor for the ladder's size, shown on its level with its size, then cancelled at the
cursor; every check of the order form and the profile's guards holding on its orders."""

from __future__ import annotations

from decimal import Decimal

import pytest
from textual.widgets import Static

from tests.conftest import ALICE_KEY
from tests.ui.conftest import asked, dashboard, feed_ready, noted, settle
from tests.ui.screen_steps import until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading.ladder import bucket
from tui.ui.screens.heatmap import HeatmapScreen
from tui.ui.screens.ladder import LadderLine, LadderScreen
from tui.ui.screens.prompt import PromptScreen
from tui.ui.widgets.ladder import LadderPane

ALICE = Signer(ALICE_KEY)


def ladder_of(app: object) -> LadderPane:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, LadderScreen)
    return screen.query_one(LadderPane)


def row_text(ladder: LadderPane, price: Decimal) -> list[str]:
    """The cells of the ladder's line at ``price``, as shown."""
    assert ladder.axis is not None
    row = ladder.axis.row_of(price)
    assert row is not None, f"{price} is not on the ladder"
    return [ladder.lines.cell(f"r{row}", column) for column in range(6)]


async def open_ladder(pilot: object, app: object) -> LadderPane:
    await pilot.press("D")  # type: ignore[attr-defined]
    await settle(pilot, lambda: isinstance(app.screen, LadderScreen), what="the ladder")  # type: ignore[attr-defined]
    ladder = ladder_of(app)
    await settle(pilot, lambda: ladder.levels and ladder.cursor is not None, what="the ladder's levels")
    return ladder


@pytest.mark.long
async def test_cursor_moves_a_tick_joins_the_best_and_recentres(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """D opens the ladder centred on the mid, grouped finely enough to show the spread, the cursor on the mid's
    level; + and - move it one level, ',' and '.' to the best bid and ask, past the edge the axis follows; c
    recentres; the book's (grouped) sizes are on their levels; g groups as the book does; Escape goes back."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        book = app.feed.state.market.book
        ladder = await open_ladder(pilot, app)
        assert ladder.axis is not None and ladder.axis.rows == 48 - 1 - 1 - 1 - 3  # header, line, footer, pane
        assert book.mid is not None and book.best_bid is not None and book.best_ask is not None
        step = ladder.axis.step
        assert book.best_ask - book.best_bid <= step * (ladder.axis.rows // 2)  # the spread fits in half the rows
        mid_level = bucket(book.mid, step, "bids")
        assert ladder.cursor == mid_level
        centred = ladder.axis.top
        await pilot.press("plus", "plus", "minus")
        assert ladder.cursor == mid_level + step
        group = step if ladder.grouping != 1 else None
        [(bid, bid_size)] = book.levels("bids", 1, group)
        [(ask, ask_size)] = book.levels("asks", 1, group)
        await pilot.press("comma")
        assert ladder.cursor == bid and row_text(ladder, bid)[1] == f"{bid_size:,.4f}"
        await pilot.press("full_stop")
        assert ladder.cursor == ask and row_text(ladder, ask)[3] == f"{ask_size:,.4f}"
        top = ladder.axis.top
        for _ in range(ladder.axis.rows + 5):
            await pilot.press("plus")
        assert ladder.axis.top > top and ladder.axis.row_of(ladder.cursor) == 0  # the axis followed the cursor
        await pilot.press("c")
        assert ladder.cursor == mid_level and ladder.axis.top == centred
        grouping = ladder.grouping
        await pilot.press("g")
        assert ladder.grouping != grouping and ladder.axis.step != step
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")


async def test_buy_at_the_cursor_shows_on_its_level_and_cancels_at_the_cursor(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """With no size set and none in the profile, the ladder's line shows its own (twice the minimum order: 0.0002
    BTC), not "none"; z sets the size; b at a level below the best bid places a limit order there for that size,
    which the ladder shows on that level (My bids); x on that level cancels it."""
    app = dashboard(trader, sim, clock, ALICE)
    async with noted(app, (160, 48)) as (pilot, _notes):
        account = app.feed.state.account
        await settle(pilot, lambda: account.summary is not None, what="the account")
        book = app.feed.state.market.book
        ladder = await open_ladder(pilot, app)
        await pilot.press("comma", "minus", "minus", "minus")
        assert book.best_bid is not None and ladder.axis is not None
        price = bucket(book.best_bid, ladder.axis.step, "bids") - 3 * ladder.axis.step
        assert ladder.cursor == price
        line = app.screen.query_one(LadderLine)
        await settle(pilot, lambda: "size 0.0002 (z)" in str(line.render()), what="the ladder's own size")
        await pilot.press("z")
        await settle(pilot, lambda: isinstance(app.screen, PromptScreen), what="the size prompt")
        await pilot.press(*"0.002", "enter")
        await settle(pilot, lambda: isinstance(app.screen, LadderScreen), what="back on the ladder")
        await settle(pilot, lambda: "size 0.002 (z)" in str(line.render()), what="the size shown")
        await pilot.press("b")
        await settle(pilot, lambda: account.open_orders, what="the order")
        [order] = account.open_orders
        assert (order.side, order.limit_price, order.size) == ("b", price, Decimal("0.002"))
        await settle(pilot, lambda: row_text(ladder, price)[0] == "0.0020", what="the order on its level")
        assert row_text(ladder, price)[4] == ""  # nothing of ours on the ask side
        await pilot.press("x")
        await settle(pilot, lambda: not account.open_orders, what="the cancel")
        await settle(pilot, lambda: row_text(ladder, price)[0] == "", what="the level without the order")
        assert (await trader.open_orders(ALICE.address)).data == []


async def test_ladder_orders_take_the_forms_checks_and_the_guards(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """On ETH-PERP (~3,500): a size off the lot is refused at z (the size stays the ladder's own); an order under the
    minimum notional is refused with the form's words; above the profile's maximum notional the guard refuses it; a
    large one is asked first (default No): none of them reaches the exchange."""
    app = dashboard(trader, sim, clock, ALICE, max_order_notional=Decimal(20_000), confirm_notional=Decimal(2_000))
    async with noted(app, (120, 30)) as (pilot, notes):
        account = app.feed.state.account
        market = app.feed.state.market
        await settle(pilot, lambda: account.summary is not None, what="the account")
        symbol = "ETH-PERP"
        app.main.select(symbol)
        await settle(pilot, lambda: market.book.symbol == symbol and market.book.loaded, what="the ETH book")
        await open_ladder(pilot, app)
        sizes = app.main.desk.ladder

        async def size(text: str) -> None:
            await pilot.press("z")
            await settle(pilot, lambda: isinstance(app.screen, PromptScreen), what="the size prompt")
            await pilot.press(*text, "enter")
            await settle(pilot, lambda: isinstance(app.screen, LadderScreen), what="back on the ladder")

        default = sizes.size(symbol)  # twice the minimum order at the mid
        await size("0.0001")
        assert any("lot size" in m for m in notes.messages) and sizes.size(symbol) == default
        await size("0.001")  # a lot, worth ~3.5 USDC
        assert sizes.size(symbol) == "0.001"
        await pilot.press("j")
        await settle(pilot, lambda: any("below the minimum" in m for m in notes.messages), what="the form's check")
        await size("10")  # ~35,000 USDC: over the guard's 20,000
        await pilot.press("j")
        await settle(pilot, lambda: any("max_order_notional" in m for m in notes.messages), what="the guard")
        assert isinstance(app.screen, LadderScreen)  # refused, never asked
        await size("1")  # ~3,500: under the guard, over the confirmation's 2,000
        await asked(pilot, "j")
        await pilot.press("escape")  # No
        await settle(pilot, lambda: isinstance(app.screen, LadderScreen), what="back on the ladder")
        assert not account.open_orders
        assert (await trader.open_orders(ALICE.address)).data == []


async def test_the_dashboard_behind_the_ladder_draws_nothing_over_it(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """The ladder is opaque: a pane of the dashboard behind it that repaints (its status bar, here) asks the
    ladder's screen to repaint nothing. Before, Textual's count of the dashboard as a screen behind had the ladder
    repaint the dashboard's changed regions: ~7 KB/s of its keys panel rewritten at 160x48."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await open_ladder(pilot, app)
        screen = app.screen
        asked: list[tuple[object, ...]] = []
        refresh = screen.refresh

        def recording(*regions: object, **kwargs: object) -> object:
            asked.append(regions)
            return refresh(*regions, **kwargs)  # type: ignore[arg-type]

        screen.refresh = recording  # type: ignore[method-assign]
        main = app.main
        passes: list[int] = []
        # private: a repaint of the screen behind shows in no frame; its compositor's passes are counted
        compositor_refresh = main._compositor_refresh

        def counted() -> None:
            passes.append(len(main._compositor._dirty_regions))  # private: as above
            compositor_refresh()

        main._compositor_refresh = counted  # type: ignore[method-assign]  # private: as above
        main.query_one("#status").refresh()
        await until(pilot, lambda: any(passes), what="the dashboard's repaint, behind the ladder")
        assert [r for r in asked if r] == []


async def test_a_terminal_too_small_is_told_what_the_ladder_and_the_heatmap_need(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """At 60x20 the ladder's top line says it needs 70 columns; at 36x11 the heatmap's legend says it needs 40
    columns and 12 lines; neither fails."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(60, 20)) as pilot:
        await feed_ready(app)
        await pilot.press("D")
        await settle(pilot, lambda: isinstance(app.screen, LadderScreen), what="the ladder")
        line = app.screen.query_one(LadderLine)
        await settle(pilot, lambda: "needs 70 columns and 10 lines; this terminal is 60x20" in str(line.render()))
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is app.main, what="the dashboard")
        await pilot.resize_terminal(36, 11)
        await pilot.press("h")
        await settle(pilot, lambda: isinstance(app.screen, HeatmapScreen), what="the heatmap")
        legend = app.screen.query_one("#heatmap-legend", Static)
        await settle(pilot, lambda: "needs at least 40 columns and 12 lines" in str(legend.render()))


async def test_at_80x24_every_level_of_the_axis_shows(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    """At 80x24 the ladder has 18 levels and shows them all, its top level under the column header (a scroll left
    from the taller axis it had before its first layout hid two levels and left two blank lines)."""
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed_ready(app)
        ladder = await open_ladder(pilot, app)
        assert ladder.axis is not None and ladder.axis.rows == 18
        await settle(pilot, lambda: ladder.lines.scroll_y == 0, what="the top level shown")
        top = ladder.lines.cell("r0", 2)
        assert top and top in app.screen.query_one("#ladder-lines").render_line(1).text
