"""``bench_engine``: how many simple limit orders a second the engine places in process.

The stream is what market makers send: limit orders from ten accounts resting 1-200 ticks from the mark,
and ``cross_percent`` % of the orders priced 1-5 ticks through the mark so that they trade (about
one maker each). Every order goes through ``Exchange.place_order``: validation, margin, matching, fills,
fees, positions, a transaction. Orders are built before the clock starts; events have no listener
unless ``listener`` is true (then a no-op one receives them).

Python's cyclic garbage collector costs about a quarter of the time at the default thresholds (every
action leaves an order and a transaction alive, so full collections keep re-walking a growing heap).
The run uses ``GC_THRESHOLD``, the setting recommended for the simulator process
(``gc.set_threshold(*GC_THRESHOLD)`` at start-up); pass ``gc_threshold=None`` to measure with the
interpreter's current setting. The previous setting is restored afterwards.
"""

from __future__ import annotations

import gc
import random
import time
from decimal import Decimal

from tui.sim.clock import FrozenClock
from tui.sim.engine import GC_THRESHOLD
from tui.sim.engine.exchange import Exchange
from tui.sim.engine.requests import OrderRequest


def bench_engine(
    n: int = 200_000,
    *,
    seed: int = 1,
    cross_percent: int = 5,
    listener: bool = False,
    gc_threshold: tuple[int, int, int] | None = GC_THRESHOLD,
) -> int:
    """Place ``n`` orders on BTC-PERP and return orders per second (an integer)."""
    ex = Exchange(clock=FrozenClock())
    if listener:
        ex.add_listener(lambda channel, key, payload: None)
    rng = random.Random(seed)
    accounts = [f"0x{i + 1:040x}" for i in range(10)]
    for a in accounts:
        ex.deposit(a, 1, Decimal(10) ** 12)
    mark = int(ex.market(1).mark * 10)  # in ticks of 0.1
    orders: list[tuple[str, OrderRequest]] = []
    for _ in range(n):
        buy = rng.randrange(2) == 1
        if rng.randrange(100) < cross_percent:
            ticks = mark + rng.randint(1, 5) if buy else mark - rng.randint(1, 5)
        else:
            ticks = mark - rng.randint(1, 200) if buy else mark + rng.randint(1, 200)
        size = Decimal(rng.randint(2, 50)).scaleb(-4)
        orders.append((rng.choice(accounts), OrderRequest(1, buy, Decimal(ticks).scaleb(-1), size)))
    place = ex.place_order
    saved = gc.get_threshold()
    if gc_threshold is not None:
        gc.set_threshold(*gc_threshold)
    gc.collect()
    gc.freeze()  # the prepared orders are the bench's input, not engine state: keep them out of collections
    try:
        t0 = time.perf_counter_ns()
        for account, order in orders:
            place(account, order)
        elapsed = time.perf_counter_ns() - t0
    finally:
        gc.set_threshold(*saved)
        gc.unfreeze()
    return n * 1_000_000_000 // max(elapsed, 1)
