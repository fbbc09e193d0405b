"""The outcome before the exit, as the trader types: the TP/SL, close, bracket and OCO dialogs show the PnL at each
price with the exit's fee in (the entry's too for a bracket, whose entry is not placed yet), a market exit's PnL at its
slippage bound (1% here) as well, the realized PnL of a close and the reward to risk; — while a figure is not known.
Every expected figure is worked out here from the position's entry, the book and the exchange's fee rates."""

from __future__ import annotations

from decimal import ROUND_CEILING
from decimal import Decimal as D
from typing import Any

from textual.widgets import Input, Static

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard, feed_ready, settle
from tests.ui.test_amend_close import buy_through_the_book
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.ui.screens.chase import ChaseScreen
from tui.ui.screens.form import FormScreen

ALICE = Signer(ALICE_KEY)
TICK = D("0.1")  # BTC-PERP's
RR = "(fees in)"


def lines(app: Any) -> list[str]:
    return str(app.screen.query_one("#form-preview", Static).render()).splitlines()


def type_in(app: Any, **values: object) -> None:
    for name, value in values.items():
        app.screen.query_one(f"#field-{name}", Input).value = str(value)


async def shows(pilot: Any, expected: list[str], part: slice = slice(None)) -> None:
    """Until the preview's lines (``part`` of them) are ``expected``: the fee rates are read in a worker."""
    try:
        await settle(pilot, lambda: lines(pilot.app)[part] == expected, timeout_s=5)
    except AssertionError:
        assert lines(pilot.app)[part] == expected


async def rates(trader: Client) -> tuple[D, D]:
    fees = await trader.user_fees(ALICE.address)
    return fees.perp_maker_fee_rate, fees.perp_taker_fee_rate


def worst_sell(level: D) -> D:
    """A market sell's bound 1% under ``level``, rounded up to the tick (toward the level)."""
    return (level * D("0.99") / TICK).to_integral_value(ROUND_CEILING) * TICK


def pnl(size: D, entry: D, price: D, rate: D, paid_in: D = D(0)) -> str:
    """A long's exit of ``size`` at ``price``: gross less the exit's fee at ``rate`` and the entry's ``paid_in``."""
    return f"{size * (price - entry) - size * price * rate - paid_in:+,.2f}"


def market_leg(name: str, size: D, entry: D, level: D, taker: D, paid_in: D = D(0)) -> str:
    worst = worst_sell(level)
    return (
        f"{name} {level:,.1f}: {pnl(size, entry, level, taker, paid_in)} · "
        f"{pnl(size, entry, worst, taker, paid_in)} at worst {worst:,.1f}"
    )


def ratio(reward: D, risk: D) -> str:
    return f"R:R {reward / -risk:,.1f} {RR}"


async def test_the_tp_sl_dialog_prices_both_exits_and_the_reward_to_risk(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Long 0.01: 3, a. Nothing typed: every figure —. TP mark + 1,000 and SL mark - 1,000 (trigger market orders:
    taker), the entry's fee not counted again: each at its trigger and at its 1% bound; R:R the TP's over the SL's
    loss. An unparsable stop: SL — and R:R —."""
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.01")
    maker, taker = await rates(trader)
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(140, 40)) as pilot:
        await feed_ready(app)
        account = app.feed.state.account
        await settle(pilot, lambda: account.positions and account.summary, what="the position")
        [held] = [p for p in account.positions if p.size]
        entry, size = held.entry_price, held.size
        mark = app.feed.state.market.tickers["BTC-PERP"].mark_price
        await pilot.press("3", "a")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the TP/SL form")
        await shows(pilot, ["TP —", "SL —", f"R:R — {RR}"])
        tp, sl = D(int(mark) + 1000), D(int(mark) - 1000)
        type_in(app, tp=tp, sl=sl)
        up = size * (tp - entry) - size * tp * taker
        down = size * (sl - entry) - size * sl * taker
        assert up > 0 > down
        await shows(pilot, [market_leg("TP", size, entry, tp, taker), market_leg("SL", size, entry, sl, taker),
                            ratio(up, down)])  # fmt: skip
        type_in(app, sl="99,0x0")
        await shows(pilot, [market_leg("TP", size, entry, tp, taker), "SL —", f"R:R — {RR}"])
    assert maker != taker  # the TP/SL pay the taker rate, not the maker's


async def test_the_close_dialog_shows_the_realized_pnl_at_market_and_at_a_limit(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Long 0.02: 3, c. All of it at market: realized at the best bid and at the 1% bound under it (taker); half at a
    limit above the ask: at that price with the maker's rate (it rests); a size over the position: realized —."""
    await buy_through_the_book(trader, 1, "BTC-PERP", "0.02")
    maker, taker = await rates(trader)
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(140, 40)) as pilot:
        await feed_ready(app)
        state = app.feed.state
        await settle(pilot, lambda: state.account.positions and state.account.summary, what="the position")
        [held] = [p for p in state.account.positions if p.size]
        entry = held.entry_price
        bid, ask = state.market.book.best_bid, state.market.book.best_ask
        assert bid is not None and ask is not None
        await pilot.press("3", "c")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the close form")
        worst = worst_sell(bid)
        await shows(pilot, [f"realized {pnl(D('0.02'), entry, bid, taker)} at {bid:,.1f} · "
                            f"{pnl(D('0.02'), entry, worst, taker)} at worst {worst:,.1f}"],
                    slice(0, 1))  # fmt: skip
        limit = ask + 500
        type_in(app, size="50%", price=limit)
        await shows(pilot, [f"realized {pnl(D('0.01'), entry, limit, maker)} at {limit:,.1f}"], slice(0, 1))
        type_in(app, size="1")
        await shows(pilot, ["realized —"], slice(0, 1))


