"""An OCO kept for a restart, against a real `xtui sim` process: the runner hands what a restart needs to ``on_kept``
after every change (running pairs, and pairs left as xtui ended; a cancelled pair no more), and a new runner (the
next start) links the kept pair again from the legs found resting: no order is placed again, and the resumed pair
works (Bob fills the take-profit: the stop is withdrawn; the trader cancels a leg: the pair ends, naming the other).
"""

from __future__ import annotations

from decimal import Decimal

import msgspec

from tests.feed.sim_process import SimProcess
from tests.trading.test_oco_faults import ALICE, STOP, TIMEOUT_S, TP, bob, exchange, legs, linked, runner
from tests.trading.test_twap_faults import Said, position
from tui.api.client import Client
from tui.api.models import Order
from tui.api.wire import order_item
from tui.trading.oco import OcoRunner
from tui.trading.tool_book import KeptOco

__all__ = ["exchange"]  # the fixture

D = Decimal
SIZE = D("0.05")


class Kept:
    """What ``on_kept`` was last handed."""

    def __init__(self) -> None:
        self.last: list[KeptOco] = []

    def __call__(self, kept: list[KeptOco]) -> None:
        self.last = kept


def keeping(alice: Client, said: Said, kept: Kept) -> OcoRunner:
    return OcoRunner(alice, ALICE.address, said, order_expiry_s=3.0, poll_s=0.05, settle_retry_s=0.1, on_kept=kept)


async def left_by_a_quit(alice: Client) -> KeptOco:
    """A pair started, linked, and left as xtui quits: what was kept of it."""
    said, kept = Said(), Kept()
    first = keeping(alice, said, kept)
    oco = first.start(TP, STOP)
    await linked(oco, said)
    assert [(k.id, k.size, k.whole) for k in kept.last] == [(1, SIZE, False)]
    await first.stop_all()
    [left] = kept.last
    assert left.legs[0].cloid == oco.legs[0].cloid and left.legs[1].cloid == oco.legs[1].cloid
    plans = [msgspec.structs.replace(leg.plan(1, "BTC-PERP"), cloid="") for leg in left.legs]
    assert plans == [TP, STOP]  # what a resize of the resumed pair places
    return left


async def found(alice: Client, kept: KeptOco) -> tuple[Order, Order]:
    by_cloid = {o.cloid: o for o in (await alice.open_orders(ALICE.address)).data}
    return by_cloid[kept.take_profit.cloid], by_cloid[kept.stop.cloid]


async def test_a_cancelled_pair_is_kept_no_more(exchange: SimProcess) -> None:
    """Kept while it runs; x on it (cancel): kept no more, nor after the quit."""
    said, kept = Said(), Kept()
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        ocos = keeping(alice, said, kept)
        oco = ocos.start(TP, STOP)
        await linked(oco, said)
        assert len(kept.last) == 1
        ocos.cancel(oco)
        await said.until(lambda: said.any("cancelled: "))
        assert kept.last == [] and ocos.kept() == []
        await ocos.stop_all()
        assert kept.last == []


async def test_a_resumed_pair_withdraws_the_stop_when_the_take_profit_fills(exchange: SimProcess) -> None:
    """Quit, then resumed by a new runner: the same two orders rest (nothing placed again); Bob buys all of the
    take-profit: the resumed pair withdraws the stop, Alice is flat and nothing of the pair rests."""
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        left = await left_by_a_quit(alice)
        before = await legs(exchange.url)
        said, kept = Said(), Kept()
        again = keeping(alice, said, kept)
        oco = again.resume(left, await found(alice, left))
        await said.until(lambda: said.any("resumed, linking both orders again"))
        assert await legs(exchange.url) == before and [k.legs for k in kept.last] == [left.legs]
        await bob(exchange.url, [order_item(1, "b", "101000", "0.1", tif="IOC")])
        await said.until(lambda: not oco.active)
        assert oco.state == "done" and oco.filled == SIZE, said.messages
        assert kept.last == []
    assert await position(exchange.url) == 0 and await legs(exchange.url) == {}


async def test_a_resumed_pair_ends_when_the_trader_cancels_a_leg(exchange: SimProcess) -> None:
    """Resumed; the trader cancels its stop by hand: the pair ends saying so, and the take-profit stays."""
    async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
        left = await left_by_a_quit(alice)
        said = Said()
        oco = runner(alice, said).resume(left, await found(alice, left))
        await said.until(lambda: said.any("resumed"))
        await alice.cancel_by_cloid([(left.stop.cloid, 1)])
        await said.until(lambda: not oco.active)
        assert "OCO ended: its stop was cancelled (not by the OCO)" in oco.reason, said.messages
    assert list((await legs(exchange.url)).values()) == [SIZE]
