"""One changed figure repaints that figure, not the table: what is repainted is what goes to the terminal.

The tables record the regions they ask Textual to repaint (a wrapper around their own ``refresh``);
the picture itself is checked too, so a repaint that is too small would show the old figure.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip

from tests.conftest import ALICE_KEY
from tests.ui.conftest import dashboard, feed_ready, frames_handed, settle
from tests.ui.screen_steps import until
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.cli.main import build_parser
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.app import XtuiApp
from tui.ui.render.cell_table import CellTable
from tui.ui.screens.main import LOW_BANDWIDTH_REFRESH_S, REFRESH_S
from tui.ui.widgets.account_bar import AccountBar
from tui.ui.widgets.book import OrderBookPane
from tui.ui.widgets.book_lines import BookLines, Column
from tui.ui.widgets.line_strips import LineStrips
from tui.ui.widgets.positions import PositionsPane

ALICE = Signer(ALICE_KEY)


def spy_refreshes(widget: Any) -> list[tuple[Region, ...]]:
    calls: list[tuple[Region, ...]] = []
    refresh = widget.refresh

    def recording(*regions: Region, **kwargs: Any) -> Any:
        calls.append(regions)
        return refresh(*regions, **kwargs)

    widget.refresh = recording
    return calls


class Tables(App[None]):
    def compose(self) -> ComposeResult:
        yield CellTable(cursor_type="row", cell_padding=0, id="cells")
        yield BookLines([Column("Price", 11), Column("Size", 10), Column("Bar", 12, right=False)], id="book")


def market_columns(table: CellTable) -> CellTable:
    for key, width in (("market", 10), ("last", 12), ("mark", 12)):
        table.add_column(key, width=width, key=key)
    return table


async def test_a_changed_cell_repaints_that_cell_only() -> None:
    app = Tables()
    async with app.run_test(size=(80, 20)) as pilot:
        table = market_columns(app.query_one(CellTable))
        table.add_row("BTC-PERP", "100,000.0", "100,001.0", key="btc")
        table.add_row("ETH-PERP", "3,500.00", "3,500.10", key="eth")
        await pilot.pause()
        calls = spy_refreshes(table)
        table.update_cell("eth", "last", "3,501.00")
        await pilot.pause()
        assert calls == [(Region(10, 2, 12, 1),)]  # row 2 (under the header), the second column: 12 cells
        assert "3,501.00" in str(table.get_row("eth")) and app.export_screenshot().count("3,501.00") == 1


async def test_a_book_row_repaints_from_its_first_changed_cell_to_its_last() -> None:
    app = Tables()
    async with app.run_test(size=(80, 20)) as pilot:
        book = app.query_one(BookLines)
        book.set_rows(
            [("a0", (("100.0", ""), ("1.0", ""), ("██", ""))), ("b0", (("99.0", ""), ("2.0", ""), ("███", "")))]
        )
        await pilot.pause()
        calls = spy_refreshes(book)
        book.set_rows(
            [("a0", (("100.0", ""), ("1.5", ""), ("██", ""))), ("b0", (("99.0", ""), ("2.0", ""), ("███", "")))]
        )
        await pilot.pause()
        assert calls == [(Region(11, 1, 10, 1),)]  # only a0's size: the price and the bar are as they were
        book.set_rows(
            [("a0", (("100.0", ""), ("1.5", ""), ("██", ""))), ("b0", (("99.0", ""), ("2.5", ""), ("████", "")))]
        )
        await pilot.pause()
        assert calls[1] == (Region(11, 2, book.size.width - 11, 1),)  # b0's size and bar, to the line's end
        assert "2.5" in app.export_screenshot()


async def test_low_bandwidth_draws_no_depth_bars_and_redraws_less_often(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    for low, bars in ((False, True), (True, False)):
        app = dashboard(trader, sim, clock, ALICE, low_bandwidth=low)
        async with app.run_test(size=(160, 48)) as pilot:
            await feed_ready(app)
            lines = app.main.query_one("#book-table", BookLines)
            await settle(pilot, lambda: lines.cell("b0", 0) != "", what="the book")  # noqa: B023 (awaited here)
            assert bool(lines.cell("b0", 3)) is bars and bool(lines.cell("a0", 3)) is bars
            assert app.main.context.refresh_s == (LOW_BANDWIDTH_REFRESH_S if low else REFRESH_S)
            # the figures that move with every mark: the account line once a second, every 2 s on a slow link
            bar, positions = app.main.query_one(AccountBar), app.main.query_one(PositionsPane)
            refresh_s = app.main.context.refresh_s
            assert bar.pace() * refresh_s == (2.0 if low else 1.0)
            assert positions.pace() * refresh_s == (2.0 if low else 1.0)  # the account bar's pace: one uPnL


def test_the_command_line_takes_low_bandwidth() -> None:
    assert build_parser().parse_args(["--low-bandwidth"]).low_bandwidth is True
    assert build_parser().parse_args([]).low_bandwidth is False


async def test_behind_a_dialog_a_change_repaints_its_own_lines_not_the_screen(
    sim: LocalExchange, clock: FrozenClock, trader: Client, bob: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The book and tape keep moving behind the order form. Textual passed each change behind a dialog to the
    dialog's screen and then marked the whole screen behind for repaint, so from the second change on every
    frame under a dialog was a whole one (~120 KB a second at 160x48): now each change is its own lines."""
    from textual._compositor import ChopsUpdate, LayoutUpdate

    from tui.ui.screens.order_form import OrderFormScreen

    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(160, 48)) as pilot:
        await feed_ready(app)
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, OrderFormScreen), what="the order form")
        # its first frames (the form over the dimmed dashboard) are whole, and no event says which is the last
        await pilot.pause(0.3)
        drawn: list[str] = []
        frames_handed(monkeypatch, XtuiApp, lambda _app, frame: drawn.append(type(frame).__name__))
        book = app.feed.state.market.book
        book_pane = app.main.query_one(OrderBookPane)
        await bob.cancel_all()  # the faucet funds Bob, whose orders are no news to Alice's dashboard
        for i in range(6):  # Bob's orders rest in the book behind the form: a new level each time
            price = 95_000 + 10 * i
            await bob.place_order([order_item(1, "b", str(price), "0.01")])
            for _ in range(200):  # not ``settle``: it ends with a layout of the whole screen, on purpose
                if any(level[0] == price for level in book.levels("bids", 50)):
                    break
                await pilot.pause(0.05)
            before = len(drawn)  # then until the book pane has taken the level and a frame has been drawn since
            await until(pilot, lambda n=before: not book_pane.dirty and len(drawn) > n, "the new level drawn")
        assert drawn.count(ChopsUpdate.__name__) >= 3, drawn
        assert LayoutUpdate.__name__ not in drawn, drawn
        assert isinstance(app.screen, OrderFormScreen)


