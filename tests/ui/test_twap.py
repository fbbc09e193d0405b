"""TWAP: slices on a stepped clock against the local exchange (filled, averaged, stopped at a refusal, paused,
resumed, cancelled), and the screen a trader starts and cancels one from."""

from __future__ import annotations

import asyncio
import re
from decimal import Decimal

from textual.widgets import Input

from tests.conftest import ALICE_KEY
from tests.ui.conftest import Seen, dashboard, feed_ready, press_to_quit, settle
from tests.ui.screen_steps import cells, until
from tests.waiting import until as until_true
from tui.api.client import Client
from tui.api.signing import Signer
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange
from tui.trading import OrderContext
from tui.trading.twap import Twap, TwapRunner, TwapSpec
from tui.ui.screens.confirm import ConfirmScreen
from tui.ui.screens.form import FormScreen
from tui.ui.screens.twap import TwapScreen
from tui.ui.widgets.record_table import RecordTable

ALICE = Signer(ALICE_KEY)
D = Decimal


def runner_on(sim: LocalExchange, trader: Client, said: list[str]) -> tuple[TwapRunner, list[float]]:
    """A runner whose time is the exchange's frozen time: a wait steps the market on by that much."""
    now = [0.0]

    async def sleep(seconds: float) -> None:
        now[0] += seconds
        sim.step(int(seconds * 1000))
        await asyncio.sleep(0)

    def context(symbol: str) -> OrderContext:
        m = sim.engine.markets[1]
        book = sim.engine.orderbook(symbol, 50)
        levels = {side: tuple((D(str(x["price"])), D(str(x["size"]))) for x in book[side]) for side in ("bids", "asks")}
        return OrderContext(
            instrument_id=1, symbol=symbol, kind="perp", tick=m.tick, lot=m.lot, min_notional=D(10),
            max_leverage=D(50), best_bid=levels["bids"][0][0], best_ask=levels["asks"][0][0], mark=m.mark,
            available=D(100_000), bids=levels["bids"], asks=levels["asks"],
        )  # fmt: skip

    def changed(twap: Twap, what: str) -> None:
        said.append(what)

    assert trader.signer is not None
    return TwapRunner(trader, trader.signer.address, context, changed, clock=lambda: now[0], sleep=sleep), now


async def until_over(twap: Twap) -> None:
    await until_true(lambda: not twap.active, "the TWAP to end", 20)


async def test_a_twap_buys_its_size_in_slices(sim: LocalExchange, trader: Client) -> None:
    said: list[str] = []
    runner, now = runner_on(sim, trader, said)
    twap = runner.start(TwapSpec("BTC-PERP", "buy", D("0.05"), 5, 10.0))
    await until_over(twap)
    assert (twap.state, twap.sent, twap.filled) == ("done", 5, D("0.05"))
    fills = [f for f in (await trader.fills(ALICE.address)).data if f.cloid.startswith("tw1x")]
    assert len({f.cloid for f in fills}) == 5 and sum((f.size for f in fills), D(0)) == D("0.05")
    assert twap.average == sum((f.price * f.size for f in fills), D(0)) / D("0.05")  # by hand, from the fills
    assert 40 * 0.8 <= now[0] <= 50 * 1.2  # four waits of 10 s, each within 20%
    assert said[0].startswith("started: TWAP BUY 0.05 BTC-PERP in 5 slices") and said[-1].startswith("done: 0.05")
    # every average said is at the instrument's tick (the runner took its steps): never 39.99 then 39.996
    assert twap.spec.tick is not None and twap.spec.lot is not None
    places = -int(twap.spec.tick.normalize().as_tuple().exponent)
    averages = [m.group(1) for w in said if (m := re.search(r"at avg [\d,]+\.(\d+)", w))]
    assert len(averages) >= 5 and {len(a) for a in averages} == {places}
    [position] = [p for p in await trader.positions(ALICE.address) if p.size]
    assert position.size == D("0.05")


