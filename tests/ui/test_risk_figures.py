"""Risk figures a trader acts on: liquidation prices (the exchange's, else an estimate, else "none" and why),
the margin in use with isolated margin counted, and order types shown as they are."""

from __future__ import annotations

from decimal import Decimal

import msgspec

from tests.conftest import ALICE_KEY
from tui.api.client import Client
from tui.api.models import AccountSummary, Order, Position
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.feed.risk import NO_PRICE_REACHES, liquidation, margin_in_use
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.widgets.orders import order_type

ALICE = Signer(ALICE_KEY)


async def _position(trader: Client, side: str, size: str) -> tuple[Position, AccountSummary, Decimal]:
    book = await trader.orderbook("BTC-PERP", depth=5)
    through = book.asks[-1].price * Decimal("1.01") if side == "b" else book.bids[-1].price * Decimal("0.99")
    await trader.place_order([order_item(1, side, through.quantize(Decimal("0.1")), size, tif="IOC")])
    [position] = [p for p in await trader.positions(ALICE.address) if p.size]
    summary = await trader.account_summary(ALICE.address)
    [ticker] = await trader.ticker("BTC-PERP")
    return position, summary, ticker.mark_price


def _without_exchange_figure(summary: AccountSummary) -> AccountSummary:
    """The summary as an exchange that gives no liquidation price sends it."""
    legs = {k: msgspec.structs.replace(v, liquidation_price=Decimal(0)) for k, v in summary.perp_positions.items()}
    return msgspec.structs.replace(summary, perp_positions=legs)


async def test_a_cross_short_takes_the_exchanges_price_and_the_estimate_agrees(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    position, summary, mark = await _position(trader, "s", "0.5")
    given = summary.perp_positions["BTC-PERP"].liquidation_price
    assert given > mark * 2  # ~100k of equity behind a 0.5 BTC short: far above
    assert liquidation(position, mark, summary).price == given and not liquidation(position, mark, summary).estimate

    estimate = liquidation(position, mark, _without_exchange_figure(summary))
    assert estimate.estimate and estimate.price is not None
    # the exchange's own figure also subtracts the tier's maintenance deduction: within a percent
    assert abs(estimate.price - given) / given < Decimal("0.01"), (estimate.price, given)


async def test_a_cross_long_that_no_price_liquidates_says_none_and_why(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    position, summary, mark = await _position(trader, "b", "0.01")
    assert summary.perp_positions["BTC-PERP"].liquidation_price == 0  # the exchange: no positive price does
    liq = liquidation(position, mark, summary)
    assert liq.price is None and liq.reason == NO_PRICE_REACHES


def test_the_cross_estimate_by_hand() -> None:
    """Short 1 BTC at 100,000, margin balance 20,000 with the position's uPnL at 0 (mark = entry), its
    maintenance 500 (rate 0.5%), nothing else held. B + s * (p - e) = M + r * |s| * p:
    20,000 - (p - 100,000) = 0.005 p  =>  p = 120,000 / 1.005 = 119,402.98..."""
    leg = {"position_type": "oneWay", "legs": [], "liquidation_price": "0", "mm": "500", "im": "10000", "upnl": "0"}
    summary = _summary(margin_balance="20000", maintenance_margin="500", perp_positions={"BTC-PERP": leg})
    short = _pos(size="-1", entry="100000", mode="cross")
    liq = liquidation(short, Decimal(100_000), summary)
    assert liq.estimate and liq.price is not None
    assert liq.price.quantize(Decimal("0.01")) == Decimal("119402.99")


def test_margin_in_use_counts_isolated_margin() -> None:
    iso = {"position_type": "oneWay", "legs": [], "liquidation_price": "0", "mm": "50", "im": "2000", "upnl": "0"}
    summary = _summary(initial_margin="0", perp_positions={"ETH-PERP": iso})
    # the summary's initial margin holds only the cross part: 2,000 USDC sit in the isolated position
    assert margin_in_use(summary, [_pos(size="1", entry="3000", mode="isolated", name="ETH-PERP")]) == 2000


def test_order_types_are_named_as_traders_name_them() -> None:
    def order(**kw: object) -> Order:
        base = {"trigger_px": "0", "is_market": False, "tpsl": "", "limit_price": "100"} | kw
        return _order(**base)

    assert order_type(order()) == "limit"
    assert order_type(order(trigger_px="101300", limit_price="0", is_market=True)) == "stop market"
    assert order_type(order(trigger_px="101300", limit_price="101400")) == "stop limit"
    assert order_type(order(trigger_px="101300", tpsl="tp", limit_price="0", is_market=True)) == "TP market"
    assert order_type(order(trigger_px="90000", tpsl="sl", limit_price="89900")) == "SL limit"
    assert order_type(order(trigger_px="90000", tpsl="sl", grouping="normal", is_market=True)) == "bracket SL"
    assert order_type(order(trigger_px="110000", tpsl="tp", grouping="position", is_market=True)) == "position TP"


def _summary(**kw: object) -> AccountSummary:
    base: dict[str, object] = {
        "address": ALICE.address, "margin_mode": "cross", "multi_asset_mode": False, "hedge_mode": False,
        "spot_collateral": {}, "collateral": {}, "vault_balances": {}, "staked_collateral": "0",
        "perp_positions": {}, "initial_margin_utilization": "0", "maintenance_margin_utilization": "0",
        "upnl": "0", "total_account_equity": "0", "margin_balance": "0", "initial_margin": "0",
        "maintenance_margin": "0", "total_volume": "0", "total_pnl": "0", "available_balance": "0",
        "transfer_margin_req": "0", "max_drawdown": "0", "spot_account_equity": "0",
        "derivative_account_equity": "0", "spot_volume": "0",
    }  # fmt: skip
    return msgspec.convert(base | kw, AccountSummary, strict=False)


def _pos(*, size: str, entry: str, mode: str, name: str = "BTC-PERP") -> Position:
    record = {
        "user": ALICE.address, "instrument_id": 1, "instrument": name, "position_side": "BOTH", "size": size,
        "entry_price": entry, "position_value": "0", "margin_mode": mode, "leverage": "10", "updated_at": 0,
    }  # fmt: skip
    return msgspec.convert(record, Position, strict=False)


def _order(**kw: object) -> Order:
    record: dict[str, object] = {
        "order_id": 1, "instrument_id": 1, "instrument": "BTC-PERP", "side": "s", "position_side": "BOTH",
        "size": "0.01", "unfilled": "0.01", "state": "open", "cloid": "", "tif": "GTC", "post_only": False,
        "reduce_only": False, "user": ALICE.address, "grouping": "", "timestamp": "2026-01-01T00:00:00.000Z",
    }  # fmt: skip
    return msgspec.convert(record | kw, Order, strict=False)
