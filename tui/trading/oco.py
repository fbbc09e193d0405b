"""One-cancels-other: a take-profit limit and a stop on one position, where a fill of either cancels or reduces
the other. The exchange has no such link (its ``grouping`` is for brackets), so xtui runs it, and only while it
runs: quitting leaves what rests of both orders on the exchange, unlinked, and says so.

Both legs are reduce-only exits of the same size, so the exchange itself never lets the two together close more
than the position: in the moment between a fill and xtui's next look at the record (``poll_s``) both may fill,
but never past the position. Each leg's fills are read from the exchange's record by its client order id
(``oc<id>x<stamp>-<leg><n>``). A partial fill of one leg reduces the other to what is left (a serious exit keeps
the stop on what is still open): there is no modify action, so the new order is placed first and the old one
then withdrawn (cancelled, and its closing read from the record), so the position is never without it. A leg
that closes after a fill ends the pair: the other is withdrawn, or left for what remains and said. A leg
cancelled by someone else (cancel-all, another client) ends the pair, saying what the record shows still rests.
A placement whose answer is lost is settled from the record before anything else is sent; while the record
cannot say, the pair waits and says so.

An OCO for the whole position follows it (``context``, the feed's view, says it changed; the exchange's positions
confirm before anything is sent): both legs are resized to the new size. An OCO for a part keeps its size, but
never more than the position. A resize that cannot be done yet is said (``uncovered``) and tried again at each
look; a position closed or flipped ends the pair and withdraws what rests. Only legs the record (as last read)
shows resting are ever named as resting (``resting``).

What a restart needs is handed to ``on_kept`` after every change (``kept``: the running pairs, and those left as
xtui ended); ``resume`` links a kept pair again once the exchange shows both its legs resting (``tui.ui.resume``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import ClassVar

import msgspec

from tui.api.client import Client
from tui.api.errors import ClientError
from tui.api.models import Order

from .cloids import make_cloid
from .oco_state import Leg, Oco
from .orders import OrderContext, OrderPlan, fmt_decimal
from .placement import Accepted, PlaceRequest, Refused, Unknown, WrongAccount, place
from .placement import Settled as Recorded
from .settle import Settled, Unsettled, settle_order
from .tool_book import KeptLeg, KeptOco, KeptResize
from .tools import Job
from .waits import Runs
from .withdraw import withdraw_order

__all__ = ["Leg", "Oco", "OcoRunner"]

ORDER_EXPIRY_S = 15.0  # a placement the exchange has not seen by then never happens (its expiresAfter)
POLL_S = 1.0  # how often the record of both legs is read
SETTLE_RETRY_S = 2.0


class OcoRunner:
    """The OCO pairs of one account. ``context(symbol)`` is order entry's view of an instrument now (the feed's
    position): without it a pair does not follow its position."""

    def __init__(
        self,
        client: Client,
        account: str,
        on_change: Callable[[Oco, str], None],
        *,
        context: Callable[[str], OrderContext | None] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        order_expiry_s: float = ORDER_EXPIRY_S,
        poll_s: float = POLL_S,
        settle_retry_s: float = SETTLE_RETRY_S,
        guard: Callable[[list[OrderPlan]], str | None] | None = None,
        on_kept: Callable[[list[KeptOco]], None] | None = None,
    ) -> None:
        self.client = client
        self.account = account
        self._told = on_change
        self._on_kept = on_kept  # the pairs to keep on disk, after every change (``tool_book``)
        self.context = context
        self.sleep = sleep
        self.order_expiry_s = order_expiry_s
        self.poll_s = poll_s
        self.settle_retry_s = settle_retry_s
        self.guard = guard
        self.ocos: list[Oco] = []
        self._quitting = False  # withdrawals and settling give up soon: xtui is ending
        self._runs = Runs(sleep)

    @property
    def active(self) -> list[Oco]:
        return [o for o in self.ocos if o.active]

    def start(self, take_profit: OrderPlan, stop: OrderPlan, *, whole: bool | None = None) -> Oco:
        """Place ``take_profit`` (a reduce-only limit) and ``stop`` (a reduce-only stop) of one size, and link them.
        ``whole``: the pair follows the position's size (by default: when that size is all of the position as
        ``context`` has it now)."""
        if whole is None:
            ctx = self.context(take_profit.symbol) if self.context is not None else None
            whole = ctx is not None and bool(ctx.position) and take_profit.size >= abs(ctx.position)
        legs = (Leg("take-profit", "t", take_profit), Leg("stop", "s", stop))
        oco = Oco(len(self.ocos) + 1, take_profit.symbol, take_profit.size, legs, whole=whole)
        self.ocos.append(oco)
        self._runs.start(oco.id, self._run(oco))
        self.on_change(oco, f"started: OCO {take_profit.side.upper()} {fmt_decimal(oco.size)} {oco.symbol}")
        return oco

    def on_change(self, oco: Oco, what: str) -> None:
        """Tell of ``oco`` and keep what a restart needs (a pair cancelled or ended is kept no more)."""
        self._told(oco, what)
        self._keep()

    def _keep(self) -> None:
        if self._on_kept is not None:
            self._on_kept(self.kept())

    def kept(self) -> list[KeptOco]:
        """The pairs a restart may link again: running, or left as xtui ended, with both legs placed."""
        return [self._kept(o) for o in self.ocos if (o.active or o.kept_on_exit) and all(leg.cloid for leg in o.legs)]

    def _kept(self, o: Oco) -> KeptOco:
        tp, sl = (KeptLeg.of(leg.cloid, leg.plan, leg.placing) for leg in o.legs)
        placed = o.size - sum((leg.before for leg in o.legs), Decimal(0))  # the fills of replaced orders are past
        return KeptOco(self.account, o.id, o.symbol, o.legs[0].plan.instrument_id, o.whole, placed, tp, sl)

    def resume(self, kept: KeptOco, found: tuple[Order, Order]) -> Oco:
        """Link ``kept`` again, whose take-profit and stop the exchange shows resting (``found``, in that order), as
        if xtui had never stopped: the first look reads both legs' records and the position, as every look does."""
        legs = tuple(
            Leg(name, tag, k.plan(kept.instrument_id, kept.symbol), k.cloid, filled=o.size - o.unfilled, open=True)
            for name, tag, k, o in zip(("take-profit", "stop"), "ts", kept.legs, found, strict=True)
        )
        oco = Oco(len(self.ocos) + 1, kept.symbol, kept.size, (legs[0], legs[1]), whole=kept.whole)
        self.ocos.append(oco)
        self._runs.start(oco.id, self._run(oco, resumed=True))
        return oco

    def cancel(self, oco: Oco) -> None:
        """Unlink and withdraw both legs."""
        if oco.active:
            oco.state = "stopped"
            oco.reason = "cancelled"
            self._runs.wake(oco.id)
            self.on_change(oco, "cancelled: withdrawing both orders")

    async def stop_all(self) -> list[str]:
        """xtui is quitting: every pair is unlinked, its orders left on the exchange; what rests, in words."""
        self._quitting = True
        for oco in self.active:
            oco.state, oco.kept_on_exit = "left", True
            oco.reason = "xtui quit: what rests of it stays on the exchange, no longer linked"
            self._runs.wake(oco.id)
            self.on_change(oco, oco.reason)
        await self._runs.join()
        if self._on_kept is not None:  # the legs as the pairs ended, whatever they said last
            self._on_kept(self.kept())
        return self.resting()

    def resting(self, *, running_too: bool = False) -> list[str]:
        """Each order of a pair no longer watched (or of any pair: ``running_too``) that the exchange's record, as
        last read, shows resting (or whose placement was never confirmed), in words."""
        lines = []
        for o in self.ocos:
            if o.active and not running_too:
                continue
            for leg in o.legs:
                if leg.cloid and leg.open:
                    lines.append(
                        f"OCO {o.id} {o.symbol}: {leg.describe()} ({leg.cloid}) stays on the exchange, not linked"
                    )
                elif leg.cloid and leg.unsure:
                    lines.append(
                        f"OCO {o.id} {o.symbol}: {leg.describe()} ({leg.cloid}) may be on the exchange (its placement"
                        " was not confirmed), not linked"
                    )
                if leg.stray:
                    lines.append(f"OCO {o.id} {o.symbol}: {leg.stray} may be on the exchange (its placement was not"
                                 " confirmed), not linked")  # fmt: skip
        return lines

    def uncovered(self) -> dict[str, str]:
        """Symbol -> "not covered: ..." for each running pair whose legs are not for what they should cover."""
        return {o.symbol: o.uncovered for o in self.active if o.uncovered}

    # ---- the order tool (tui.trading.tools) --------------------------------------------------------

    name: ClassVar[str] = "OCO"
    protective: ClassVar[bool] = True
    on_exit: ClassVar[str] = (
        "What rests of an OCO stays on the exchange, no longer linked; the next start offers to link it again."
    )

    def jobs(self) -> list[Job]:
        return [Job(self.name, o.id, o.progress()) for o in self.active]

    def left_if_ended(self) -> list[str]:
        return self.resting(running_too=True)

    def owned_cloids(self) -> set[str]:
        return {leg.cloid for o in self.active for leg in o.legs if leg.cloid}

    async def end_all(self, why: str) -> list[str]:
        return await self.stop_all()

    # ---- the loop -------------------------------------------------------------------------------

    async def _run(self, oco: Oco, *, resumed: bool = False) -> None:
        tp, sl = oco.legs
        if resumed:
            self.on_change(oco, f"resumed, linking both orders again: {oco.progress()}")
        elif not await self._place(oco, tp, oco.size) or not await self._place(oco, sl, oco.size):
            for leg in oco.legs:
                if leg.cloid and leg.open and await self._withdraw(oco, leg) is not None:
                    self.on_change(oco, f"the {leg.name} was withdrawn: nothing of this OCO rests")
            return
        else:
            self.on_change(oco, f"both orders rest: {oco.progress()}")
        while oco.active:
            if not await self._wait(oco, self.poll_s):
                break
            if not await self._look(oco):
                self._uncover_from_feed(oco)
                continue
            closed = [leg for leg in oco.legs if not leg.open]
            done = next((leg for leg in closed if leg.filled), None)  # its order had fills: a fill closed it
            if done is not None:
                await self._end_pair(oco, done, oco.size - oco.filled)
                return
            if closed:
                await self._gone(oco, closed)
                return
            target = await self._target(oco)
            if target is None or not oco.active:
                continue
            await self._cover(oco, target)
        if oco.state == "stopped" and oco.reason == "cancelled":
            for leg in oco.legs:
                if leg.cloid and leg.open:
                    await self._withdraw(oco, leg)
            self.on_change(oco, f"cancelled: {oco.progress()}")

    async def _end_pair(self, oco: Oco, closed: Leg, left: Decimal) -> None:
        other = oco.legs[1] if closed is oco.legs[0] else oco.legs[0]
        if left > 0 and other.open and other.left > left:
            await self._resize(oco, other, left)
        elif left <= 0 and other.open:
            await self._withdraw(oco, other)
        oco.state, oco.uncovered = "done", ""
        if other.open:
            rest = f"; the {other.name} stays for the {fmt_decimal(other.left)} left"
        elif other.cloid and not other.filled and left > 0:
            rest = f"; the {other.name} was cancelled (not by the OCO)"
        else:
            rest = ""
        oco.reason = f"the {closed.name} filled {fmt_decimal(closed.total)}{rest}"
        self.on_change(oco, f"done: {oco.reason} · {oco.progress()}")

    async def _gone(self, oco: Oco, closed: list[Leg]) -> None:
        """Legs closed with nothing filled, not by the pair (cancel-all, ``x`` on the row, another client): the pair
        ends; what the record shows still resting of it (read again now) is said to stay, unlinked."""
        for leg in oco.legs:
            if leg.open:
                with contextlib.suppress(Unsettled):
                    self._read(leg, await settle_order(self.client, self.account, leg.cloid, expires_ms=leg.expires_ms))
        gone = [leg for leg in oco.legs if not leg.open]
        names = " and ".join(leg.name for leg in gone)
        was = "were" if len(gone) > 1 else "was"
        staying = [leg for leg in oco.legs if leg.open]
        if staying:
            what = "; ".join(f"the {leg.describe()} stays on the exchange, not linked" for leg in staying)
            oco.state = "left"
        else:
            what = "the position has no protection from it"
            oco.state = "stopped"
        oco.uncovered = ""
        oco.reason = f"OCO ended: its {names} {was} cancelled (not by the OCO); {what}"
        self.on_change(oco, oco.reason)

    async def _target(self, oco: Oco) -> Decimal | None:
        """What each leg should close now: what is left of the pair, or (following its position) the size the
        exchange's positions confirm; None when that cannot be known now, or the position closed or flipped (the
        pair then ends)."""
        left = oco.size - oco.filled
        ctx = self.context(oco.symbol) if self.context is not None else None
        if ctx is None:
            return left
        long = oco.legs[0].plan.side == "sell"
        seen = ctx.position if long else -ctx.position
        want = seen if oco.whole else min(left, seen)
        if want == left and not oco.uncovered and all(leg.left == left for leg in oco.legs):
            return left  # the feed agrees with the legs: nothing to confirm
        try:
            held = sum((p.size for p in await self.client.positions(self.account, oco.symbol)
                        if p.instrument == oco.symbol), Decimal(0))  # fmt: skip
        except ClientError as exc:
            self._unsure(oco, f"the position is not readable ({exc}): the legs stay as they are")
            self._uncover_from_feed(oco)
            return None
        if oco.unconfirmed.startswith("the position is not readable"):
            oco.unconfirmed = ""
        held = held if long else -held
        if held <= 0:
            if not await self._look(oco) or any(not leg.open for leg in oco.legs):
                return None  # a leg closed meanwhile (its fill may be what closed the position): the next look says
            what = "closed" if not held else f"flipped to {'short' if long else 'long'} {fmt_decimal(abs(held))}"
            for leg in oco.legs:
                if leg.cloid and leg.open:
                    await self._withdraw(oco, leg)
            rests = [leg.name for leg in oco.legs if leg.open]
            left_words = f"the {' and '.join(rests)} may still rest" if rests else "both orders withdrawn"
            oco.state, oco.uncovered = "stopped", ""
            oco.reason = f"OCO ended: the {oco.symbol} position is {what}; {left_words}"
            self.on_change(oco, f"{oco.reason} · {oco.progress()}")
            return None
        target = held if oco.whole else min(left, held)
        oco.size = oco.filled + target
        return target

    async def _cover(self, oco: Oco, target: Decimal) -> None:
        """Resize each leg to ``target`` (the stop first: it is what protects); not covered until done."""
        self._uncover(oco, target, tell=False)  # known at once (``uncovered``), told if the resize fails or waits
        for leg in sorted(oco.legs, key=lambda leg: leg.tag != "s"):
            if leg.left != target and oco.active:
                await self._resize(oco, leg, target)
        if oco.active:
            self._uncover(oco, target, tell=True)

    def _uncover(self, oco: Oco, want: Decimal, *, tell: bool) -> None:
        """Say (once) that the legs cover less than ``want``, or that they cover it again."""
        covered = min(leg.left for leg in oco.legs)
        words = "" if covered >= want else (  # more than the position is harmless: both are reduce-only
            f"not covered: the OCO covers {fmt_decimal(covered)} of {fmt_decimal(want)} {oco.symbol}"
        )  # fmt: skip
        if words != oco.uncovered:
            told, oco.uncovered, oco.uncovered_said = oco.uncovered_said, words, False
            if not words and told:
                self.on_change(oco, f"covered again: {oco.progress()}")
        if words and tell and not oco.uncovered_said:
            oco.uncovered_said = True
            self.on_change(oco, f"{words} ({oco.refused or oco.unconfirmed or 'the exchange did not confirm'})")

    def _uncover_from_feed(self, oco: Oco) -> None:
        """The exchange's record cannot be read: what the feed's position says the legs should cover, told."""
        ctx = self.context(oco.symbol) if self.context is not None else None
        if ctx is None or not oco.active:
            return
        seen = ctx.position if oco.legs[0].plan.side == "sell" else -ctx.position
        if seen > 0:
            self._uncover(oco, seen if oco.whole else min(oco.size - oco.filled, seen), tell=True)

    async def _wait(self, oco: Oco, seconds: float) -> bool:
        if oco.active:
            await self._runs.wait(oco.id, seconds)
        return oco.active

    def _unsure(self, oco: Oco, said: str) -> None:
        if said != oco.unconfirmed:
            oco.unconfirmed = said
            self.on_change(oco, said)

    async def _place(self, oco: Oco, leg: Leg, size: Decimal, *, resize: bool = False) -> bool:
        """Place ``leg`` for ``size`` and settle it; whether it rests (False: refused, or stopped). A refused
        ``resize`` leaves the pair running (the caller says it is not covered, and it is tried again)."""
        leg.placed += 1
        cloid = make_cloid("oco", leg.placed, run=oco.id, leg=leg.tag)
        plan = msgspec.structs.replace(leg.plan, size=size, cloid=cloid)
        if self.guard is not None and (why := self.guard([plan])) is not None:
            self._refused(oco, f"the {leg.name} refused by this profile's guard: {why}", resize)
            return False
        request = PlaceRequest((plan,), "oco", run=oco.id, expiry_s=self.order_expiry_s, settle_s=0)
        if resize:  # kept before it is sent: a kill before the answer, or before the old is withdrawn, still finds it
            leg.placing = KeptResize(cloid, size)
            self._keep()

        def unconfirmed(lost: str) -> None:
            self._unsure(oco, f"the {leg.name} unconfirmed: waiting for the exchange ({lost})")

        outcome = await place(self.client, request, on_unconfirmed=unconfirmed, sleep=self.sleep)
        match outcome:
            case Refused() | WrongAccount():
                self._refused(oco, f"the {leg.name} refused: {outcome.error}", resize)
                return False
            case Accepted():
                expires = outcome.expires_ms
            case Recorded() | Unknown():  # the answer was lost: the record says before anything else is sent
                expires, settled = outcome.expires_ms, outcome.orders[0]
                why = outcome.why if isinstance(outcome, Unknown) else ""
                while settled is None:
                    self._unsure(oco, f"the {leg.name} unconfirmed: waiting for the exchange ({why})")
                    if self._quitting:  # reported as what may rest
                        leg.plan, leg.cloid, leg.expires_ms, leg.open, leg.unsure = plan, cloid, expires, False, True
                        return False
                    await self.sleep(self.settle_retry_s)
                    try:
                        settled = await settle_order(self.client, self.account, cloid, expires_ms=expires)
                    except Unsettled as exc:
                        why = exc.reason
                oco.unconfirmed = ""
                if not settled.found:
                    lost = f"the {leg.name} was not placed (its answer was lost, and the record has no such order)"
                    self._refused(oco, lost, resize)
                    return False
                self.on_change(oco, f"the {leg.name} read from the exchange's record: {settled.state}")
        leg.plan, leg.cloid, leg.expires_ms, leg.filled, leg.open = plan, cloid, expires, Decimal(0), True
        return True

    def _refused(self, oco: Oco, why: str, resize: bool) -> None:
        if resize:  # said once, not at every look that tries again
            if why != oco.refused:
                oco.refused = why
                self.on_change(oco, why)
        else:
            self._stop(oco, why)

    def _read(self, leg: Leg, settled: Settled) -> None:
        leg.filled, leg.open = settled.filled, settled.open

    async def _look(self, oco: Oco) -> bool:
        """Both legs as the record has them; False: unknown (nothing is done until it is known)."""
        read: list[Settled] = []
        for leg in oco.legs:
            try:
                read.append(await settle_order(self.client, self.account, leg.cloid, expires_ms=leg.expires_ms))
            except Unsettled as exc:
                self._unsure(oco, f"the {leg.name} unconfirmed: waiting for the exchange ({exc.reason})")
                return False
        if oco.unconfirmed:
            oco.unconfirmed = ""
            self.on_change(oco, f"read from the exchange's record again: {oco.progress()}")
        for leg, settled in zip(oco.legs, read, strict=True):
            if not settled.found:
                leg.open = False
                self._stop(oco, f"the exchange has no record of the {leg.name} now: both are unlinked")
                return False
            if settled.filled != leg.filled:
                self.on_change(oco, f"the {leg.name} filled {fmt_decimal(settled.filled)}")
            self._read(leg, settled)
        return True

    async def _resize(self, oco: Oco, leg: Leg, size: Decimal) -> None:
        """Replace ``leg`` with one of ``size``: the new order first, then the old withdrawn and its fills kept.
        New first, old after (not cancel, then place): there is never a moment with no stop resting. For that
        moment both rest, more than the position together, but both are reduce-only: the exchange never lets them
        close more than the position."""
        old_cloid, old_expires, old_filled = leg.cloid, leg.expires_ms, leg.filled
        self.on_change(oco, f"resizing the {leg.name} to {fmt_decimal(size)}")
        before_plan = leg.plan
        if not await self._place(oco, leg, size, resize=oco.active):
            if leg.unsure:  # quitting, the new order's placement unconfirmed: it may rest beside the old (kept so)
                leg.stray, leg.unsure = f"{leg.describe()} ({leg.cloid})", False
            else:
                leg.placing = None
            leg.plan, leg.cloid, leg.expires_ms, leg.filled = before_plan, old_cloid, old_expires, old_filled
            leg.open = True  # the old order, as the record last had it
            return
        new = (leg.cloid, leg.expires_ms, leg.plan)
        leg.cloid, leg.expires_ms, leg.plan = old_cloid, old_expires, before_plan
        settled = await self._withdraw(oco, leg)
        leg.before += settled.filled if settled is not None else old_filled
        leg.cloid, leg.expires_ms, leg.plan = new
        leg.filled, leg.open, oco.refused, leg.placing = Decimal(0), True, "", None
        self.on_change(oco, f"the {leg.name} is now {fmt_decimal(size)} · {oco.progress()}")

    async def _withdraw(self, oco: Oco, leg: Leg) -> Settled | None:
        """Cancel ``leg``'s order until the record shows it closed; its record (None: not confirmed)."""
        tries = 0

        async def again(seconds: float) -> bool:
            nonlocal tries
            tries += 1
            await self.sleep(seconds)
            return not self._quitting and (oco.active or tries < 10)  # else it is reported as what may rest

        settled = await withdraw_order(
            self.client, self.account, leg.cloid, leg.plan.instrument_id, expires_ms=leg.expires_ms,
            wait=again, retry_s=self.settle_retry_s, on_wait=lambda why: self._unsure(oco, f"the {leg.name}: {why}"),
        )  # fmt: skip
        if settled is not None:
            oco.unconfirmed = ""
            leg.filled, leg.open, leg.cloid = settled.filled, False, ""
        return settled

    def _stop(self, oco: Oco, why: str) -> None:
        oco.state = "stopped"
        oco.reason = why
        self.on_change(oco, f"stopped: {why}")