async def test_a_table_updated_many_times_keeps_only_the_renders_it_shows() -> None:
    """DataTable kept every render of every cell until 10,000 had piled up: megabytes in a busy table."""
    app = Tables()
    async with app.run_test(size=(80, 20)) as pilot:
        table = market_columns(app.query_one(CellTable))
        for n in range(8):
            table.add_row(f"M{n}", "1.00", "1.00", key=f"m{n}")
        for tick in range(60):
            table.update_cell(f"m{tick % 8}", "last", f"{tick}.00")
            await pilot.pause()  # each change drawn, as the dashboard draws it
        # private: what DataTable keeps of its renders shows nowhere but in its caches
        held = len(table._cell_render_cache) + len(table._row_render_cache) + len(table._line_cache)
        assert held <= 3 * 9 + 9 + 9, held  # at most what is shown: 9 lines of 3 cells (header included)
        assert "59.00" in app.export_screenshot()


def test_line_strips_keep_twice_the_lines_shown_and_draw_a_kept_line_once() -> None:
    strips: LineStrips[int] = LineStrips()
    drawn: list[int] = []

    def draw(key: int) -> Strip:
        drawn.append(key)
        return Strip([Segment(str(key))])

    for key in range(100):
        strips.drawn(key, partial(draw, key), height=10)
    assert len(strips) <= 20
    strips.drawn(99, partial(draw, 99), height=10)
    assert drawn.count(99) == 1


async def test_a_busy_book_keeps_the_strips_of_twice_its_height() -> None:
    app = Tables()
    async with app.run_test(size=(80, 20)) as pilot:
        book = app.query_one(BookLines)
        for tick in range(40):
            book.set_rows([(f"l{i}", ((f"{100 + tick + i}.0", ""), ("1.0", ""), ("█", ""))) for i in range(5)])
            await pilot.pause()
        # private: the strips a book keeps show nowhere else (1,024 were kept, each level ever drawn)
        assert len(book._strips) <= 2 * book.size.height < 40 * 5
        assert "143.0" in app.export_screenshot()
