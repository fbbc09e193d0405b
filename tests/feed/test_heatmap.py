"""The heatmap's history without Textual: bounded (columns, levels, trades), a new history for another
instrument, the trades of each column, and how the columns lay out on a price axis."""

from __future__ import annotations

from array import array
from decimal import Decimal as D

from hypothesis import given
from hypothesis import strategies as st

from tui.api.models import BookLevel, Trade, decode
from tui.feed.book import BookState
from tui.feed.heatmap import SHADES, DepthColumn, DepthHistory, heat_rows
from tui.feed.state import MarketState


def trade(trade_id: int, price: str, size: str, side: str = "b", symbol: str = "BTC-PERP") -> Trade:
    return decode(
        {
            "instrument_id": 1, "instrument": symbol, "trade_id": trade_id, "tx_hash": "0x01", "side": side,
            "price": price, "size": size, "maker": "0x", "taker": "0x", "timestamp": 1_767_225_600_000,
        },
        Trade,
    )  # fmt: skip


def market(symbol: str = "BTC-PERP", levels: int = 3) -> MarketState:
    book = BookState(symbol)
    bids = [BookLevel(price=D(100 - i), size=D(i + 1)) for i in range(levels)]
    asks = [BookLevel(price=D(101 + i), size=D(i + 1)) for i in range(levels)]
    book.replace(bids, asks, 1, 0, 0.0)
    return MarketState(instruments={}, tickers={}, selected=symbol, book=book)


def test_the_ring_is_bounded_and_another_instrument_starts_again() -> None:
    """600 samples into a ring of 5 keep the last 5; each keeps at most 80 levels a side; ETH clears BTC's."""
    history = DepthHistory(columns=5)
    m = market(levels=200)
    for i in range(600):
        assert history.sample(m, float(i))
    assert len(history.ring) == 5 and history.ring[0].at_s == 595.0 and history.samples == 600
    assert len(history.ring[-1].bids) == 2 * 80 and len(history.ring[-1].asks) == 2 * 80
    history.sample(market("ETH-PERP"), 601.0)
    assert history.symbol == "ETH-PERP" and len(history.ring) == 1


def test_a_column_has_the_trades_since_the_one_before() -> None:
    """The trades held before the first column are not in it; then each column has those that came after the
    last one (at most 32, the largest), and an unloaded or stale book takes no column."""
    history = DepthHistory()
    m = market()
    m.add_trades([trade(1, "100", "1")])
    history.sample(m, 0.0)
    assert len(history.ring[-1].trades) == 0
    m.add_trades([trade(2, "101", "2", "s"), trade(3, "100", "0.5")])
    history.sample(m, 1.0)
    assert list(history.ring[-1].trades) == [101.0, 2.0, 0.0, 100.0, 0.5, 1.0]  # the largest first
    m.add_trades([trade(10 + i, "100", str(i + 1)) for i in range(40)])
    history.sample(m, 2.0)
    assert len(history.ring[-1].trades) == 3 * 32 and history.ring[-1].trades[1] == 40.0
    m.book.stale = True
    assert not history.sample(m, 3.0) and len(history.ring) == 3


def column(bids: list[float], asks: list[float], trades: list[float] | None = None) -> DepthColumn:
    return DepthColumn(0.0, array("d", bids), array("d", asks), array("d", trades or []))


def test_rows_shade_each_band_by_size_with_the_trades_over_it() -> None:
    """Bands of 1 from 103 down: the largest size is the darkest shade, a small one the lightest; asks and bids
    keep their side; a buy trade's mark covers its band; levels off the axis are not drawn."""
    grid = heat_rows(
        [
            column([100.0, 8.0, 99.0, 1.0, 50.0, 9.0], [101.0, 8.0, 200.0, 9.0]),
            column([100.0, 8.0], [101.0, 8.0], [101.0, 0.3, 1.0]),
        ],
        top=103.0,
        step=1.0,
        rows=5,
    )
    assert [cell.text for cell in grid[3]] == [SHADES[4], SHADES[4]]  # 100: the bid
    assert (grid[4][0].text, grid[4][0].kind) == (SHADES[1], "bid")  # 99: 1 of 8
    assert (grid[2][0].kind, grid[2][1].text, grid[2][1].kind) == ("ask", "▲", "buy")  # 101, then a buy took
    assert all(cell.kind == "" for row in grid[:2] for cell in row)


@given(price=st.floats(min_value=0.0, max_value=200.0), step=st.sampled_from([0.1, 1.0, 10.0]))
def test_any_price_lands_on_its_band_or_off_the_axis(price: float, step: float) -> None:
    """Whatever the price, a level lands on the one band whose range holds it, or nowhere."""
    top, rows = 100.0, 50
    grid = heat_rows([column([price, 1.0], [])], top, step, rows)
    marked = [y for y, row in enumerate(grid) if row[0].kind]
    if top - rows * step < price <= top:
        assert len(marked) == 1
        y = marked[0]
        assert top - (y + 1) * step - 1e-6 <= price <= top - y * step + 1e-6
    else:
        assert marked == [] or price == top - rows * step
