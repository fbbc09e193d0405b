"""Trailing stops: a real reduce-only stop kept on the exchange, moved by xtui as the price runs in the trader's
favour (``tui.trading.trail_plan`` decides where).

The interface has no modify action, so a move places the new stop first and then cancels the old one: for a moment
two rest, never none. The old one's cancel is confirmed (its answer, or the exchange's record by cloid) before the
next move; while it is not, nothing more is placed. A new stop whose answer was lost is settled from the record by
its cloid (``tr<id>x<stamp>-<n>``, signed with a short ``expiresAfter``) before anything else is sent: there, it is
the stop; absent once its expiry has passed, the old one still is. The position is read from the exchange before
each move (each stop is for its whole size), and the stop's own record every ``check_s``: a position closed or
flipped ends the trail (its stop, which can only reduce, is cancelled), a stop gone (fired, or cancelled by hand)
ends it too, each said in words. A position that grows or shrinks (the feed's size, looked at every step, no longer
the stop's) is covered again at the next step: a stop for the exchange's size at the same trigger (or the trail's
new one) is placed and the old one retired as a move does. Until that is done (the exchange frozen, unreachable or
refusing) the trail says the position is not covered, and how much of it the stop covers (``uncovered``).
Stopped (by the trader, or as xtui quits or is signalled), a trail only stops moving: the last
stop stays on the exchange, and ``reason`` says what rests there.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from decimal import Decimal
from typing import ClassVar

import msgspec

from tui.api.client import Client
from tui.api.errors import AccountMismatch, ApiError, ClientError
from tui.api.refusals import RefusalKind

from .cloids import make_cloid
from .orders import OrderContext, OrderPlan, fmt_decimal
from .placement import Accepted, PlaceRequest, Refused, Unknown, WrongAccount, place
from .placement import Settled as Recorded
from .settle import Settled, Unsettled, settle_order
from .tool_book import KeptStop, KeptTrail
from .tools import Job
from .trail_plan import Source, TrailSpec, advance, improves, kept_from_mark, move_step, stop_plan, trail_trigger
from .trail_state import State, Stop, Trail
from .waits import Runs

__all__ = ["Stop", "Trail", "TrailRunner"]

STOP_EXPIRY_S = 15.0  # a stop the exchange has not seen by then never rests: a lost answer is settled soon
STEP_S = 1.0  # how often the price is looked at
CHECK_S = 5.0  # how often the stop's own record is read (fired? cancelled by hand?)
RETRY_S = 2.0  # how often an unconfirmed step is asked after again
MAX_REFUSALS = 3  # moves refused in a row before the trail stops (its last stop rests)


class TrailRunner:
    """The trailing stops of one account. ``context(symbol)`` is order entry's view of an instrument now;
    ``price(symbol, source)`` its mark or last price now (None: not known)."""

    def __init__(
        self,
        client: Client,
        account: str,
        context: Callable[[str], OrderContext | None],
        price: Callable[[str, Source], Decimal | None],
        on_change: Callable[[Trail, str], None],
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        stop_expiry_s: float = STOP_EXPIRY_S,
        step_s: float = STEP_S,
        check_s: float = CHECK_S,
        retry_s: float = RETRY_S,
        guard: Callable[[list[OrderPlan]], str | None] | None = None,
        on_kept: Callable[[list[KeptTrail]], None] | None = None,
    ) -> None:
        self.client = client
        self.account = account
        self.context = context
        self.price = price
        self._told = on_change
        self._on_kept = on_kept  # the trails to keep on disk, after every change (``tool_book``)
        self.clock = clock
        self.sleep = sleep
        self.stop_expiry_s = stop_expiry_s
        self.step_s = step_s
        self.check_s = check_s
        self.retry_s = retry_s
        self.guard = guard  # the profile's guards, asked before every stop placed
        self.trails: list[Trail] = []
        self._runs = Runs(sleep)

    @property
    def active(self) -> list[Trail]:
        return [t for t in self.trails if t.active]

    def on_change(self, trail: Trail, what: str) -> None:
        """Tell of ``trail`` and keep what a restart needs (a trail stopped by the trader or ended is kept no more)."""
        self._told(trail, what)
        self._keep()

    def _keep(self) -> None:
        if self._on_kept is not None:
            self._on_kept(self.kept())

    def kept(self) -> list[KeptTrail]:
        """The trails a restart may resume: running, or stopped as xtui ended, with a stop on the exchange or one
        being sent (its answer not read yet: it may rest)."""
        kept = []
        for t in self.trails:
            stop = t.stop or t.placing
            if stop is None or not (t.active or t.kept_on_exit):
                continue
            placing = None if t.placing is None else KeptStop(t.placing.cloid, t.placing.trigger, t.placing.size)
            kept.append(KeptTrail(self.account, t.id, t.spec, t.peak, stop.cloid, stop.trigger, stop.size, placing))
        return kept

    def resume(self, kept: KeptTrail, resting: Mapping[str, int]) -> Trail:
        """Go on trailing ``kept`` from its peak, as if xtui had never stopped. ``resting``: the exchange's resting
        orders' ids by cloid, holding its stop's, or the one it was sending, or both (killed mid-move: the newer is
        its stop and the older is retired at the first step, as a move's old stop is). The first step reads the
        stop's record and the position, as every check does."""
        stops = [Stop(kept.cloid, kept.trigger, kept.size)]
        if (p := kept.placing) is not None and p.cloid != kept.cloid:
            stops.append(Stop(p.cloid, p.trigger, p.size))
        found = [msgspec.structs.replace(s, oid=resting[s.cloid]) for s in stops if s.cloid in resting]
        if not found:
            raise ValueError(f"no stop of {kept.words()} rests")
        old = found[0] if len(found) == 2 else None
        trail = Trail(len(self.trails) + 1, kept.spec, peak=kept.peak, stop=found[-1], old=old)
        self.trails.append(trail)
        self._runs.start(trail.id, self._run(trail, kept.trigger, resumed=True))
        return trail

    def labels(self) -> dict[str, tuple[str, str]]:
        """cloid -> what the open orders show for it (its type, and the peak), for every stop of an active trail."""
        out: dict[str, tuple[str, str]] = {}
        for trail in self.active:
            kind, peak = trail.label()
            if trail.stop is not None:
                out[trail.stop.cloid] = (kind, peak)
            if trail.old is not None:
                out[trail.old.cloid] = (f"{kind} (old)", "being cancelled")
        return out

    def uncovered(self) -> dict[str, str]:
        """symbol -> how much of the position its stop covers, in words, for each active trail whose stop is not
        for the whole position as last read (growing, shrinking, or a resize the exchange has not taken yet)."""
        return {t.spec.symbol: t.uncovered for t in self.active if t.uncovered}

    def start(self, spec: TrailSpec, first: Decimal) -> Trail:
        """Start trailing ``spec`` with its first stop at ``first`` (``trail_plan.trail_spec``)."""
        trail = Trail(len(self.trails) + 1, spec)
        self.trails.append(trail)
        self._runs.start(trail.id, self._run(trail, first))
        self.on_change(trail, f"started: {spec.describe()}")
        return trail

    def stop(self, trail: Trail, why: str = "stopped by you") -> None:
        """Stop moving ``trail`` (once the step under way is settled); its last stop stays on the exchange."""
        if trail.active and not trail.halt:
            trail.halt = why
            self._runs.wake(trail.id)

    async def stop_all(self, why: str = "xtui quit") -> None:
        """Stop every trail and wait for them (xtui is quitting): each says what it leaves on the exchange."""
        for trail in self.active:
            trail.kept_on_exit = True
            self.stop(trail, why)
        await self._runs.join()

    # ---- the order tool (tui.trading.tools) --------------------------------------------------------

    name: ClassVar[str] = "Trailing stop"
    protective: ClassVar[bool] = True
    on_exit: ClassVar[str] = (
        "Quitting stops moving the trailing stops: each last stop stays on the exchange where it is."
    )

    def jobs(self) -> list[Job]:
        return [Job(self.name, t.id, t.progress()) for t in self.active]

    def left_if_ended(self) -> list[str]:
        return [f"Trailing stop {t.id} {t.spec.symbol}: {t.resting()}" for t in self.trails if t.stop is not None]

    def owned_cloids(self) -> set[str]:
        return {s.cloid for t in self.active for s in (t.stop, t.old) if s is not None}

    async def end_all(self, why: str) -> list[str]:
        await self.stop_all(why)
        return self.left_if_ended()

    # ---- the loop -------------------------------------------------------------------------------

    async def _run(self, trail: Trail, first: Decimal, *, resumed: bool = False) -> None:
        spec = trail.spec
        seen = self.price(spec.symbol, spec.source)
        trail.peak = trail.peak if seen is None else advance(spec.side, trail.peak, seen)  # a resumed one keeps its own
        while trail.active and not trail.halt and trail.stop is None:  # the first stop, before anything else
            held = await self._position(trail)
            if held is not None and trail.active:
                trail.stop = await self._place(trail, first, held)
            if trail.active and trail.refusals >= MAX_REFUSALS:
                self._end(trail, "stopped", f"the first stop was refused: {trail.refused}")
            elif trail.stop is None and trail.active:
                await self._runs.wait(trail.id, self.retry_s)
        if trail.stop is not None:
            done = f"resumed, keeping the {trail.stop.words(spec)}" if resumed else f"{trail.stop.words(spec)} placed"
            self.on_change(trail, f"{done} · {trail.progress()}")
        trail.checked_at = self.clock()
        while trail.active and not trail.halt:
            await self._runs.wait(trail.id, self.step_s)
            if trail.active and not trail.halt:
                await self._step(trail)
        if trail.active and trail.old is not None:  # told to stop mid-move: the old stop's cancel once more
            await self._retire(trail)
        if trail.active:
            self._end(trail, "stopped", f"{trail.halt}: {trail.resting()}")

    async def _step(self, trail: Trail) -> None:
        spec = trail.spec
        if trail.old is not None:  # the last move's cancel is not confirmed: nothing moves until it is
            await self._retire(trail)
            return
        ctx = self.context(spec.symbol)
        seen = Decimal(0) if ctx is None else ctx.position if spec.side == "sell" else -ctx.position
        seen_gone = ctx is not None and seen <= 0
        since = self.clock() - trail.checked_at
        if since >= self.check_s or (seen_gone and since >= self.retry_s):
            await self._check(trail)  # the feed saw the position closed or flipped, or it is time: the record says
        if ctx is None or trail.stop is None or not trail.active:
            return
        target: Decimal | None = None
        if (price := self.price(spec.symbol, spec.source)) is not None:
            trail.peak = advance(spec.side, trail.peak, price)
            target = trail_trigger(spec, trail.peak, ctx.tick)
            target = None if target is None else kept_from_mark(spec.side, target, ctx.mark, ctx.tick)
            step = move_step(spec, trail.peak, ctx.tick)
            target = target if target is not None and improves(spec.side, target, trail.stop.trigger, step) else None
        resize = seen > 0 and seen != trail.stop.size  # the position grew or shrank: the stop is for another size
        if target is None and not resize:
            return
        held = await self._check(trail)  # a stop that fired or was cancelled is never replaced
        if held is None or not trail.active:
            if resize and trail.active and trail.stop is not None:
                self._uncover(trail, trail.stop.size, seen, trail.unconfirmed or "the exchange's record is not read")
            return
        if target is None and held == trail.stop.size:  # the feed is behind the exchange: the stop is for all of it
            if self._uncover(trail, held, held, ""):
                self.on_change(trail, f"covered again: {trail.stop.words(spec)}")
            return
        old = trail.stop
        self._uncover(trail, old.size, held, "")  # known at once; told if the resize fails or waits
        new = await self._place(trail, old.trigger if target is None else target, held)
        if new is None:
            if trail.active and held != old.size:
                self._uncover(trail, old.size, held, trail.unconfirmed or f"refused: {trail.refused}")
            if trail.active and trail.refusals >= MAX_REFUSALS and target is not None:  # a resize is tried on
                why = f"{trail.refusals} moves refused in a row (last: {trail.refused})"
                self._end(trail, "stopped", f"{why}; {trail.resting()}")
            return
        trail.old, trail.stop = old, new
        again = self._uncover(trail, new.size, held, "")
        if new.trigger != old.trigger:
            trail.moves += 1
            moved = f"moved to {fmt_decimal(new.trigger)} ({trail.followed()})"
            moved += f" for {fmt_decimal(new.size)} (was {fmt_decimal(old.size)})" if new.size != old.size else ""
        else:
            trail.resizes += 1
            moved = f"resized for the whole position: {new.words(spec)} (was {fmt_decimal(old.size)})"
        self.on_change(trail, f"{moved}; covered again" if again else moved)
        await self._retire(trail)

    # ---- the exchange's record ----------------------------------------------------------------------

    def _uncover(self, trail: Trail, covered: Decimal, held: Decimal, why: str) -> bool:
        """Say (once, with ``why``) that the stop covers ``covered`` of a position of ``held``, or clear it when it
        covers all of it: True when that clears what was said (the caller says it is covered again)."""
        words = "" if covered == held else (
            f"not covered: the stop covers {fmt_decimal(covered)} of {fmt_decimal(held)} {trail.spec.symbol}"
        )  # fmt: skip
        told = trail.uncovered_said
        if words != trail.uncovered:
            trail.uncovered, trail.uncovered_said = words, False
        if words and why and not trail.uncovered_said:
            trail.uncovered_said = True
            self.on_change(trail, f"{words} ({why})")
        return told and not words

    async def _position(self, trail: Trail) -> Decimal | None:
        """The size a stop is for, from the exchange's positions; None when it cannot be read, or the position
        is closed or flipped (the trail then ends, and its stop is cancelled: it could only ever reduce)."""
        spec = trail.spec
        try:
            held = sum((p.size for p in await self.client.positions(self.account, spec.symbol)
                        if p.instrument == spec.symbol), Decimal(0))  # fmt: skip
        except ClientError as exc:
            self._say(trail, f"the position is not readable ({exc}): the stop stays where it is")
            return None
        self._say(trail, "")
        if held and (held > 0) == (spec.side == "sell"):
            return abs(held)
        what = "closed" if not held else f"flipped to {'long' if held > 0 else 'short'} {fmt_decimal(abs(held))}"
        left = await self._cancel_all(trail)
        self._end(trail, "ended", f"the {spec.symbol} {spec.held} position is {what}: trail ended; {left}")
        return None

    async def _check(self, trail: Trail) -> Decimal | None:
        """The exchange's record of the trail: the size its stop protects, when the stop still rests and the
        position is open; None otherwise (it cannot say now, or the trail has ended: a stop gone, a position closed
        or flipped, each said)."""
        trail.checked_at = self.clock()
        stop = trail.stop
        if stop is None:
            return None
        try:
            settled = await settle_order(self.client, self.account, stop.cloid, expires_ms=0)
        except Unsettled as exc:
            self._say(trail, f"the stop's record is not readable ({exc.reason}): the stop stays where it is")
            return None
        held = await self._position(trail)  # closed or flipped: that ends it
        if settled.open or held is None:
            return held
        how = "fired" if settled.filled else "was cancelled, not by this trail" if settled.found else "is gone"
        trail.stop = None
        self._end(trail, "ended", f"the stop at {fmt_decimal(stop.trigger)} {how}: trail ended; no stop of it rests")
        return None

    async def _place(self, trail: Trail, trigger: Decimal, size: Decimal) -> Stop | None:
        """Place a stop at ``trigger`` for ``size``: the stop, once the answer or the record says it rests; None
        when it does not (refused, or never reached the exchange)."""
        spec = trail.spec
        ctx = self.context(spec.symbol)
        if ctx is None:
            return None
        cloid = make_cloid("trailing", trail.moves + trail.resizes + 1, run=trail.id)
        kept = kept_from_mark(spec.side, trigger, ctx.mark, ctx.tick)  # the mark may have moved since it was chosen
        if kept is None:
            return None
        trigger = kept
        plan = stop_plan(ctx, spec, trigger, size, cloid)
        if self.guard is not None and (why := self.guard([plan])) is not None:
            self._end(trail, "stopped", f"refused by this profile's guard: {why}; {trail.resting()}")
            return None

        def unconfirmed(lost: str) -> None:  # no answer: it may or may not rest; the record will say
            said = f"the stop at {fmt_decimal(trigger)} is unconfirmed: waiting for the exchange ({lost})"
            if trail.uncovered:  # a resize: until the record says, the position is not covered
                said, trail.uncovered_said = f"{trail.uncovered}; {said}", True
            self._say(trail, said)

        request = PlaceRequest((plan,), "trailing", run=trail.id, expiry_s=self.stop_expiry_s, settle_s=0)
        trail.placing = Stop(cloid, trigger, size)
        self._keep()  # before it is sent: killed before the answer, the next start still finds it by its cloid
        outcome = await place(self.client, request, on_unconfirmed=unconfirmed, sleep=self.sleep)
        trail.placing = None  # settled below, except where the record was not read before a stop (set again there)
        match outcome:
            case Refused(kind=RefusalKind.RATE_LIMITED):  # nothing was applied: tried again at the next step
                self._say(
                    trail, f"the stop at {fmt_decimal(trigger)} is not placed yet ({outcome.error}): trying again"
                )
                return None
            case Refused():
                words = outcome.error.message if isinstance(outcome.error, ApiError) else str(outcome.error)
                again = bool(trail.refusals) and words == trail.refused  # the same refusal step after step: told once
                trail.refusals += 1
                trail.refused = words
                if not again:
                    trail.uncovered_said = trail.uncovered_said or bool(trail.uncovered)  # resting() says it
                    self.on_change(trail, f"a stop at {fmt_decimal(trigger)} was refused ({words}); {trail.resting()}")
                return None
            case WrongAccount():
                self._end(trail, "stopped", str(outcome.error))
                return None
            case Accepted():
                oid = outcome.oids[0]
            case Recorded() | Unknown():  # the answer was lost: the record says, before anything else is sent
                settled = outcome.orders[0]
                if settled is None and isinstance(outcome, Unknown):
                    settled = await self._settle(trail, cloid, outcome.expires_ms, outcome.why)
                    if settled is None:  # told to stop first: it may rest, so it stays kept
                        trail.placing = Stop(cloid, trigger, size)
                        return None
                self._say(trail, "")
                if settled is None or not settled.found or not settled.open:
                    return None
                oid = settled.oid
        trail.refusals = 0
        return Stop(cloid, trigger, size, oid)

    async def _settle(self, trail: Trail, cloid: str, expires: int, why: str) -> Settled | None:
        """The record of the stop ``cloid`` (which could not tell ``why``), asked until it answers; None when told
        to stop first."""
        while True:
            short = f"{trail.uncovered}; " if trail.uncovered else ""  # a resize's: the position is not covered
            self._say(trail, f"{short}a new stop is unconfirmed: waiting for the exchange ({why})")
            if trail.halt:  # told to stop: say plainly what is left unknown
                trail.halt += f"; whether the new stop {cloid} rests is unknown: see the open orders"
                return None
            await self._runs.wait(trail.id, self.retry_s)
            try:
                return await settle_order(self.client, self.account, cloid, expires_ms=expires)
            except Unsettled as exc:
                why = exc.reason

    async def _retire(self, trail: Trail) -> None:
        """Cancel the old stop, confirmed by its answer or by the record; left for the next step when neither
        says (nothing moves until then)."""
        old = trail.old
        if old is not None and await self._cancelled(trail, old):
            trail.old = None

    async def _cancel_all(self, trail: Trail) -> str:
        """Cancel every stop of the trail (its position is gone); what is left, in words."""
        left = [s for s in (trail.old, trail.stop) if s is not None and not await self._cancelled(trail, s)]
        trail.old = trail.stop = None
        if not left:
            return "no stop of it rests"
        trail.stop = left[0]
        return f"cancelling {' and '.join(s.cloid for s in left)} is unconfirmed: see the open orders"

    async def _cancelled(self, trail: Trail, stop: Stop) -> bool:
        """Cancel ``stop`` by its cloid: True once it rests no more (its answer, or the record)."""
        ctx = self.context(trail.spec.symbol)
        if ctx is None:
            return False
        try:
            await self.client.cancel_by_cloid([(stop.cloid, ctx.instrument_id)])
            return True
        except AccountMismatch as exc:
            self._say(trail, str(exc))
            return False
        except ClientError:  # refused (gone already?) or no answer: the record says
            pass
        try:
            settled = await settle_order(self.client, self.account, stop.cloid, expires_ms=0)
        except Unsettled as exc:
            self._say(trail, f"the cancel of the stop at {fmt_decimal(stop.trigger)} is unconfirmed ({exc.reason})")
            return False
        return not settled.open

    def _say(self, trail: Trail, what: str) -> None:
        """Set (or clear, with "") what the trail waits for, telling it once."""
        if what != trail.unconfirmed:
            trail.unconfirmed = what
            if what:
                self.on_change(trail, what)

    def _end(self, trail: Trail, state: State, why: str) -> None:
        if trail.active:
            trail.state = state
            trail.reason = why
            self.on_change(trail, f"{state}: {why}")
