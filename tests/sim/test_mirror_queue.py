"""The queue model of a mirror: a resting order fills only after the source's volume trades through its level.

A quiet source on loopback whose book and trades the test makes (its engine's own order entry, two accounts), and
a mirror of it; both on frozen clocks, the mirror reading its source when the test says (``poll_mirror``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.feed.sim_process import free_port
from tests.sim.engine_support import ALICE, BTC, USDC, make
from tui.api import models as m_api
from tui.api.client import Client
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.engine import OrderRequest
from tui.sim.engine.core import derived_address
from tui.sim.engine.instruments import USDC_ID
from tui.sim.mirror.queue import QueueModel
from tui.sim.mirror.tape import SourceAnswer, SourceTape, TapeTrade
from tui.sim.server.local_exchange import LocalExchange, SimConfig, open_exchange

KEY = "0x" + "6" * 64
RESTING = "0x" + "a1" * 20  # rests bids on the source: the queue ahead of ours
SELLER = "0x" + "b2" * 20  # sells into them: the source's trades
LEVEL = Decimal(99_000)


async def _pair(fills: str) -> tuple[LocalExchange, LocalExchange]:
    source = LocalExchange(SimConfig(port=free_port(), seed=3, market=False), FrozenClock())
    await source.start()
    for who in (RESTING, SELLER):
        source.engine.deposit(who, USDC_ID, Decimal(10) ** 7)
    source.engine.set_index_price("BTC-PERP", Decimal(100_000))
    source.engine.set_mark_price("BTC-PERP", Decimal(100_020))
    source.advance()
    mirror = await open_exchange(
        SimConfig(seed=5, mirror=source.url, network="mainnet", fills=fills), FrozenClock(1_767_225_700_000)
    )
    await mirror.start()
    return source, mirror


@pytest.fixture(params=["queue", "optimistic"])
async def pair(request: pytest.FixtureRequest) -> AsyncIterator[tuple[LocalExchange, LocalExchange]]:
    source, mirror = await _pair(request.param)
    try:
        yield source, mirror
    finally:
        await mirror.stop()
        await source.stop()


def _on_source(source: LocalExchange, who: str, is_buy: bool, size: str, tif: str = "GTC") -> None:
    source.engine.place_orders(who, [OrderRequest(1, is_buy, LEVEL, Decimal(size), tif)])
    source.advance()


async def _poll(mirror: LocalExchange) -> None:
    assert await mirror.poll_mirror()
    mirror.step(250)


async def _unfilled(trader: Client) -> Decimal:
    """What is left of the trader's one order on the mirror (0 once it filled)."""
    orders = (await trader.open_orders(trader.acting_for or "")).data
    return sum((o.unfilled for o in orders), Decimal(0))


async def test_a_resting_order_fills_only_after_the_volume_queued_ahead_of_it_trades(
    pair: tuple[LocalExchange, LocalExchange],
) -> None:
    """Tried: 0.05 BTC rests at 99,000 on the source before our 0.01 bid there on the mirror; the source trades
    0.03, then 0.02 there (the queue ahead, used up exactly), then 0.01 more. Under the queue model our bid fills
    only on the last trade; under the optimistic model it fills at the first touch of the source's mark."""
    source, mirror = pair
    queue = mirror.config.fills == "queue"
    _on_source(source, RESTING, True, "0.05")
    await _poll(mirror)
    await _poll(mirror)  # the first read of the source's trades is its past: from here on they count
    async with Client(mirror.url, signer=Signer(KEY), testnet=False) as trader:
        await trader.place_order([order_item(1, "b", LEVEL, "0.01")])
        mirror.step(250)  # the queue ahead of it: the source's 0.05 at that level, in its next book
        assert await _unfilled(trader) == Decimal("0.01")

        touch = LEVEL - 10  # a grid step below: the makers' best ask, following the source's mark, is our level
        source.engine.set_mark_price("BTC-PERP", touch)
        source.engine.set_index_price("BTC-PERP", touch)
        source.advance()
        await _poll(mirror)
        await _poll(mirror)
        if not queue:
            assert await _unfilled(trader) == 0  # optimistic: the makers' quotes reached it and filled it
            return
        assert await _unfilled(trader) == Decimal("0.01")  # a touch is not a trade

        _on_source(source, SELLER, False, "0.03", "IOC")
        await _poll(mirror)
        assert await _unfilled(trader) == Decimal("0.01")
        _on_source(source, SELLER, False, "0.02", "IOC")
        await _poll(mirror)
        assert await _unfilled(trader) == Decimal("0.01")  # the queue ahead is used up, nothing past it yet

        _on_source(source, RESTING, True, "0.01")
        _on_source(source, SELLER, False, "0.01", "IOC")
        await _poll(mirror)
        assert await _unfilled(trader) == 0
        fills = (await trader.fills(trader.acting_for or "")).data
        assert [(f.price, f.size) for f in fills] == [(LEVEL, Decimal("0.01"))]


