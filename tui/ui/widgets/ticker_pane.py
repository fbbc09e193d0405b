"""A ticker pane: one instrument's last price, 24h change, best bid and ask, mark, funding, volume and open interest,
in two lines (a layout of several markets shows one per instrument it follows)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from tui.feed.state import FeedState

from .display import fmt_compact, fmt_pct, fmt_price, fmt_rate
from .pane import FeedPane

__all__ = ["TickerPane"]


class TickerPane(FeedPane):
    """``symbol``'s ticker (None: the selected instrument's), from the feed's tickers of every instrument."""

    TOPICS: ClassVar[frozenset[str]] = frozenset({"markets"})
    AGE_TOPIC: ClassVar[str | None] = "markets"
    PACE: ClassVar[int] = 10  # once a second: each redraw writes both lines again (~600 bytes to the terminal)

    DEFAULT_CSS = """
    TickerPane > Static {
        height: 1fr;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        background: $surface;
        padding: 0 1;
    }
    """

    def __init__(self, state: FeedState, symbol: str | None = None, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.symbol = symbol
        self._shown: Content | None = None

    def compose(self) -> ComposeResult:
        yield Static("", markup=False)

    def refresh_state(self) -> None:
        market = self.state.market
        symbol = self.symbol or market.selected
        self.show_titles(f"Ticker {symbol}")
        t = market.tickers.get(symbol)
        info = market.instruments.get(symbol)
        if t is None:
            text = Content("not listed on this exchange" if market.instruments and info is None else "no ticker yet")
        else:
            tick = info.tick_size if info is not None else None
            c = self.colours  # the 24h change is a fraction, as the markets pane reads it
            colour = c.up if t.change_24h >= 0 else c.down
            text = Content.assemble(
                ("last ", c.muted), (fmt_price(t.last_price, tick), f"bold {colour}"),
                " ", (fmt_pct(t.change_24h), colour),
                (" · mark ", c.muted), fmt_price(t.mark_price, tick),
                (" · funding ", c.muted), fmt_rate(t.funding_rate), "\n",
                ("bid ", c.muted), (fmt_price(t.best_bid_price, tick), c.bid),
                (" ask ", c.muted), (fmt_price(t.best_ask_price, tick), c.ask),
                (" · vol ", c.muted), fmt_compact(t.volume_24h), (" · OI ", c.muted), fmt_compact(t.open_interest),
            )  # fmt: skip
        if text != self._shown:
            self._shown = text
            self.query_one(Static).update(text)
