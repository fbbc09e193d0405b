"""A new trade on top of the tape moves every row down a line: the rows find their look in the cache, and only the
lines whose content changed are repainted (what is repainted is what goes to the terminal)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.app import App, ComposeResult
from textual.geometry import Region

from tests.ui.test_lean_repaint import spy_refreshes
from tui.api.models import Trade
from tui.feed.book import BookState
from tui.feed.state import AccountState, FeedState, FeedStatus, MarketState
from tui.ui.widgets.tape import TradeTapePane
from tui.ui.widgets.tape_lines import TapeLines

T0 = 1_767_225_724_000


def trade(trade_id: int, price: int) -> Trade:
    return Trade(
        instrument_id=1, instrument="BTC-PERP", trade_id=trade_id, tx_hash="0x", side="b",
        price=Decimal(price), size=Decimal(1), maker="0x", taker="0x", timestamp=T0,
    )  # fmt: skip


class Tape(App[None]):
    def __init__(self, state: FeedState) -> None:
        super().__init__()
        self.state = state

    def compose(self) -> ComposeResult:
        yield TradeTapePane(self.state, id="tape")


def tape_state(*trades: Trade) -> tuple[MarketState, FeedState]:
    """A market holding ``trades`` (newest last), and the feed state around it."""
    market = MarketState(instruments={}, tickers={}, selected="BTC-PERP", book=BookState("BTC-PERP"))
    market.add_trades(trades)
    return market, FeedState(market, AccountState(address=None), FeedStatus())


async def redraw(pilot: Any, pane: TradeTapePane) -> None:
    """What the dashboard's refresh does for a pane whose state changed."""
    pane.dirty = True
    pane.flush()
    await pilot.pause()


def spy_draws(lines: TapeLines) -> list[tuple[Any, ...]]:
    """The rows drawn afresh (not found in the cache), by their cells."""
    drawn: list[tuple[Any, ...]] = []
    draw = lines._draw  # private: a row drawn afresh, not taken from the cache, shows in no frame

    def recording(header: bool, cells: Any) -> Any:
        drawn.append(cells)
        return draw(header, cells)

    lines._draw = recording  # type: ignore[method-assign]  # private: as above
    return drawn


async def test_a_new_trade_on_top_reuses_cached_rows_and_repaints_only_changed_lines() -> None:
    # newest first; three trades in a row look the same (same second, side, price and size)
    market, state = tape_state(*(trade(i, p) for i, p in enumerate((96, 97, 98, 99, 100, 100, 100, 101), start=3)))
    app = Tape(state)
    async with app.run_test(size=(40, 10)) as pilot:  # the pane: 10 lines, 7 trades under the header
        pane = app.query_one(TradeTapePane)
        await pilot.pause()
        await redraw(pilot, pane)
        lines = pane.lines
        prices = ["101.00", "100.00", "100.00", "100.00", "99.00", "98.00", "97.00"]
        assert pane.slots == 7 and [lines.cell(i, 2) for i in range(7)] == prices
        refreshed, drawn = spy_refreshes(lines), spy_draws(lines)

        market.add_trades([trade(11, 102)])
        await redraw(pilot, pane)
        assert [lines.cell(i, 2) for i in range(7)] == ["102.00", *prices[:-1]]
        # the price changed on rows 0, 1, 4, 5 and 6 (lines 1, 2, 5, 6, 7 under the header); rows 2 and 3 show
        # the same 100 as before: not repainted. The time, the side and the size are as they were.
        assert refreshed == [(Region(10, y, 10, 1),) for y in (1, 2, 5, 6, 7)]
        assert [cells[2][0][0] for cells in drawn] == ["102.00"]  # the rows that moved were in the cache
        assert lines.render_line(1).text.startswith("00:02:04 ▲")  # the new top line, as drawn


async def test_rows_that_fit_change_the_tape_without_laying_out_the_screen() -> None:
    """A tape filling up with its first trades changed its virtual size with each one, and Textual laid out and
    repainted the whole screen for it (the dashboard's first seconds). Rows that fit the view before and after
    change the size without a layout; more than fit do lay it out, and the tape can then scroll."""
    market, state = tape_state(*(trade(i, 100 + i) for i in range(2)))
    app = Tape(state)
    async with app.run_test(size=(40, 10)) as pilot:
        pane = app.query_one(TradeTapePane)
        await pilot.pause()
        await redraw(pilot, pane)
        lines = pane.lines
        assert lines.row_count == 2 and lines.virtual_size.height == 3
        layouts: list[bool] = []
        # private: a layout of the screen shows in no frame of its own: Textual's call for one is counted
        screen_layout = app.screen._refresh_layout
        # private: as above
        app.screen._refresh_layout = lambda *a, **k: (layouts.append(True), screen_layout(*a, **k))[1]  # type: ignore[method-assign]

        market.add_trades([trade(5, 110)])
        await redraw(pilot, pane)
        assert lines.row_count == 3 and lines.virtual_size.height == 4 and lines.cell(0, 2) == "110.00"
        assert layouts == []  # the rows fit before and after: no layout of the screen

        row = tuple(((text, ""),) for text in ("00:00:09", "▲", "120.00", "0.5000"))  # time, side, price, size
        lines.set_rows([row] * 12)  # more than the view shows (9 lines under the header)
        await pilot.pause()
        assert layouts and lines.virtual_size.height == 13 and lines.max_scroll_y > 0
