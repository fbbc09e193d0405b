"""Reverse the selected position: one IOC market order of twice its size the other way (``tui.trading.reverse``),
always asked first, armed or not; the outcome settled by its cloid and the position read back after it."""

from __future__ import annotations

from decimal import Decimal

from tui.api.errors import ClientError
from tui.api.models import Order, Position
from tui.trading import OrderPlan, market_estimate
from tui.trading.outcomes import OutcomeUnknown, describe_order
from tui.trading.protection import protection_lines, protection_now
from tui.trading.reverse import reverse_outcome, reverse_plan, side_words
from tui.trading.settle import settle_within, with_cloids

from .base import DeskActions

READ_LIMIT_S = 10.0  # how long the order's record is asked for its filled size after the exchange accepted it


def unconfirmed(symbol: str, why: str, after: Decimal | None) -> OutcomeUnknown:
    """An accepted reverse whose fill the record does not tell: said as unknown, the trader sent to look."""
    now = "unknown" if after is None else side_words(after)
    return OutcomeUnknown(
        f"{symbol} reverse unconfirmed: the exchange accepted it, but {why}; the position is {now}: see Positions"
        " and Fills before doing anything again; nothing is sent again"
    )


class Reversal(DeskActions):
    """The reverse key of the positions pane."""

    def reverse(self, position: Position | None) -> None:
        if not self.acting_on(position, "reverse", "No position selected."):
            return
        symbol = position.instrument
        ctx = self.desk.context(symbol)
        if ctx is None:
            return
        plan, why = reverse_plan(ctx)
        if plan is None:
            self.port.notify(f"Reverse not sent: {why}", severity="warning", markup=False)
            return
        if self.desk.guarded([plan]):
            return
        before = ctx.position
        orders = [o for o in self.desk.state.account.open_orders if o.instrument == symbol]
        model = protection_now(self.desk.state)
        exits = [o for o in orders if model.role(o) in ("TP", "SL", "stale")]
        lines = [
            plan.describe(),
            *self.desk.questions([plan], ctx),  # the reversal's own question is always among them
            *filter(None, [market_estimate(plan, ctx), self.desk.liquidation_line(plan, ctx)]),
            "One IOC order: what the book gives within the bound fills, the rest is cancelled; the position after it"
            " is read back and said.",
        ]
        if not exits:
            self.desk.ask(
                f"Reverse the {symbol} position?", lines, lambda: self._send(plan, before, []), yes="Reverse (y)"
            )
            return
        old, new = ("long", "short") if before > 0 else ("short", "long")
        lines += [
            f"The {old}'s {len(exits)} reduce-only order(s) cannot protect the {new}: they can only reduce a {old}.",
            *protection_lines(model, exits),
            *[f"  {o.instrument} stale: {describe_order(o)}" for o in exits if model.role(o) == "stale"][:4],
            f"y: reverse, then cancel them once the position is no longer {old} (kept while it is). k: reverse, keep"
            " them.",
        ]
        self.desk.ask(
            f"Reverse the {symbol} position?",
            lines,
            lambda: self._send(plan, before, exits),
            yes="Reverse (y)",
            also=("k", "Reverse, keep them (k)", lambda: self._send(plan, before, [])),
        )

    def _send(self, plan: OrderPlan, before: Decimal, exits: list[Order]) -> None:
        if self.desk.guarded([plan]):  # asked again as it goes: the account may have moved while the question stood
            return
        [plan] = with_cloids([plan], "rv")
        client = self.desk.client
        account = client.acting_for or self.desk.state.account.address or ""

        async def call() -> str:
            placed = await self.desk.place_settled([plan], "rv")
            record = placed.orders[0] if placed.orders else None
            unread: list[str] = []  # why the accepted order's record could not be read, each time
            if placed.response is not None:  # accepted: its fill is read from the record by its cloid
                record = await settle_within(
                    client, account, plan.cloid, expires_ms=placed.expires_ms, limit_s=READ_LIMIT_S,
                    on_wait=unread.append,
                )  # fmt: skip
            after = await self._position(account, plan.symbol)
            if record is None:  # accepted, but what it filled is not known: never said done, nor sent again
                why = unread[-1] if unread else "no answer"
                raise unconfirmed(plan.symbol, f"its fill could not be read ({why})", after)
            if not record.found:  # accepted, yet the record has none: the exchange lost it (a restart)
                raise unconfirmed(plan.symbol, "its record has no such order now (restarted?)", after)
            said = reverse_outcome(plan.symbol, before, plan.size, record.filled, after)
            return f"{said}; {await self._retire(exits, before, after)}" if exits else said

        self.desk.run("Reverse", call)

    async def _retire(self, exits: list[Order], before: Decimal, after: Decimal | None) -> str:
        """Cancel the old side's reduce-only orders once the position read back is on the other side; what became
        of them, in words."""
        old = "long" if before > 0 else "short"
        if after is None or (after and (after > 0) == (before > 0)):
            state = "unknown" if after is None else f"still {old}"
            return f"the {old}'s {len(exits)} reduce-only order(s) stay (the position is {state}): see Open orders"
        try:
            resp = await self.desk.client.cancel_by_oid([(o.order_id, o.instrument_id) for o in exits])
        except ClientError as exc:
            return (
                f"the {old}'s {len(exits)} reduce-only order(s) may still rest ({exc}): they protect nothing now,"
                " see Open orders"
            )
        self.desk.cancel_answered(resp, [o.order_id for o in exits])
        return f"the {old}'s {len(exits)} reduce-only order(s) cancelled: no TP/SL protects the new position yet (a)"

    async def _position(self, account: str, symbol: str) -> Decimal | None:
        """The signed size held on ``symbol`` as the exchange says now (0 when flat); None when it cannot be read."""
        try:
            held = await self.desk.client.positions(account)
        except ClientError:
            return None
        return sum((p.size for p in held if p.instrument == symbol), Decimal(0))
