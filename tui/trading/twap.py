"""TWAP: a total size bought or sold in slices over a duration, each slice a bounded market order.

A slice is an IOC market order with a protection price at most the slippage limit beyond the best price
(``tui.trading.protection_price``), of the size left divided by the slices left (on the lot; the last
takes the rest, and no slice is more than what is left). Slices are ``interval`` apart, each a little earlier
or later at random (``JITTER``) so the pattern is not a clock others can trade against.

Every slice is placed through ``tui.trading.placement`` and settled from the exchange's record by its client order
id (``tw<id>x<stamp>-<n>``, of ``tui.trading.cloids``) before the next is sized or sent (``tui.trading.settle``):
what it filled is the record's, so the size left is the exchange's. A slice whose answer was lost (a timeout, a
dropped connection) or whose record cannot be read leaves the TWAP waiting, and saying so ("slice 3 unconfirmed:
waiting for the exchange"), until the record answers; a slice signs a short ``expiresAfter`` (``slice_expiry_s``)
so that one the exchange never saw is known not to have happened soon after. So a TWAP never trades more than its
total, whatever the network does. It stops at the first refusal by the exchange (a rate limit only skips the slice:
the slices left take its size), or by the profile's guards (asked before each slice), and says why; pause, resume
and cancel act before the next slice. ``on_change`` tells the app.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from decimal import ROUND_FLOOR, Decimal
from typing import ClassVar, Literal

import msgspec

from tui.api.client import Client
from tui.api.decimals import decimal_places
from tui.api.refusals import RefusalKind

from .cloids import make_cloid
from .orders import OrderContext, OrderPlan, Side, fmt_decimal, protection_price
from .placement import Accepted, PlaceRequest, Refused, Unknown, WrongAccount, place
from .placement import Settled as Recorded
from .settle import Settled, Unsettled, settle_order
from .tools import Job
from .waits import Runs

__all__ = ["JITTER", "Twap", "TwapRunner", "TwapSpec"]

JITTER = 0.2  # each interval is drawn from [1 - JITTER, 1 + JITTER] x the interval
SLICE_EXPIRY_S = 15.0  # a slice the exchange has not seen by then never executes (its expiresAfter)
SETTLE_RETRY_S = 2.0  # how often an unconfirmed slice is asked after again
State = Literal["running", "paused", "done", "stopped", "cancelled"]


def _at(value: Decimal, step: Decimal | None) -> str:
    """``value`` at ``step``'s decimal places (half-even), with thousands separators; as written when no step."""
    if not step:
        return fmt_decimal(value)
    return f"{value:,.{decimal_places(step)}f}"