def test_a_poll_reads_the_watched_instruments_and_the_others_in_turn() -> None:
    """Tried: 30 instruments, one with a user's order resting, at 1 s polls (12 reads a poll) and at 100 ms (2):
    the watched one is read every poll, and every other within a few polls, never more than the budget."""
    names = [f"I{i:02}-PERP" for i in range(30)]
    for poll_ms, budget in ((1_000, 12), (100, 2)):
        tape = SourceTape()
        tape.watched = {"I17-PERP"}
        seen: set[str] = set()
        for _ in range(29 // (budget - 1) + 1):
            read = tape.depth_names(names, poll_ms)
            assert len(read) == budget and read[0] == "I17-PERP" and len(set(read)) == budget
            seen.update(read)
        assert seen == set(names)
    assert SourceTape().depth_names(names[:7], 1_000) == names[:7]  # a source this small is read whole each poll


@settings(max_examples=60, deadline=None)
@given(
    ahead=st.integers(0, 40),
    size=st.integers(2, 30),  # 2 lots: the minimum notional of an order placed
    trades=st.lists(st.tuples(st.integers(-3, 3), st.integers(1, 20)), max_size=12),
)
def test_a_resting_bid_fills_exactly_what_traded_through_it_past_its_queue(
    ahead: int, size: int, trades: list[tuple[int, int]]
) -> None:
    """Tried (Hypothesis): a bid of ``size`` lots behind ``ahead`` lots on the source, then trades at up to three
    ticks either side of it. It fills exactly the volume at or below its price beyond ``ahead``, never more than
    its size, and trades above its price never count."""
    ex, _ = make(None, ALICE)
    maker = derived_address("market-maker")
    ex.deposit(maker, USDC, Decimal(10) ** 9)
    m = ex.markets[BTC]
    lot, tick, px = m.lot, m.tick, Decimal(99_000)
    ex.place_orders(ALICE, [OrderRequest(BTC, True, px, size * lot)])
    tape = SourceTape()
    book = m_api.OrderBook(
        bids=[m_api.BookLevel(price=px, size=ahead * lot)], asks=[], sequence_number=1, timestamp=0,
        instrument_name=m.name,
    )  # fmt: skip
    tape.books[m.name], tape.book_ms[m.name] = book, ex.clock.now_ms()
    queue = QueueModel(ex, maker)
    queue.arrive([m], tape)
    for ticks, lots in trades:
        queue.trade(m, TapeTrade(m.name, px + ticks * tick, lots * lot))
        queue.fill(m)
    through = sum(lots for ticks, lots in trades if ticks <= 0)
    filled = sum((f.size for f in ex.accounts[ALICE].fills), Decimal(0)) / lot
    assert filled == min(size, max(0, through - ahead))


def test_a_recorded_answer_keeps_only_the_trades_a_mirror_would_use() -> None:
    """Tried: three polls' trades through ``unseen`` then ``take``, as a recording mirror does, and the recorded
    answers through a fresh tape, as a replay does: the same new trades come out, and the past and the repeats
    are not written."""

    def trade(i: int) -> m_api.Trade:
        return m_api.Trade(
            instrument_id=1, instrument="BTC-PERP", trade_id=i, tx_hash="0x", side="s", price=Decimal(99_000 + i),
            size=Decimal("0.01"), maker="", taker="", timestamp=i,
        )  # fmt: skip

    polls = [[trade(1), trade(2)], [trade(1), trade(2), trade(3)], [trade(2), trade(3), trade(4), trade(5)]]
    live, replayed = SourceTape(), SourceTape()
    recorded, taken = [], []
    for got in polls:
        answer = SourceAnswer([], {"BTC-PERP": got})
        recorded.append(live.unseen(answer))
        taken += live.take(answer, 0)
    assert [[t.trade_id for t in r.trades["BTC-PERP"]] for r in recorded] == [[2], [3], [4, 5]]
    assert (
        [t for r in recorded for t in replayed.take(r, 0)]
        == taken
        == [TapeTrade("BTC-PERP", Decimal(99_000 + i), Decimal("0.01")) for i in (3, 4, 5)]
    )
