"""What an order needs to know of the market (``order_context``), read from a real feed on the local exchange
and checked against what the exchange itself answers: the instrument's tick, lot and leverage, the book's best
prices and levels, the funds available and the position, perp and spot; nothing for an unknown instrument."""

from __future__ import annotations

from decimal import Decimal

from tests.conftest import ALICE_KEY
from tests.feed.conftest import MakeFeed
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.trading.context import order_context, risk_inputs

ALICE = Signer(ALICE_KEY)
USDC = 1  # the local exchange's USDC collateral id


async def test_a_perp_context_is_what_the_exchange_says(make_feed: MakeFeed, alice: Client, bob: Client) -> None:
    """Bob quotes the selected perp, Alice buys 0.01 at his best ask; the context then holds the exchange's
    instrument, book, available balance and her position."""
    feed, changes = await make_feed(account=ALICE.address)
    state = feed.state
    symbol = state.market.selected
    info = state.market.instruments[symbol]
    quotes = [order_item(info.id, "s", 100_000 + i, "1") for i in range(3)]
    quotes += [order_item(info.id, "b", 99_000 - i, "1") for i in range(3)]
    assert (await bob.place_order(quotes)).ok
    book = await alice.orderbook(symbol)
    resp = await alice.place_order([order_item(info.id, "b", book.asks[0].price, "0.01", tif="IOC")])
    assert resp.ok, resp.error
    positions = [p for p in await alice.positions(ALICE.address) if p.instrument == symbol]
    summary = await alice.account_summary(ALICE.address)
    book = await alice.orderbook(symbol)
    perps = {p.name: p for p in (await alice.instruments()).perps}

    def caught_up() -> bool:
        ctx = order_context(state, symbol)
        return ctx is not None and ctx.available == summary.available_balance and ctx.position == Decimal("0.01")

    await changes.until(lambda: caught_up() and state.market.book.best_ask == book.asks[0].price)
    ctx = order_context(state, symbol, Decimal("0.5"))
    assert ctx is not None and ctx.kind == "perp" and ctx.instrument_id == info.id and ctx.symbol == symbol
    assert (ctx.tick, ctx.lot) == (perps[symbol].tick_size, perps[symbol].lot_size)
    assert ctx.max_leverage == Decimal(info.max_leverage) and ctx.slippage_pct == Decimal("0.5")
    assert (ctx.best_bid, ctx.best_ask) == (book.bids[0].price, book.asks[0].price)
    assert ctx.asks[0] == (book.asks[0].price, book.asks[0].size) and len(ctx.bids) == len(book.bids)
    assert ctx.position == sum(p.size for p in positions) == Decimal("0.01")
    assert ctx.base_available is None


async def test_a_spot_context_counts_the_quote_and_the_base(make_feed: MakeFeed, alice: Client, bob: Client) -> None:
    """Alice moves 250 USDC to spot, bids for BTC/USDC (holding some of it) and buys the perp; Bob bids on
    BTC/USDC (not selected: its prices come from its ticker) and quotes the selected perp (so the book held is
    another instrument's). The spot context has the ticker's bid, none of the perp's levels, no position, the
    spot USDC the exchange says is withdrawable, and its BTC; an instrument the exchange does not list has none."""
    feed, changes = await make_feed(account=ALICE.address)
    state = feed.state
    perp = state.market.instruments[state.market.selected]
    spot = state.market.instruments["BTC/USDC"]
    assert (await alice.internal_transfer(USDC, 250, to_derivatives=False)).ok
    assert (await bob.internal_transfer(USDC, 1000, to_derivatives=False)).ok
    assert (await bob.place_order([order_item(spot.id, "b", 90_000, "0.001")])).ok
    assert (await bob.place_order([order_item(perp.id, "s", 100_000, "1"), order_item(perp.id, "b", 99_000, "1")])).ok
    assert (await alice.place_order([order_item(spot.id, "b", 80_000, "0.001")])).ok  # holds 80 USDC
    assert (await alice.place_order([order_item(perp.id, "b", 100_000, "0.01", tif="IOC")])).ok  # a perp position
    held = (await alice.account_summary(ALICE.address)).spot_collateral
    assert held["USDC"].withdrawable_balance < held["USDC"].balance

    def caught_up() -> bool:
        ctx = order_context(state, "BTC/USDC")
        return (
            ctx is not None
            and ctx.available == held["USDC"].withdrawable_balance
            and ctx.best_bid == 90_000
            and state.market.book.best_ask == 100_000
        )

    await changes.until(caught_up)
    ctx = order_context(state, "BTC/USDC")
    assert ctx is not None and ctx.kind == "spot" and ctx.instrument_id == spot.id
    assert ctx.bids == () and ctx.asks == () and ctx.best_ask is None
    assert ctx.base_available == held["BTC"].withdrawable_balance and ctx.max_leverage == 1
    assert ctx.position == 0  # the perp position is another instrument's
    assert order_context(state, "NOPE-PERP") is None


async def test_the_risk_inputs_are_what_the_exchange_says(make_feed: MakeFeed, alice: Client, bob: Client) -> None:
    """After Alice buys 0.01 of the selected perp, the risk estimate's inputs are the exchange's: the leverage in
    force and mode from ``instrument_leverage``, the fee rates from ``user_fees``, the margin balance, this
    position's uPnL and the others' maintenance margin from the summary, the instrument's margin tiers; with no
    setting or fee rates read, the leverage and mode come from the position and the rates are unknown (None)."""
    feed, changes = await make_feed(account=ALICE.address)
    state = feed.state
    symbol = state.market.selected
    info = state.market.instruments[symbol]
    assert (await bob.place_order([order_item(info.id, "s", 100_000, "1")])).ok
    assert (await alice.place_order([order_item(info.id, "b", 100_000, "0.01", tif="IOC")])).ok
    summary = await alice.account_summary(ALICE.address)
    setting = await alice.instrument_leverage(ALICE.address, symbol)
    fees = await alice.user_fees(ALICE.address)
    await changes.until(
        lambda: state.account.summary is not None and state.account.summary.perp_positions.get(symbol) is not None
    )
    leg = state.account.summary.perp_positions[symbol]  # type: ignore[union-attr]
    got = risk_inputs(state, symbol, setting, fees)
    assert got is not None
    assert (got.leverage, got.isolated, got.position, got.entry) == (setting.leverage, False, Decimal("0.01"), 100_000)
    assert (got.maker_rate, got.taker_rate) == (fees.perp_maker_fee_rate, fees.perp_taker_fee_rate)
    assert got.margin_balance == state.account.summary.margin_balance  # type: ignore[union-attr]
    assert got.position_upnl == leg.upnl and got.other_mm == summary.maintenance_margin - leg.mm
    perps = {p.name: p for p in (await alice.instruments()).perps}
    assert got.tiers == tuple(perps[symbol].margin_tiers) and got.tiers
    bare = risk_inputs(state, symbol, None, None)
    assert bare is not None and (bare.leverage, bare.isolated, bare.taker_rate) == (setting.leverage, False, None)
