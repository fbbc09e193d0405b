"""Snapshots of a saved two-market layout (BTC and ETH: ticker, chart and book each; positions and open orders
across the bottom) at 160x48 and 120x30, the focused pane's instrument named in the bar, and at 80x24 the notice of
what it needs.

Built as ``test_snapshots`` builds its pictures: a seeded exchange, a frozen clock, a pinned budget, no polling.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.conftest import settle
from tests.ui.test_snapshots import exchange, frozen, loaded, snapshot_app
from tui.feed.layouts import LayoutBook, layout_from_json, layouts_path
from tui.paths import data_dir
from tui.sim.clock import FrozenClock
from tui.sim.embedded import EmbeddedExchange
from tui.ui.screens.layout_screen import LayoutScreen
from tui.ui.widgets.book import OrderBookPane
from tui.ui.widgets.chart import ChartPane

__all__ = ["exchange", "frozen"]  # the fixtures, used by name

TWO_MARKETS = {
    "name": "btc and eth",
    "columns": ["1fr", "1fr"],
    "rows": [4, "1fr", "1fr", 6],
    "panes": [
        {"pane": "ticker", "row": 0, "col": 0, "instrument": "BTC-PERP"},
        {"pane": "ticker", "row": 0, "col": 1, "instrument": "ETH-PERP"},
        {"pane": "chart", "row": 1, "col": 0, "instrument": "BTC-PERP"},
        {"pane": "chart", "row": 1, "col": 1, "instrument": "ETH-PERP"},
        {"pane": "book", "row": 2, "col": 0, "instrument": "BTC-PERP"},
        {"pane": "book", "row": 2, "col": 1, "instrument": "ETH-PERP"},
        {"pane": "positions", "row": 3, "col": 0},
        {"pane": "orders", "row": 3, "col": 1},
    ],
}


@pytest.mark.parametrize("size", [(160, 48), (120, 30), (80, 24)], ids=["160x48", "120x30", "80x24"])
def test_two_markets_layout(
    snap_compare: Any, exchange: EmbeddedExchange, frozen: FrozenClock, size: tuple[int, int]
) -> None:
    LayoutBook(layouts_path(data_dir(), "LOCAL"), [layout_from_json(TWO_MARKETS)]).save()

    async def show_layout(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("Y")
        await settle(pilot, lambda: isinstance(pilot.app.screen, LayoutScreen), what="the layout")
        screen = pilot.app.screen

        def ready() -> bool:
            books = list(screen.query(OrderBookPane))
            charts = list(screen.query(ChartPane))
            tickers = pilot.app.feed.state.market.tickers
            return screen.has_class("-small") or (
                all(b.state.market.book.loaded for b in books)
                and all(c.state.market.candles and not c.state.market.chart_loading for c in charts)
                and {"BTC-PERP", "ETH-PERP"} <= set(tickers)
            )

        await settle(pilot, ready, what="both markets")
        charts = list(screen.query(ChartPane))
        if charts and not screen.has_class("-small"):
            charts[1].focus()  # ETH's: the bar says orders go to it
        await settle(pilot, lambda: True)

    assert snap_compare(snapshot_app(exchange, frozen), terminal_size=size, run_before=show_layout)
