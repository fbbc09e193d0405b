"""PANIC: after a confirmation (default No), stop the trailing stops (so none moves its stop back in), cancel every
order and close every position at market, reporting each result."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from msgspec.structs import replace

from tui.api.errors import ClientError
from tui.api.models import Position
from tui.trading import (
    close_position_plan,
)
from tui.trading.desk import TradingDesk
from tui.trading.outcomes import placed_oid, why_failed
from tui.trading.trailing import TrailRunner
from tui.ui.widgets.display import short_address

from .base import DeskActions, ScreenPort

log = logging.getLogger(__name__)
TRAILS_STOP_S = 5.0  # how long the trailing stops may take to settle a move under way before PANIC goes on


class Panic(DeskActions):
    """Cancel everything and close every position, each result reported."""

    def __init__(self, desk: TradingDesk, port: ScreenPort, trails: TrailRunner | None = None) -> None:
        super().__init__(desk, port)
        self.trails = trails  # stopped first, so that none moves its stop back in after the cancel

    def panic(self) -> None:
        """Ask (default No), then cancel every order and close every position, reporting each result."""
        if self.desk.refuse("panic"):
            return
        orders = len(self.desk.state.account.open_orders)
        positions = [p for p in self.desk.state.account.positions if p.size]
        lines = [f"{orders} open order(s) will be cancelled, on every instrument, the protective ones too"
                 " (TP/SL, trailing stops, OCO legs): PANIC flattens, it keeps nothing."]  # fmt: skip
        lines.append(f"{len(positions)} position(s) will be closed with reduce-only market orders:")
        lines += [f"  {p.instrument} {'long' if p.size > 0 else 'short'} {abs(p.size)}" for p in positions]
        lines.append("Market orders fill against the book, with slippage. Enter or n: do nothing.")

        def start() -> None:
            self.port.run(self._panic(orders), name="PANIC", group="submit")

        self.desk.ask("PANIC: cancel every order and close every position?", lines, start, yes="PANIC (y)")

    def _report(self, message: str, *, error: bool = False) -> None:
        log.log(logging.ERROR if error else logging.WARNING, "panic: %s", message.replace("\n", " "))
        self.port.notify(
            message, title="PANIC", severity="error" if error else "warning", timeout=15 if error else 8, markup=False
        )

    async def _panic(self, shown_orders: int) -> None:
        with self.desk.submitting():
            failures = 0
            if self.trails is not None and self.trails.active:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(TRAILS_STOP_S):
                        await self.trails.stop_all("PANIC")
            try:
                held = [o.order_id for o in self.desk.state.account.open_orders]
                resp = await self.desk.client.cancel_all()
                self.desk.cancelled(held)
                self._report(f"cancelled every open order ({shown_orders} shown) · tx {short_address(resp.tx_hash)}")
            except ClientError as exc:
                failures += 1
                self._report(f"cancel all failed: {why_failed(exc)}", error=True)
            positions = await self._open_positions()
            closed = 0
            for position in positions:
                closed += await self._close_now(position)
            failures += len(positions) - closed
            summary = f"{closed} of {len(positions)} position(s) closed"
            summary = f"done with {failures} failure(s) (see above): {summary}" if failures else f"done: {summary}"
            self._report(summary, error=bool(failures))
        await self.desk.refresh()

    async def _open_positions(self) -> list[Position]:
        """The account's positions now (asked of the exchange), or as last seen when it cannot answer."""
        account = self.desk.state.account.address
        if account is not None:
            try:
                return [p for p in await self.desk.client.positions(account) if p.size]
            except ClientError as exc:
                self._report(f"could not read the positions ({why_failed(exc)}): closing those last seen", error=True)
        return [p for p in self.desk.state.account.positions if p.size]

    async def _close_now(self, position: Position) -> bool:
        ctx = self.desk.context(position.instrument)
        plan = close_position_plan(replace(ctx, position=position.size)) if ctx is not None else None
        if plan is None:
            self._report(f"{position.instrument}: no instrument data to close it with", error=True)
            return False
        try:
            placed = await self.desk.place_settled([plan], "pa")
            if placed.response is None:  # its answer was lost: the exchange's record says what it did
                self._report(f"{plan.describe()}: {placed.words()}")
                return any(o is not None and o.found for o in placed.orders)
            resp = placed.response
            oid = placed_oid(resp)
        except ClientError as exc:
            self._report(f"{plan.describe()}: {why_failed(exc)}", error=True)
            return False
        self._report(f"{plan.describe()}\noid {oid} · tx {short_address(resp.tx_hash)}")
        return True
