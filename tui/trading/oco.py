"""One-cancels-other: a take-profit limit and a stop on one position, where a fill of either cancels or reduces
the other. The exchange has no such link (its ``grouping`` is for brackets), so xtui runs it, and only while it
runs: quitting leaves both orders on the exchange, unlinked, and says so.

Both legs are reduce-only exits of the same size, so the exchange itself never lets the two together close more
than the position: in the moment between a fill and xtui's next look at the record (``poll_s``) both may fill,
but never past the position. Each leg's fills are read from the exchange's record by its client order id
(``oc<id>x<stamp>-<leg><n>``). A partial fill of one leg reduces the other to what is left (a serious exit keeps
the stop on what is still open): there is no modify action, so the smaller order is placed first and the larger
one then withdrawn (cancelled, and its closing read from the record), so the position is never without it. A
leg that closes after a fill ends the pair: the other is withdrawn, or left for what remains and said. A leg
cancelled outside xtui ends the pair too, the other left as it is. A placement whose answer is lost is settled
from the record before anything else is sent; while the record cannot say, the pair waits and says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Literal

import msgspec

from tui.api.client import Client
from tui.api.errors import AccountMismatch, ActionRejected, ClientError
from tui.trading.waits import sleep_unless_woken

from .orders import OrderPlan, fmt_decimal
from .settle import Settled, Unsettled, settle_order
from .withdraw import withdraw_order

__all__ = ["Leg", "Oco", "OcoRunner"]

ORDER_EXPIRY_S = 15.0  # a placement the exchange has not seen by then never happens (its expiresAfter)
POLL_S = 1.0  # how often the record of both legs is read
SETTLE_RETRY_S = 2.0
State = Literal["running", "done", "stopped", "left"]


class Leg(msgspec.Struct):
    name: str  # "take-profit" or "stop"
    tag: str  # "t" or "s": its cloids' mark
    plan: OrderPlan  # what it places (its size and cloid change as it is reduced)
    cloid: str = ""  # the order resting now ("" none)
    expires_ms: int = 0
    placed: int = 0
    before: Decimal = Decimal(0)  # what its replaced orders filled
    filled: Decimal = Decimal(0)  # what the resting order has filled, as the record last said
    open: bool = False

    @property
    def total(self) -> Decimal:
        return self.before + self.filled

    def describe(self) -> str:
        at = f"trigger {fmt_decimal(self.plan.trigger)}" if self.plan.trigger else f"at {fmt_decimal(self.plan.price)}"
        return f"{self.name} {fmt_decimal(self.plan.size - self.filled)} {at}"


class Oco(msgspec.Struct):
    id: int
    symbol: str
    size: Decimal
    legs: tuple[Leg, Leg]
    state: State = "running"
    unconfirmed: str = ""
    reason: str = ""

    @property
    def active(self) -> bool:
        return self.state == "running"

    @property
    def filled(self) -> Decimal:
        return sum((leg.total for leg in self.legs), Decimal(0))

    def progress(self) -> str:
        rest = " · ".join(leg.describe() for leg in self.legs if leg.cloid)
        return f"{fmt_decimal(self.filled)} of {fmt_decimal(self.size)} {self.symbol} closed" + (
            f" · {rest}" if rest else ""
        )


class OcoRunner:
    """The OCO pairs of one account."""

    def __init__(
        self,
        client: Client,
        account: str,
        on_change: Callable[[Oco, str], None],
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        order_expiry_s: float = ORDER_EXPIRY_S,
        poll_s: float = POLL_S,
        settle_retry_s: float = SETTLE_RETRY_S,
        guard: Callable[[list[OrderPlan]], str | None] | None = None,
    ) -> None:
        self.client = client
        self.account = account
        self.on_change = on_change
        self.sleep = sleep
        self.order_expiry_s = order_expiry_s
        self.poll_s = poll_s
        self.settle_retry_s = settle_retry_s
        self.guard = guard
        self.ocos: list[Oco] = []
        self._quitting = False  # withdrawals and settling give up soon: xtui is ending
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._wake: dict[int, asyncio.Event] = {}

    @property
    def active(self) -> list[Oco]:
        return [o for o in self.ocos if o.active]

    def start(self, take_profit: OrderPlan, stop: OrderPlan) -> Oco:
        """Place ``take_profit`` (a reduce-only limit) and ``stop`` (a reduce-only stop) of one size, and link them."""
        legs = (Leg("take-profit", "t", take_profit), Leg("stop", "s", stop))
        oco = Oco(len(self.ocos) + 1, take_profit.symbol, take_profit.size, legs)
        self.ocos.append(oco)
        self._wake[oco.id] = asyncio.Event()
        self._tasks[oco.id] = asyncio.get_running_loop().create_task(self._run(oco))
        self.on_change(oco, f"started: OCO {take_profit.side.upper()} {fmt_decimal(oco.size)} {oco.symbol}")
        return oco

    def cancel(self, oco: Oco) -> None:
        """Unlink and withdraw both legs."""
        if oco.active:
            oco.state = "stopped"
            oco.reason = "cancelled"
            self._wake[oco.id].set()
            self.on_change(oco, "cancelled: withdrawing both orders")

    async def stop_all(self) -> list[str]:
        """xtui is quitting: every pair is unlinked, its orders left on the exchange; what rests, in words."""
        self._quitting = True
        for oco in self.active:
            oco.state = "left"
            oco.reason = "xtui quit: both orders stay on the exchange, no longer linked"
            self._wake[oco.id].set()
            self.on_change(oco, oco.reason)
        for task in list(self._tasks.values()):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return self.resting()

    def resting(self, *, running_too: bool = False) -> list[str]:
        """Each order of a pair no longer watched (or of any pair: ``running_too``) that may still rest, in words."""
        return [
            f"OCO {o.id} {o.symbol}: {leg.describe()} ({leg.cloid}) stays on the exchange, not linked"
            for o in self.ocos
            if running_too or not o.active
            for leg in o.legs
            if leg.cloid
        ]

    # ---- the loop -------------------------------------------------------------------------------

    async def _run(self, oco: Oco) -> None:
        tp, sl = oco.legs
        if not await self._place(oco, tp, oco.size) or not await self._place(oco, sl, oco.size):
            for leg in oco.legs:
                if leg.cloid and await self._withdraw(oco, leg) is not None:
                    self.on_change(oco, f"the {leg.name} was withdrawn: nothing of this OCO rests")
            return
        self.on_change(oco, f"both orders rest: {oco.progress()}")
        while oco.active:
            if not await self._wait(oco, self.poll_s):
                break
            if not await self._look(oco):
                continue
            left = oco.size - oco.filled
            closed = next((leg for leg in oco.legs if not leg.open), None)
            if closed is not None:
                await self._end_pair(oco, closed, left)
                return
            for leg in oco.legs:
                if leg.plan.size - leg.filled > left and oco.active:
                    await self._reduce(oco, leg, left)
        if oco.state == "stopped" and oco.reason == "cancelled":
            for leg in oco.legs:
                if leg.cloid:
                    await self._withdraw(oco, leg)
            self.on_change(oco, f"cancelled: {oco.progress()}")

    async def _end_pair(self, oco: Oco, closed: Leg, left: Decimal) -> None:
        other = oco.legs[1] if closed is oco.legs[0] else oco.legs[0]
        if not closed.total:
            oco.state, oco.reason = "left", f"the {closed.name} was cancelled outside xtui: the {other.name} stays"
            self.on_change(oco, f"{oco.reason} · {oco.progress()}")
            return
        if left > 0 and other.open and other.plan.size - other.filled > left:
            await self._reduce(oco, other, left)
        elif left <= 0:
            await self._withdraw(oco, other)
        oco.state = "done"
        rest = f"; the {other.name} stays for the {fmt_decimal(left)} left" if left > 0 and other.cloid else ""
        oco.reason = f"the {closed.name} filled {fmt_decimal(closed.total)}{rest}"
        self.on_change(oco, f"done: {oco.reason} · {oco.progress()}")

    async def _wait(self, oco: Oco, seconds: float) -> bool:
        event = self._wake[oco.id]
        event.clear()
        if oco.active:
            await sleep_unless_woken(event, self.sleep, seconds)
        return oco.active

    def _unsure(self, oco: Oco, said: str) -> None:
        if said != oco.unconfirmed:
            oco.unconfirmed = said
            self.on_change(oco, said)

    async def _place(self, oco: Oco, leg: Leg, size: Decimal) -> bool:
        """Place ``leg`` for ``size`` and settle it; whether it rests (False: refused, or stopped)."""
        leg.placed += 1
        cloid = f"oc{oco.id}x{int(time.time()) % 10**8}-{leg.tag}{leg.placed}"
        plan = msgspec.structs.replace(leg.plan, size=size, cloid=cloid)
        if self.guard is not None and (why := self.guard([plan])) is not None:
            self._stop(oco, f"the {leg.name} refused by this profile's guard: {why}")
            return False
        expires = self.client.server_clock.now_ms() + int(self.order_expiry_s * 1000)
        fields = {"orders": [plan.to_wire()], "brokerConfig": None, "expiresAfter": expires}
        try:
            await self.client.act("placeOrder", fields)
        except (ActionRejected, AccountMismatch) as exc:
            self._stop(oco, f"the {leg.name} refused: {exc}")
            return False
        except ClientError as exc:
            self._unsure(oco, f"the {leg.name} unconfirmed: waiting for the exchange ({exc})")
            while True:
                try:
                    settled = await settle_order(self.client, self.account, cloid, expires_ms=expires)
                except Unsettled as why:
                    self._unsure(oco, f"the {leg.name} unconfirmed: waiting for the exchange ({why.reason})")
                    if self._quitting:  # reported as what may rest
                        leg.plan, leg.cloid, leg.expires_ms = plan, cloid, expires
                        return False
                    await self.sleep(self.settle_retry_s)
                    continue
                break
            oco.unconfirmed = ""
            if not settled.found:
                self._stop(
                    oco, f"the {leg.name} was not placed (its answer was lost, and the record has no such order)"
                )
                return False
            self.on_change(oco, f"the {leg.name} read from the exchange's record: {settled.state}")
        leg.plan, leg.cloid, leg.expires_ms, leg.filled, leg.open = plan, cloid, expires, Decimal(0), True
        return True

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
                self._stop(oco, f"the exchange has no record of the {leg.name} now: both are unlinked")
                return False
            if settled.filled != leg.filled:
                self.on_change(oco, f"the {leg.name} filled {fmt_decimal(settled.filled)}")
            leg.filled, leg.open = settled.filled, settled.open
        return True

    async def _reduce(self, oco: Oco, leg: Leg, size: Decimal) -> None:
        """Replace ``leg`` with one of ``size``: the new order first, then the old withdrawn and its fills kept."""
        old_cloid, old_expires, old_filled = leg.cloid, leg.expires_ms, leg.filled
        self.on_change(oco, f"reducing the {leg.name} to {fmt_decimal(size)}")
        before_plan = leg.plan
        if not await self._place(oco, leg, size):
            leg.plan, leg.cloid, leg.expires_ms, leg.filled, leg.open = (
                before_plan,
                old_cloid,
                old_expires,
                old_filled,
                True,
            )
            return
        new = (leg.cloid, leg.expires_ms, leg.plan)
        leg.cloid, leg.expires_ms = old_cloid, old_expires
        settled = await self._withdraw(oco, leg)
        leg.before += settled.filled if settled is not None else old_filled
        leg.cloid, leg.expires_ms, leg.plan = new
        leg.filled, leg.open = Decimal(0), True
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
