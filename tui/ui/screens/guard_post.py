"""The dashboard's side of the profile's guards: armed mode (its key, its banner), the daily loss limit in the
header, the liquidation-distance warning (a bell and an account event), and the day's PnL baseline read from the
account's history. What the guards decide is ``tui.trading.guards``; the desk applies them to every order."""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

from textual.screen import Screen

from tui.api.errors import ClientError
from tui.api.models import to_datetime
from tui.feed.events import AccountEvent
from tui.trading import fmt_decimal
from tui.trading.desk import TradingDesk
from tui.trading.guards import LiquidationWatch, liquidation_distance_pct
from tui.ui.widgets.armed_banner import ArmedBanner
from tui.ui.widgets.display import fmt_price
from tui.ui.widgets.positions import position_view

__all__ = ["GuardPost"]

log = logging.getLogger(__name__)


class GuardPost:
    """Armed mode and the guards' warnings on ``screen``; the desk holds the guard and whether it is armed."""

    def __init__(self, screen: Screen[Any], desk: TradingDesk) -> None:
        self.screen = screen
        self.desk = desk
        warn = desk.guard.guards.liquidation_warn_pct
        self.watch = LiquidationWatch(warn) if warn is not None else None

    @property
    def armed(self) -> bool:
        return self.desk.armed

    def toggle_armed(self) -> None:
        """Arm or disarm: armed, order confirmations are skipped; the guards and the questions before removing a
        protection, reversing a position or PANIC are not."""
        desk = self.desk
        desk.armed = not desk.armed
        self.screen.query_one(ArmedBanner).arm(desk.armed)
        if desk.armed:
            self.screen.notify(
                "ARMED: orders are sent without a confirmation. The guards still hold; a protective cancel, a "
                "reversal and PANIC still ask. ! again disarms.",
                title="Armed",
                severity="error",
                timeout=6,
                markup=False,
            )
        else:
            self.screen.notify("Disarmed: orders are confirmed again when they need it.", title="Disarmed", timeout=4)
        log.warning("armed mode %s", "on" if desk.armed else "off")

    def check_liquidations(self) -> bool:
        """Note an account event for each position that has just come within the warning distance of its
        liquidation price; True when one did (the screen announces it, with the bell)."""
        if self.watch is None:
            return False
        state = self.desk.state
        distances: dict[str, Decimal | None] = {}
        views = {}
        for p in state.account.positions:
            if not p.size:
                continue
            ticker = state.market.tickers.get(p.instrument)
            view = position_view(p, ticker.mark_price if ticker else None, state.account.summary)
            views[p.instrument] = view
            distances[p.instrument] = liquidation_distance_pct(view.mark, view.liquidation.price)
        fresh = self.watch.check(distances)
        for symbol, distance in fresh:
            view = views[symbol]
            info = state.market.instruments.get(symbol)
            tick = info.tick_size if info is not None else None  # the liquidation price is worked out: at the tick
            event = AccountEvent(
                "liquidation",
                symbol,
                "Liquidation warning",
                (
                    f"{symbol} mark {fmt_price(view.mark, tick)} is {distance:.2f}% from its liquidation price "
                    f"{fmt_price(view.liquidation.price, tick)}",
                    f"within this profile's liquidation_warn_pct {fmt_decimal(self.watch.warn_pct)}%",
                ),
                int(self.desk.guard.now_ms()),
            )
            state.account.events.note(event)
            log.warning("liquidation warning: %s", event.text)
        return bool(fresh)

    async def seed_day(self) -> None:
        """The day's PnL baseline from the account's history, when the daily loss limit is on."""
        guard = self.desk.guard
        account = self.desk.state.account.address
        if guard.guards.daily_loss_limit is None or account is None:
            return
        try:
            points = await self.desk.client.account_history(account)
        except ClientError as exc:
            log.warning("daily loss limit: no account history (%s); the first figure seen today is the baseline", exc)
            return
        seeded = guard.seed((int(to_datetime(p.created_at).timestamp() * 1000), p.total_pnl) for p in points)
        log.info("daily loss limit: the baseline is %s", "the history's at 00:00 UTC" if seeded else "the first seen")