async def test_a_twap_stops_at_the_first_refusal(sim: LocalExchange, trader: Client) -> None:
    said: list[str] = []
    runner, _ = runner_on(sim, trader, said)
    twap = runner.start(TwapSpec("BTC-PERP", "buy", D(500), 2, 10.0))  # 250 BTC a slice: far past the margin
    await until_over(twap)
    assert twap.state == "stopped" and twap.reason.startswith("slice 1 refused: ") and twap.sent == 1
    assert said[-1] == f"stopped: {twap.reason}"


async def test_pause_resume_and_cancel(sim: LocalExchange, trader: Client) -> None:
    said: list[str] = []
    runner, _ = runner_on(sim, trader, said)
    twap = runner.start(TwapSpec("BTC-PERP", "sell", D("0.03"), 3, 10.0))
    await until_true(lambda: twap.sent >= 1 and said[-1].startswith("slice 1: filled"), "slice 1 filled")
    runner.pause(twap)
    await asyncio.sleep(0.2)  # a window in which nothing may be sent: an absence has no event to wait on
    assert twap.sent == 1 and twap.state == "paused"  # nothing while paused
    runner.resume(twap)
    await until_true(lambda: twap.sent >= 2 and said[-1].startswith("slice 2: filled"), "slice 2 filled")
    runner.cancel(twap)
    await until_over(twap)
    assert (twap.state, twap.sent, twap.filled) == ("cancelled", 2, D("0.02"))


async def test_the_twap_screen_starts_one_and_cancels_it(
    sim: LocalExchange, clock: FrozenClock, trader: Client
) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    notes = Seen()
    async with app.run_test(size=(140, 40), message_hook=notes) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.market.book.loaded, what="the book")
        await pilot.press("V")
        await until(
            pilot, lambda: isinstance(app.screen, TwapScreen) and notes.loads[app.screen] >= 1, "the TWAP screen"
        )
        screen = app.screen
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the form")
        form = app.screen
        for value, said in (
            ("1e5", "not a plain decimal"),
            ("0.00001", "multiple of the lot"),
            ("0.0001", "under one lot a slice"),  # ten slices of a tenth of a lot
        ):
            form.query_one("#field-size", Input).value = value
            await pilot.press("enter")
            await until(pilot, lambda said=said: said in str(form.query_one("#form-error").render()), said)
            assert app.screen is form
        form.query_one("#field-size", Input).value = "0.02"
        form.query_one("#field-interval", Input).value = "3600"  # the second slice is an hour away
        await pilot.press("enter")
        assert app.twaps is not None
        await until(
            pilot, lambda: app.twaps is not None and app.twaps.twaps and app.twaps.twaps[0].sent == 1, "a slice"
        )
        table = screen.query_one("#twap-table", RecordTable)
        await until(pilot, lambda: table.row_count == 1 and cells(table)[0][2] == "running", "the TWAP listed")
        await pilot.press("x")
        await until(pilot, lambda: cells(table)[0][2] == "cancelled", "cancelled")
        assert any(m.startswith("started: TWAP BUY 0.02 BTC-PERP in 10 slices") for m in notes.messages)


async def test_quitting_with_a_twap_running_asks_first(sim: LocalExchange, clock: FrozenClock, trader: Client) -> None:
    app = dashboard(trader, sim, clock, ALICE)
    async with app.run_test(size=(140, 40)) as pilot:
        await feed_ready(app)
        await settle(pilot, lambda: app.feed.state.market.book.loaded, what="the book")
        runner = app.twaps
        assert runner is not None
        twap = runner.start(TwapSpec("BTC-PERP", "buy", D("0.02"), 4, 3600.0))
        await until(pilot, lambda: twap.sent == 1, "the first slice")
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert str(app.screen.query_one(".title").render()) == "Quit with 1 order tool(s) running (TWAP)?"
        await pilot.press("enter")  # No
        await until(pilot, lambda: app.screen is app.main, "back")
        assert twap.state == "running"
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await press_to_quit(pilot, "y")
        await until(pilot, lambda: twap.state == "cancelled", "cancelled on the way out")
