"""What an order needs to know of the market now (``OrderContext``), read from the feed's state: the
instrument's tick, lot and limits, the best prices and the visible book, the funds available, the position."""

from __future__ import annotations

from decimal import Decimal

from tui.feed.state import FeedState

from .orders import DEFAULT_SLIPPAGE_PCT, OrderContext

BOOK_DEPTH = 100  # levels a market order's fill is estimated against


def order_context(state: FeedState, symbol: str, slippage_pct: Decimal = DEFAULT_SLIPPAGE_PCT) -> OrderContext | None:
    """What order entry needs to know about ``symbol`` now; None until its instrument is known."""
    market = state.market
    info = market.instruments.get(symbol)
    if info is None:
        return None
    ticker = market.tickers.get(symbol)
    book = market.book if market.book.symbol == symbol and market.book.loaded else None
    best_bid = book.best_bid if book else ticker.best_bid_price if ticker else None
    best_ask = book.best_ask if book else ticker.best_ask_price if ticker else None
    summary = state.account.summary
    available = Decimal(0)
    base_available: Decimal | None = None
    if summary is not None:
        if info.kind == "perp":
            available = summary.available_balance
        else:
            base, _, quote = symbol.partition("/")
            q = summary.spot_collateral.get(quote or "USDC")
            b = summary.spot_collateral.get(base)
            available = q.withdrawable_balance if q else Decimal(0)
            base_available = b.withdrawable_balance if b else Decimal(0)
    position = sum((p.size for p in state.account.positions if p.instrument == symbol), Decimal(0))
    return OrderContext(
        instrument_id=info.id,
        symbol=symbol,
        kind=info.kind,
        tick=info.tick_size,
        lot=info.lot_size,
        min_notional=info.min_notional,
        max_leverage=Decimal(info.max_leverage),
        best_bid=best_bid or None,
        best_ask=best_ask or None,
        mark=ticker.mark_price if ticker else None,
        available=available,
        base_available=base_available,
        position=position,
        bids=tuple(book.levels("bids", BOOK_DEPTH)) if book else (),
        asks=tuple(book.levels("asks", BOOK_DEPTH)) if book else (),
        slippage_pct=slippage_pct,
    )
