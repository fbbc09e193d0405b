"""What an order needs to know of the market now (``OrderContext``), read from the feed's state: the
instrument's tick, lot and limits, the best prices and the visible book, the funds available, the position, the
leverage in force; and what its risk estimate needs of the account (``risk_inputs``)."""

from __future__ import annotations

from decimal import Decimal

from tui.api.models import LeverageSetting, UserFees
from tui.feed.state import FeedState

from .orders import DEFAULT_SLIPPAGE_PCT, OrderContext
from .risk_preview import RiskInputs

BOOK_DEPTH = 100  # levels a market order's fill is estimated against


def order_context(
    state: FeedState,
    symbol: str,
    slippage_pct: Decimal = DEFAULT_SLIPPAGE_PCT,
    setting: LeverageSetting | None = None,
) -> OrderContext | None:
    """What order entry needs to know about ``symbol`` now; None until its instrument is known. The leverage in
    force is ``setting``'s (the exchange's ``instrument_leverage``), else the position's, else not known."""
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
    held = next((p for p in state.account.positions if p.instrument == symbol and p.size), None)
    leverage = setting.leverage if setting is not None else held.leverage if held is not None else None
    return OrderContext(
        instrument_id=info.id,
        symbol=symbol,
        kind=info.kind,
        tick=info.tick_size,
        lot=info.lot_size,
        min_notional=info.min_notional,
        max_leverage=Decimal(info.max_leverage),
        leverage=leverage if info.kind == "perp" and leverage else None,
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


def risk_inputs(
    state: FeedState, symbol: str, setting: LeverageSetting | None, fees: UserFees | None
) -> RiskInputs | None:
    """What the risk estimate of an order on the perp ``symbol`` needs, from the account summary and positions,
    the instrument's leverage setting and the account's fee rates; None for a spot instrument or none known."""
    info = state.market.instruments.get(symbol)
    if info is None or info.kind != "perp":
        return None
    account = state.account
    summary = account.summary
    held = next((p for p in account.positions if p.instrument == symbol and p.size), None)
    leg = summary.perp_positions.get(symbol) if summary is not None else None
    isolated: bool | None = None
    if setting is not None:
        isolated = setting.margin_type.lower().startswith("iso")
    elif held is not None:
        isolated = held.margin_mode.lower().startswith("iso")
    leverage = setting.leverage if setting is not None else held.leverage if held is not None else None
    size = held.size if held is not None else Decimal(0)
    own_mm = leg.mm if leg is not None and not isolated else Decimal(0)
    known = summary is not None and (leg is not None or not size)  # a position the summary does not show yet
    return RiskInputs(
        leverage=leverage or None,
        isolated=isolated,
        position=size,
        entry=held.entry_price if held is not None else None,
        iso_margin=(leg.im if leg is not None else None) if size else Decimal(0),
        margin_balance=summary.margin_balance if summary is not None and known else None,
        position_upnl=(leg.upnl if leg is not None else None) if size else Decimal(0),
        other_mm=summary.maintenance_margin - own_mm if summary is not None and known else None,
        available=summary.available_balance if summary is not None else None,
        tiers=info.margin_tiers,
        maker_rate=fees.perp_maker_fee_rate if fees is not None else None,
        taker_rate=fees.perp_taker_fee_rate if fees is not None else None,
    )
