"""A trailing stop's kept record is written before each stop is sent, so that xtui killed between the exchange taking a
stop and its answer still finds that stop at the next start (``tui.trading.tool_book``, ``tui.ui.resume``). Against a
real `xtui sim` process: the exchange frozen (SIGSTOP) at the moment the record is kept, so the stop is sent to a
frozen exchange; and a run killed mid-move, with the old stop and the new one both resting, resumed."""

from __future__ import annotations

import signal
from decimal import Decimal

import msgspec

from tests.feed.sim_process import SimProcess
from tests.trading.trail_support import ALICE, SIZE, Market, Said, StopWatch, go_long
from tui.api.client import Client
from tui.trading.placement import Accepted, PlaceRequest, place
from tui.trading.tool_book import KeptStop, KeptTrail
from tui.trading.trail_plan import TrailSpec, stop_plan
from tui.trading.trailing import TrailRunner

D = Decimal
TIMEOUT_S = 0.5  # the trader's HTTP timeout: a frozen exchange is given up on quickly
SPEC = TrailSpec("BTC-PERP", "sell", D(500))
KNOBS = {"step_s": 0.05, "check_s": 0.5, "retry_s": 0.1, "stop_expiry_s": 3.0}


async def resting(url: str) -> dict[str, int]:
    async with Client(url, testnet=True) as reader:
        return {o.cloid: o.order_id for o in (await reader.open_orders(ALICE.address)).data}


async def test_a_stop_is_kept_before_it_is_sent_and_a_new_run_finds_it(exchange: SimProcess) -> None:
    """The exchange frozen as soon as the record names the first stop being sent: that record (what a kill now
    leaves on disk) names a stop the exchange has not seen. Thawed, the stop rests; a new run given that record
    resumes with that very stop, and nothing more is placed."""
    ctx = await go_long(exchange.url)
    market, said, watch = Market(ctx, D(95_000)), Said(), StopWatch(exchange.url)
    snapshots: list[list[KeptTrail]] = []
    frozen: list[KeptTrail] = []

    def keep(kept: list[KeptTrail]) -> None:
        snapshots.append(kept)
        if kept and kept[0].placing is not None and not frozen:
            frozen.append(kept[0])
            exchange.signal(signal.SIGSTOP)  # before place() sends anything: the record is on disk first

    try:
        async with Client(exchange.url, signer=ALICE, testnet=True, timeout=TIMEOUT_S) as alice:
            trails = TrailRunner(alice, ALICE.address, market.context, market.price, said, on_kept=keep, **KNOBS)
            trail = trails.start(SPEC, D(94_500))
            await said.until(lambda: said.any("unconfirmed"))
            [first] = frozen
            assert first.placing is not None and first.cloid == first.placing.cloid and first.trigger == D(94_500)
            exchange.signal(signal.SIGCONT)
            await said.until(lambda: trail.stop is not None and not trail.waiting)
            assert trail.stop is not None and trail.stop.cloid == first.cloid
            assert snapshots[-1] == [msgspec.structs.replace(first, placing=None)]  # placed: nothing is being sent
            await trails.stop_all()
    finally:
        exchange.signal(signal.SIGCONT)
    async with Client(exchange.url, signer=ALICE, testnet=True) as alice:
        again = TrailRunner(alice, ALICE.address, market.context, market.price, Said(), **KNOBS)
        trail = again.resume(first, await resting(exchange.url))
        assert trail.stop is not None and trail.stop.cloid == first.cloid and trail.old is None
        await again.stop_all()
    assert (await watch.read()) == ([D(94_500)], SIZE)


async def test_a_run_killed_mid_move_resumes_with_the_new_stop_and_retires_the_old(exchange: SimProcess) -> None:
    """Both of a move's stops rest (the new one sent, the old one not yet cancelled) and the record names the old
    as the stop and the new as being sent: resumed, the new one is the stop and the old one is cancelled at the
    first step; one stop rests, the new one, for the whole position."""
    ctx = await go_long(exchange.url)
    old, new = (KeptStop(f"tr1x1733000000-{n}", D(t), SIZE) for n, t in ((1, 94_500), (2, 95_100)))
    async with Client(exchange.url, signer=ALICE, testnet=True) as alice:
        for stop in (old, new):
            plan = stop_plan(ctx, SPEC, stop.trigger, stop.size, stop.cloid)
            assert isinstance(await place(alice, PlaceRequest((plan,), "trailing", run=1)), Accepted)
        kept = KeptTrail(ALICE.address, 1, SPEC, D(95_600), old.cloid, old.trigger, old.size, new)
        said = Said()
        trails = TrailRunner(alice, ALICE.address, Market(ctx, D(95_600)).context, Market(ctx, D(95_600)).price,
                             said, **KNOBS)  # fmt: skip
        trail = trails.resume(kept, await resting(exchange.url))
        assert trail.stop is not None and trail.stop.cloid == new.cloid
        assert trail.old is not None and trail.old.cloid == old.cloid
        await said.until(lambda: trail.old is None)
        await trails.stop_all()
    assert (await StopWatch(exchange.url).read()) == ([D(95_100)], SIZE)
    assert list(await resting(exchange.url)) == [new.cloid]
