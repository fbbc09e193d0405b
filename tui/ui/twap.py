"""TWAP: a total size bought or sold in slices over a duration, each slice a bounded market order.

A slice is an IOC market order with a protection price at most the slippage limit beyond the best price
(``tui.order_entry.protection_price``), of the size left divided by the slices left (on the lot; the last
takes the rest). Slices are ``interval`` apart, each a little earlier or later at random (``JITTER``) so
the pattern is not a clock others can trade against. What a slice filled is read back from the account's
fills by the slice's client order id (``tw<id>-<n>``), so a slice whose answer was lost to the network is
still counted right: the TWAP keeps going through a reconnect. It stops at the first refusal by the
exchange and says why; pause, resume and cancel act before the next slice. Nothing here imports Textual:
``on_change`` tells the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Awaitable, Callable
from decimal import ROUND_FLOOR, Decimal
from typing import Literal

import msgspec

from tui.api.client import Client
from tui.api.errors import ActionRejected, ClientError
from tui.order_entry import OrderContext, OrderPlan, Side, fmt_decimal, protection_price

__all__ = ["JITTER", "Twap", "TwapRunner", "TwapSpec"]

JITTER = 0.2  # each interval is drawn from [1 - JITTER, 1 + JITTER] x the interval
State = Literal["running", "paused", "done", "stopped", "cancelled"]


class TwapSpec(msgspec.Struct, frozen=True):
    symbol: str
    side: Side
    total: Decimal
    slices: int
    interval_s: float

    def describe(self) -> str:
        minutes = self.slices * self.interval_s / 60
        return (
            f"TWAP {self.side.upper()} {fmt_decimal(self.total)} {self.symbol} in {self.slices} slices "
            f"every {self.interval_s:g} s (~{minutes:.1f} min)"
        )


class Twap(msgspec.Struct):
    id: int
    spec: TwapSpec
    state: State = "running"
    filled: Decimal = Decimal(0)
    value: Decimal = Decimal(0)  # sum of price x size filled
    sent: int = 0  # slices sent
    next_at: float = 0.0  # when the next slice goes (the runner's clock)
    reason: str = ""  # why it stopped
    log: list[str] = msgspec.field(default_factory=list)

    @property
    def average(self) -> Decimal | None:
        return self.value / self.filled if self.filled else None

    @property
    def active(self) -> bool:
        return self.state in ("running", "paused")

    def progress(self) -> str:
        avg = f" at avg {fmt_decimal(self.average.quantize(Decimal('0.0001')))}" if self.average else ""
        return (
            f"{fmt_decimal(self.filled)} of {fmt_decimal(self.spec.total)} {self.spec.symbol}{avg} · "
            f"slice {self.sent}/{self.spec.slices}"
        )


class TwapRunner:
    """The TWAPs of one account. ``context(symbol)`` is order entry's view of an instrument now."""

    def __init__(
        self,
        client: Client,
        account: str,
        context: Callable[[str], OrderContext | None],
        on_change: Callable[[Twap, str], None],
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.client = client
        self.account = account
        self.context = context
        self.on_change = on_change
        self.clock = clock
        self.sleep = sleep
        self.rng = rng or random.Random()
        self.twaps: list[Twap] = []
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._wake: dict[int, asyncio.Event] = {}

    @property
    def active(self) -> list[Twap]:
        return [t for t in self.twaps if t.active]

    def start(self, spec: TwapSpec) -> Twap:
        twap = Twap(len(self.twaps) + 1, spec, next_at=self.clock())
        self.twaps.append(twap)
        self._wake[twap.id] = asyncio.Event()
        self._tasks[twap.id] = asyncio.get_running_loop().create_task(self._run(twap))
        self.on_change(twap, f"started: {spec.describe()}")
        return twap

    def pause(self, twap: Twap) -> None:
        if twap.state == "running":
            twap.state = "paused"
            self._wake[twap.id].set()
            self.on_change(twap, "paused")

    def resume(self, twap: Twap) -> None:
        if twap.state == "paused":
            twap.state = "running"
            twap.next_at = self.clock()
            self._wake[twap.id].set()
            self.on_change(twap, "resumed")

    def cancel(self, twap: Twap, why: str = "cancelled") -> None:
        if twap.active:
            twap.state = "cancelled"
            twap.reason = why
            self._wake[twap.id].set()
            self.on_change(twap, why)

    async def stop_all(self) -> None:
        """Cancel every TWAP and wait for their tasks (xtui is quitting)."""
        for twap in self.active:
            self.cancel(twap, "cancelled: xtui quit")
        for task in list(self._tasks.values()):
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # ---- the loop -------------------------------------------------------------------------------

    async def _run(self, twap: Twap) -> None:
        spec = twap.spec
        while twap.active and twap.sent < spec.slices:
            if twap.state == "paused":
                await self._wait(twap, None)
            elif (wait := twap.next_at - self.clock()) > 0:
                await self._wait(twap, wait)
            else:
                await self._slice(twap)
        if twap.state == "running":
            twap.state = "done"
            self.on_change(twap, f"done: {twap.progress()}")

    async def _wait(self, twap: Twap, seconds: float | None) -> None:
        """Until ``seconds`` have passed (forever: None), or pause, resume or cancel wakes it."""
        event = self._wake[twap.id]
        event.clear()
        tasks: set[asyncio.Future[object]] = {asyncio.ensure_future(event.wait())}
        if seconds is not None:
            tasks.add(asyncio.ensure_future(self.sleep(seconds)))
        _, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()

    async def _slice(self, twap: Twap) -> None:
        spec = twap.spec
        ctx = self.context(spec.symbol)
        left = spec.total - twap.filled
        n = twap.sent + 1
        twap.sent = n
        twap.next_at = self.clock() + spec.interval_s * self.rng.uniform(1 - JITTER, 1 + JITTER)
        if ctx is None:
            self._stop(twap, f"slice {n}: no {spec.symbol} data to price it")
            return
        slices_left = spec.slices - n + 1
        size = left if slices_left == 1 else (left / slices_left / ctx.lot).to_integral_value(ROUND_FLOOR) * ctx.lot
        best = (ctx.best_ask if spec.side == "buy" else ctx.best_bid) or ctx.mark
        if size <= 0 or best is None:
            if size <= 0:
                return  # this slice rounds to nothing: the next ones take the rest
            self._stop(twap, f"slice {n}: the book is empty")
            return
        bound = protection_price(spec.side, best, ctx.slippage_pct, ctx.tick)
        cloid = f"tw{twap.id}x{int(time.time()) % 10**8}-{n}"
        plan = OrderPlan(
            ctx.instrument_id, spec.symbol, spec.side, "market", bound, size, best, tif="IOC", cloid=cloid, market=True
        )
        try:
            await self.client.place_order([plan.to_wire()])
        except ActionRejected as exc:
            self._stop(twap, f"slice {n} refused: {exc.message}")
            return
        except ClientError as exc:  # no answer: it may or may not have gone; the fills will say
            self.on_change(twap, f"slice {n}: {exc}; counting what filled and going on")
        await self._count(twap, cloid, n)

    async def _count(self, twap: Twap, cloid: str, n: int) -> None:
        try:
            fills = await self.client.fills(self.account, page=1, limit=100)
        except ClientError as exc:
            self.on_change(twap, f"slice {n}: fills not readable ({exc}); counted at the next slice")
            return
        mine = [f for f in fills.data if f.cloid == cloid]
        size = sum((f.size for f in mine), Decimal(0))
        twap.filled += size
        twap.value += sum((f.price * f.size for f in mine), Decimal(0))
        self.on_change(twap, f"slice {n}: filled {fmt_decimal(size)} · {twap.progress()}")

    def _stop(self, twap: Twap, why: str) -> None:
        twap.state = "stopped"
        twap.reason = why
        self.on_change(twap, f"stopped: {why}")