class TwapSpec(msgspec.Struct, frozen=True):
    symbol: str
    side: Side
    total: Decimal
    slices: int
    interval_s: float
    tick: Decimal | None = None  # the instrument's steps, to write prices and sizes alike every time
    lot: Decimal | None = None  # (the runner fills them in from the instrument when not given)

    def price(self, value: Decimal) -> str:
        """A price at the instrument's tick: 39.996 on a 0.001 tick, 39.990 (not 39.99) too."""
        return _at(value, self.tick)

    def size(self, value: Decimal) -> str:
        return _at(value, self.lot)

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
    filled: Decimal = Decimal(0)  # the exchange's record of what the slices filled
    value: Decimal = Decimal(0)  # sum of price x size of the fills read
    priced: Decimal = Decimal(0)  # the size those fills cover
    sent: int = 0  # slices sent
    unconfirmed: str = ""  # while a slice's outcome is unknown: what the TWAP waits for, in words
    next_at: float = 0.0  # when the next slice goes (the runner's clock)
    reason: str = ""  # why it stopped
    log: list[str] = msgspec.field(default_factory=list)

    @property
    def average(self) -> Decimal | None:
        return self.value / self.priced if self.priced else None

    @property
    def active(self) -> bool:
        return self.state in ("running", "paused")

    def progress(self) -> str:
        spec = self.spec
        avg = f" at avg {spec.price(self.average)}" if self.average else ""
        return (
            f"{spec.size(self.filled)} of {spec.size(spec.total)} {spec.symbol}{avg} · slice {self.sent}/{spec.slices}"
        )

    @property
    def waiting(self) -> bool:
        """A slice's outcome is unknown: nothing more is sent until the exchange's record says."""
        return bool(self.unconfirmed)


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
        slice_expiry_s: float = SLICE_EXPIRY_S,
        settle_retry_s: float = SETTLE_RETRY_S,
        guard: Callable[[list[OrderPlan]], str | None] | None = None,
    ) -> None:
        self.client = client
        self.account = account
        self.context = context
        self.on_change = on_change
        self.clock = clock
        self.sleep = sleep
        self.rng = rng or random.Random()
        self.slice_expiry_s = slice_expiry_s
        self.settle_retry_s = settle_retry_s
        self.guard = guard  # the profile's guards, asked before every slice (a refusal stops the TWAP)
        self.twaps: list[Twap] = []
        self._runs = Runs(sleep)

    @property
    def active(self) -> list[Twap]:
        return [t for t in self.twaps if t.active]

    def start(self, spec: TwapSpec) -> Twap:
        if spec.tick is None or spec.lot is None:
            ctx = self.context(spec.symbol)
            if ctx is not None:
                spec = msgspec.structs.replace(spec, tick=spec.tick or ctx.tick, lot=spec.lot or ctx.lot)
        twap = Twap(len(self.twaps) + 1, spec, next_at=self.clock())
        self.twaps.append(twap)
        self._runs.start(twap.id, self._run(twap))
        self.on_change(twap, f"started: {spec.describe()}")
        return twap

    def pause(self, twap: Twap) -> None:
        if twap.state == "running":
            twap.state = "paused"
            self._runs.wake(twap.id)
            self.on_change(twap, "paused")

    def resume(self, twap: Twap) -> None:
        if twap.state == "paused":
            twap.state = "running"
            twap.next_at = self.clock()
            self._runs.wake(twap.id)
            self.on_change(twap, "resumed")

    def cancel(self, twap: Twap, why: str = "cancelled") -> None:
        if twap.active:
            twap.state = "cancelled"
            twap.reason = why
            self._runs.wake(twap.id)
            self.on_change(twap, why)

    async def stop_all(self) -> None:
        """Cancel every TWAP and wait for their tasks (xtui is quitting)."""
        for twap in self.active:
            self.cancel(twap, "cancelled: xtui quit")
        await self._runs.join()

    # ---- the order tool (tui.trading.tools) --------------------------------------------------------

    name: ClassVar[str] = "TWAP"
    protective: ClassVar[bool] = False
    on_exit: ClassVar[str] = "Quitting cancels the TWAPs; the slices already sent stay as they are."

    def jobs(self) -> list[Job]:
        return [Job(self.name, t.id, t.progress()) for t in self.active]

    def left_if_ended(self) -> list[str]:
        return []  # its slices are IOC: none rests

    def owned_cloids(self) -> set[str]:
        return set()

    async def end_all(self, why: str) -> list[str]:
        await self.stop_all()
        return []

    def uncovered(self) -> dict[str, str]:
        return {}

    # ---- the loop -------------------------------------------------------------------------------

    async def _run(self, twap: Twap) -> None:
        spec = twap.spec
        while twap.active and twap.sent < spec.slices:
            if twap.state == "paused":
                await self._runs.wait(twap.id, None)
            elif (wait := twap.next_at - self.clock()) > 0:
                await self._runs.wait(twap.id, wait)
            else:
                await self._slice(twap)
        if twap.state == "running":
            twap.state = "done"
            self.on_change(twap, f"done: {twap.progress()}")

    async def _slice(self, twap: Twap) -> None:
        spec = twap.spec
        ctx = self.context(spec.symbol)
        left = spec.total - twap.filled  # every earlier slice is settled: this is the exchange's count
        n = twap.sent + 1
        twap.sent = n
        twap.next_at = self.clock() + spec.interval_s * self.rng.uniform(1 - JITTER, 1 + JITTER)
        if ctx is None:
            self._stop(twap, f"slice {n}: no {spec.symbol} data to price it")
            return
        slices_left = spec.slices - n + 1
        size = left if slices_left == 1 else (left / slices_left / ctx.lot).to_integral_value(ROUND_FLOOR) * ctx.lot
        size = min(size, left)  # never past the total, whatever the lot rounding does
        best = (ctx.best_ask if spec.side == "buy" else ctx.best_bid) or ctx.mark
        if size <= 0 or best is None:
            if size <= 0:
                return  # this slice rounds to nothing: the next ones take the rest
            self._stop(twap, f"slice {n}: the book is empty")
            return
        bound = protection_price(spec.side, best, ctx.slippage_pct, ctx.tick)
        for attempt in (1, 2):
            cloid = make_cloid("twap", n, run=twap.id)
            plan = OrderPlan(
                ctx.instrument_id, spec.symbol, spec.side, "market", bound, size, best, tif="IOC", cloid=cloid,
                market=True,
            )  # fmt: skip
            if self.guard is not None and (why := self.guard([plan])) is not None:
                self._stop(twap, f"slice {n} refused by this profile's guard: {why}")
                return
            request = PlaceRequest((plan,), "twap", run=twap.id, expiry_s=self.slice_expiry_s, settle_s=0)
            outcome = await place(self.client, request, sleep=self.sleep)
            match outcome:
                case Refused(kind=RefusalKind.EXPIRED, clock_set=True) if attempt == 1:
                    continue  # refused, so not done; the refusal set the clock: once more on it
                case Refused(kind=RefusalKind.RATE_LIMITED):  # not done: the slices left take its size
                    self.on_change(twap, f"slice {n} not sent ({outcome.message}) · {twap.progress()}")
                    return
                case Refused():
                    self._stop(twap, f"slice {n} refused: {outcome.error}")
                    return
                case WrongAccount():
                    self._stop(twap, f"slice {n}: {outcome.error}")
                    return
                case Accepted():
                    await self._settle(twap, n, cloid, outcome.expires_ms, acked=True)
                case Recorded() | Unknown():  # no answer: it may or may not have gone; the record says
                    twap.unconfirmed = f"slice {n} unconfirmed: waiting for the exchange ({outcome.lost})"
                    self.on_change(twap, twap.unconfirmed)
                    await self._settle(twap, n, cloid, outcome.expires_ms, acked=False)
            return

    async def _settle(self, twap: Twap, n: int, cloid: str, expires: int, *, acked: bool) -> None:
        """Read slice ``n``'s outcome from the exchange's record, asking again until it answers."""
        settled: Settled | None = None
        while settled is None:
            try:
                settled = await settle_order(self.client, self.account, cloid, expires_ms=expires)
                if settled.open:
                    raise Unsettled("still open on the exchange")
            except Unsettled as exc:
                settled = None
                said = f"slice {n} unconfirmed: waiting for the exchange ({exc.reason})"
                if said != twap.unconfirmed:
                    twap.unconfirmed = said
                    self.on_change(twap, said)
                if twap.state == "cancelled":  # told to stop: say plainly what is left unknown
                    twap.reason = f"{twap.reason}; slice {n} unconfirmed: see the open orders and fills"
                    self.on_change(twap, twap.reason)
                    return
                await self._runs.wait(twap.id, self.settle_retry_s)
        twap.unconfirmed = ""
        if not settled.found:
            if acked:  # the exchange took it, then lost it: its record cannot be trusted to count from
                self._stop(twap, f"slice {n} was accepted, but the exchange has no record of it now")
                return
            self.on_change(twap, f"slice {n}: not on the exchange, so not done · {twap.progress()}")
            return
        twap.filled += settled.filled
        twap.value += settled.value
        twap.priced += settled.priced
        self.on_change(twap, f"slice {n}: filled {twap.spec.size(settled.filled)} · {twap.progress()}")

    def _stop(self, twap: Twap, why: str) -> None:
        twap.state = "stopped"
        twap.reason = why
        self.on_change(twap, f"stopped: {why}")
