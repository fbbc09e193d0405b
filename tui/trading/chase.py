"""Chase: a post-only limit order kept at the best bid (a buy) or the best ask (a sell), repriced as that price
moves, until it has filled its size, or is cancelled; never beyond the limit price the trader may set (there it
waits at the limit, and follows again when the touch comes back).

One order of a chase rests at a time, each with its own client order id (``ch<id>x<stamp>-<n>``, of
``tui.trading.cloids``). A reprice withdraws the resting order first (``tui.trading.withdraw``: cancel, then read
from the exchange's record that it is closed and what it filled) and only then places what is left at the new
price; so the size placed is the size less what the record says every earlier order filled, and the chase never
fills more than its size, whatever the network does. Orders go through ``tui.trading.placement``: a placement whose
answer is lost is settled from the record by its cloid (it signs a short ``expiresAfter``) before anything else is
sent; while the record cannot say, the chase waits and says so. A post-only order refused as one that would cross
(``RefusalKind.WOULD_CROSS``: the book moved between the look and the order) is tried again at the new touch, a few
times; a rate limit is tried again; any other refusal, or one by the profile's guards (asked before each order),
stops the chase.
Cancelling (and quitting xtui) withdraws the resting order; what could not be confirmed is said.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import ClassVar, Literal

import msgspec

from tui.api.client import Client
from tui.api.refusals import RefusalKind

from .cloids import make_cloid
from .orders import OrderContext, OrderPlan, Side, fmt_decimal
from .placement import Accepted, PlaceRequest, Refused, Unknown, WrongAccount, place
from .placement import Settled as Recorded
from .settle import Settled, Unsettled, settle_order
from .tools import Job
from .waits import Runs
from .withdraw import withdraw_order

__all__ = ["CROSS_RETRIES", "MOVED", "Chase", "ChaseRunner", "ChaseSpec", "chase_target"]

ORDER_EXPIRY_S = 15.0  # a placement the exchange has not seen by then never happens (its expiresAfter)
POLL_S = 1.0  # how often the record and the touch are looked at while an order rests
SETTLE_RETRY_S = 2.0  # how often an unconfirmed step is asked after again
MOVED = "moved: "  # starts what is routine (a reprice): the app logs it but does not raise a notice
GIVE_UP_TRIES = 5  # a cancelled chase whose withdrawal stays unconfirmed after this many tries says it may rest
CROSS_RETRIES = 5  # post-only refusals in a row (the book moving under the order) before the chase stops
State = Literal["running", "done", "stopped", "cancelled"]


class ChaseSpec(msgspec.Struct, frozen=True):
    symbol: str
    side: Side
    size: Decimal
    limit: Decimal | None = None  # a buy never bids above it, a sell never offers below it

    def describe(self) -> str:
        limit = f", limit {fmt_decimal(self.limit)}" if self.limit is not None else ", no limit"
        touch = "best bid" if self.side == "buy" else "best ask"
        return f"chase {self.side.upper()} {fmt_decimal(self.size)} {self.symbol} at the {touch}{limit}"


class Chase(msgspec.Struct):
    id: int
    spec: ChaseSpec
    state: State = "running"
    filled: Decimal = Decimal(0)  # the exchange's record of what the chase's closed orders filled
    working: Decimal = Decimal(0)  # what the resting order has filled so far, as the record last said
    value: Decimal = Decimal(0)  # price x size of the fills read
    priced: Decimal = Decimal(0)  # the size those fills cover
    placed: int = 0  # orders placed so far (the n of the next cloid)
    cloid: str = ""  # the order resting now ("" none)
    price: Decimal | None = None  # its price
    expires_ms: int = 0  # its placement's expiresAfter
    unconfirmed: str = ""  # while a step's outcome is unknown: what the chase waits for, in words
    reason: str = ""  # why it ended

    @property
    def active(self) -> bool:
        return self.state == "running"

    @property
    def left(self) -> Decimal:
        """The size not yet filled by the closed orders: what the next order is placed for."""
        return self.spec.size - self.filled

    @property
    def done(self) -> Decimal:
        """Filled in all, the resting order's part included."""
        return self.filled + self.working

    @property
    def average(self) -> Decimal | None:
        return self.value / self.priced if self.priced else None

    def progress(self) -> str:
        avg = f" at avg {fmt_decimal(self.average.quantize(Decimal('0.0001')))}" if self.average else ""
        at = f" · resting at {fmt_decimal(self.price)}" if self.cloid and self.price is not None else ""
        return f"{fmt_decimal(self.done)} of {fmt_decimal(self.spec.size)} {self.spec.symbol}{avg}{at}"