async def test_the_bracket_dialog_counts_the_entrys_fee_in_each_exit(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """o: buy 0.01 at bid - 1,000 (it rests: the maker's rate), TP entry + 2,000, SL entry - 1,000 (taker): each
    exit's PnL has the entry's fee in too, since the entry is not placed yet; under the entry's margin and fee."""
    maker, taker = await rates(trader)
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(140, 40)) as pilot:
        await feed_ready(app)
        state = app.feed.state
        await settle(pilot, lambda: state.market.book.loaded and state.account.summary is not None, what="ready")
        bid = state.market.book.best_bid
        assert bid is not None
        await pilot.press("o")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the bracket form")
        entry, size = bid - 1000, D("0.01")
        tp, sl = entry + 2000, entry - 1000
        type_in(app, price=entry, size=size, tp=tp, sl=sl)
        paid_in = size * entry * maker
        up = size * (tp - entry) - size * tp * taker - paid_in
        down = size * (sl - entry) - size * sl * taker - paid_in
        expected = [
            market_leg("TP", size, entry, tp, taker, paid_in),
            market_leg("SL", size, entry, sl, taker, paid_in),
            ratio(up, down),
        ]
        await shows(pilot, expected, slice(3, None))
        assert lines(app)[0].startswith("margin ")  # the entry's risk stays first
        type_in(app, tp="")
        await shows(pilot, ["TP —", expected[1], f"R:R — {RR}"], slice(3, None))


async def test_the_oco_dialog_prices_its_limit_and_its_stop(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    """Long 0.02; O, o: the TP is a limit that rests (the maker's rate, no worse fill than its price), the stop a
    stop market (taker, and at its 1% bound); R:R of the two. The TP alone is priced before the stop is typed."""
    ask = (await trader.orderbook("BTC-PERP", depth=1)).asks[0].price
    await trader.place_order([order_item(1, "b", ask, "0.02", tif="IOC")])
    maker, taker = await rates(trader)
    app = dashboard(trader, sim, clock, ALICE)
    notes = Seen()
    async with app.run_test(size=(140, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        state = app.feed.state
        await settle(pilot, lambda: any(p.size for p in state.account.positions), what="the position")
        [held] = [p for p in state.account.positions if p.size]
        entry, size = held.entry_price, held.size
        mark = state.market.tickers["BTC-PERP"].mark_price
        await pilot.press("O")
        await settle(pilot, lambda: isinstance(app.screen, ChaseScreen) and notes.loads[app.screen] >= 1)
        await pilot.press("o")
        await settle(pilot, lambda: isinstance(app.screen, FormScreen), what="the OCO form")
        await shows(pilot, ["TP —", "stop —", f"R:R — {RR}"])
        tp, stop = D(int(mark) + 1000), D(int(mark) - 2000)
        type_in(app, take_profit=tp)
        tp_line = f"TP {tp:,.1f}: {pnl(size, entry, tp, maker)}"
        await shows(pilot, [tp_line, "stop —", f"R:R — {RR}"])
        type_in(app, stop=stop)
        up, down = size * (tp - entry) - size * tp * maker, size * (stop - entry) - size * stop * taker
        await shows(pilot, [tp_line, market_leg("stop", size, entry, stop, taker), ratio(up, down)])