def chase_target(spec: ChaseSpec, ctx: OrderContext) -> Decimal | None:
    """Where the chase's order belongs now: the touch on its own side, held at the limit; None: no touch."""
    touch = ctx.best_bid if spec.side == "buy" else ctx.best_ask
    if touch is None:
        return None
    if spec.limit is None:
        return touch
    return min(touch, spec.limit) if spec.side == "buy" else max(touch, spec.limit)


class ChaseRunner:
    """The chases of one account. ``context(symbol)`` is order entry's view of an instrument now."""

    def __init__(
        self,
        client: Client,
        account: str,
        context: Callable[[str], OrderContext | None],
        on_change: Callable[[Chase, str], None],
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        order_expiry_s: float = ORDER_EXPIRY_S,
        poll_s: float = POLL_S,
        settle_retry_s: float = SETTLE_RETRY_S,
        guard: Callable[[list[OrderPlan]], str | None] | None = None,
    ) -> None:
        self.client = client
        self.account = account
        self.context = context
        self.on_change = on_change
        self.sleep = sleep
        self.order_expiry_s = order_expiry_s
        self.poll_s = poll_s
        self.settle_retry_s = settle_retry_s
        self.guard = guard  # the profile's guards, asked before every order (a refusal stops the chase)
        self.chases: list[Chase] = []
        self.quitting = False
        self._runs = Runs(sleep)

    @property
    def active(self) -> list[Chase]:
        return [c for c in self.chases if c.active]

    def start(self, spec: ChaseSpec) -> Chase:
        chase = Chase(len(self.chases) + 1, spec)
        self.chases.append(chase)
        self._runs.start(chase.id, self._run(chase))
        self.on_change(chase, f"started: {spec.describe()}")
        return chase

    def cancel(self, chase: Chase, why: str = "cancelled") -> None:
        """Stop chasing: the resting order is withdrawn (its fills counted) before the chase says it is over."""
        if chase.active:
            chase.state = "cancelled"
            chase.reason = why
            self._runs.wake(chase.id)
            self.on_change(chase, f"{why}: withdrawing its order" if chase.cloid else why)

    async def stop_all(self) -> list[str]:
        """Cancel every chase and wait for them (xtui is quitting: a withdrawal the record cannot confirm at once is
        not asked after again); what may still rest, in words."""
        self.quitting = True
        for chase in self.active:
            self.cancel(chase, "cancelled: xtui quit")
        await self._runs.join()
        return self.resting()

    def resting(self) -> list[str]:
        """Each chase order that may still rest on the exchange (its withdrawal not confirmed), in words."""
        return [
            f"chase {c.id}: {c.cloid} ({c.spec.side} {fmt_decimal(c.left)} {c.spec.symbol} at "
            f"{fmt_decimal(c.price)}) may still rest: its cancel is not confirmed"
            for c in self.chases
            if c.cloid
        ]

    # ---- the order tool (tui.trading.tools) --------------------------------------------------------

    name: ClassVar[str] = "Chase"
    protective: ClassVar[bool] = False
    on_exit: ClassVar[str] = "Quitting withdraws each chase's order."

    def jobs(self) -> list[Job]:
        return [Job(self.name, c.id, f"{c.spec.describe()} · {c.progress()}") for c in self.active]

    def left_if_ended(self) -> list[str]:
        return self.resting()

    def owned_cloids(self) -> set[str]:
        return {c.cloid for c in self.active if c.cloid}

    async def end_all(self, why: str) -> list[str]:
        return await self.stop_all()

    def uncovered(self) -> dict[str, str]:
        return {}

    # ---- the loop -------------------------------------------------------------------------------

    async def _run(self, chase: Chase) -> None:
        crossed = 0
        while chase.active:
            if chase.left <= 0:
                self._end(chase, "done", f"done: {chase.progress()}")
                return
            ctx = self.context(chase.spec.symbol)
            if not chase.cloid:
                price = chase_target(chase.spec, ctx) if ctx is not None else None
                if ctx is None or price is None:
                    await self._wait(chase, self.poll_s)
                    continue
                outcome = await self._place(chase, ctx, price)
                if outcome != "again":  # a rate limit neither counts as a crossing nor ends a run of them
                    crossed = crossed + 1 if outcome == "crossed" else 0
                if crossed >= CROSS_RETRIES:
                    self._end(chase, "stopped", f"post-only refused {crossed} times in a row: the book moves too fast")
                    return
                if outcome in ("crossed", "again"):
                    await self._wait(chase, self.poll_s)
                continue
            await self._wait(chase, self.poll_s)
            if not chase.active:
                break
            settled = await self._look(chase)
            if settled is None or chase.cloid == "":
                continue
            ctx = self.context(chase.spec.symbol)
            target = chase_target(chase.spec, ctx) if ctx is not None else None
            if target is not None and target != chase.price:
                self.on_change(
                    chase, f"{MOVED}the touch is {fmt_decimal(target)}: withdrawing order {chase.placed} to reprice"
                )
                await self._withdraw(chase)
        if chase.cloid:
            await self._withdraw(chase)
        if chase.state == "cancelled":
            left = f"; its order {chase.cloid} may still rest: see the open orders" if chase.cloid else ""
            self.on_change(chase, f"{chase.reason}: {chase.progress()}{left}")

    async def _wait(self, chase: Chase, seconds: float) -> bool:
        """Until ``seconds`` have passed or the chase is cancelled; whether it still runs."""
        if chase.active:
            await self._runs.wait(chase.id, seconds)
        return chase.active

    async def _place(self, chase: Chase, ctx: OrderContext, price: Decimal) -> str:
        """Place what is left at ``price``; "rests", "crossed", "again" (rate limited), "none" (nothing rests: settled
        or stopped)."""
        spec = chase.spec
        chase.placed += 1
        cloid = make_cloid("chase", chase.placed, run=chase.id)
        plan = OrderPlan(
            ctx.instrument_id, spec.symbol, spec.side, "limit", price, chase.left, price, post_only=True, cloid=cloid
        )
        if self.guard is not None and (why := self.guard([plan])) is not None:
            self._end(chase, "stopped", f"refused by this profile's guard: {why}")
            return "none"
        request = PlaceRequest((plan,), "chase", run=chase.id, expiry_s=self.order_expiry_s, settle_s=0)
        outcome = await place(self.client, request, sleep=self.sleep)
        match outcome:
            case Refused(kind=RefusalKind.EXPIRED, clock_set=True):  # not placed; the refusal set the clock
                self.on_change(chase, f"order {chase.placed} refused: {outcome.error}")
                return "crossed"
            case Refused(kind=RefusalKind.WOULD_CROSS):  # not placed: the book moved; at the new touch
                self.on_change(chase, f"order {chase.placed} would cross ({outcome.message}): trying the new touch")
                return "crossed"
            case Refused(kind=RefusalKind.RATE_LIMITED):  # not placed; the client's governor paces the next try
                self.on_change(chase, f"order {chase.placed} refused ({outcome.message}): trying again")
                return "again"
            case Refused():
                return self._refused(chase, str(outcome.error))
            case WrongAccount():
                return self._refused(chase, str(outcome.error))
            case Accepted():
                chase.cloid, chase.price, chase.expires_ms = cloid, price, outcome.expires_ms
                self.on_change(chase, f"{MOVED}order {chase.placed}: {chase.spec.side} {fmt_decimal(plan.size)} at "
                               f"{fmt_decimal(price)} · {chase.progress()}")  # fmt: skip
                return "rests"
            case Recorded() | Unknown():  # the answer was lost: it may or may not rest; the record says
                chase.cloid, chase.price, chase.expires_ms = cloid, price, outcome.expires_ms
                chase.unconfirmed = f"order {chase.placed} unconfirmed: waiting for the exchange ({outcome.lost})"
                self.on_change(chase, chase.unconfirmed)
        while chase.cloid and chase.unconfirmed:  # lost answer: nothing more goes until the record says
            if await self._look(chase, acked=False) is None and not await self._wait(chase, self.settle_retry_s):
                return "none"  # told to stop: the run's end withdraws it (a cancel is safe either way)
        return "rests" if chase.cloid else "none"

    def _refused(self, chase: Chase, why: str) -> str:
        self._end(chase, "stopped", f"order {chase.placed} refused: {why}")
        return "none"

    async def _look(self, chase: Chase, *, acked: bool = True) -> Settled | None:
        """The resting order as the record has it; counted and let go once it is closed. None: unknown."""
        try:
            settled = await settle_order(self.client, self.account, chase.cloid, expires_ms=chase.expires_ms)
        except Unsettled as exc:
            said = f"order {chase.placed} unconfirmed: waiting for the exchange ({exc.reason})"
            if said != chase.unconfirmed:
                chase.unconfirmed = said
                self.on_change(chase, said)
            return None
        if chase.unconfirmed:
            chase.unconfirmed = ""
            self.on_change(chase, f"order {chase.placed} read from the exchange's record: {settled.state or 'closed'}")
        if settled.open and settled.filled != chase.working:
            chase.working = settled.filled
            self.on_change(
                chase, f"order {chase.placed}: filled {fmt_decimal(settled.filled)} so far · {chase.progress()}"
            )
        if not settled.open:
            self._count(chase, settled, acked=acked)
            if chase.left > 0 and chase.state == "running" and settled.found:  # closed, not by this chase
                self._end(chase, "stopped", f"order {chase.placed} was cancelled on the exchange, not by this chase")
        return settled

    async def _withdraw(self, chase: Chase) -> None:
        """Cancel the resting order until the record shows it closed, then count what it filled."""

        def waiting(why: str) -> None:
            said = f"order {chase.placed}: {why}"
            if said != chase.unconfirmed:
                chase.unconfirmed = said
                self.on_change(chase, said)

        tries = 0

        async def again(seconds: float) -> bool:
            nonlocal tries
            tries += 1
            # told to stop, and the record cannot say: a few tries, none more when xtui is quitting
            if chase.state == "cancelled" and (tries > GIVE_UP_TRIES or self.quitting):
                return False
            if chase.active:
                await self._wait(chase, seconds)  # a cancel wakes it
            else:
                await self.sleep(seconds)
            return True

        instrument = self.context(chase.spec.symbol)
        if instrument is None:
            waiting("no instrument data to cancel it with")
            return
        settled = await withdraw_order(
            self.client, self.account, chase.cloid, instrument.instrument_id, expires_ms=chase.expires_ms,
            wait=again, retry_s=self.settle_retry_s, on_wait=waiting,
        )  # fmt: skip
        if settled is not None:
            chase.unconfirmed = ""
            self._count(chase, settled, acked=True)

    def _count(self, chase: Chase, settled: Settled, *, acked: bool) -> None:
        """The closed order's fills added to the chase's; nothing rests now."""
        n = chase.placed
        last_read, chase.working = chase.working, Decimal(0)
        chase.cloid, chase.price = "", None
        if not settled.found:
            if acked:  # the exchange took it, then lost it: what it last said is all there is to count
                chase.filled += last_read
                self._end(
                    chase, "stopped", f"order {n} was accepted, but the exchange has no record of it now "
                    f"(it had filled {fmt_decimal(last_read)} when last read)",
                )  # fmt: skip
            else:
                self.on_change(chase, f"order {n}: not on the exchange, so not placed · {chase.progress()}")
            return
        chase.filled += settled.filled
        chase.value += settled.value
        chase.priced += settled.priced
        if settled.filled:
            self.on_change(chase, f"order {n}: filled {fmt_decimal(settled.filled)} · {chase.progress()}")
        if chase.left <= 0 and chase.state == "running":
            self._end(chase, "done", f"done: {chase.progress()}")

    def _end(self, chase: Chase, state: State, said: str) -> None:
        chase.state = state
        chase.reason = said
        self.on_change(chase, said)
