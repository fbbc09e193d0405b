"""The guards a profile sets on its orders, decided without Textual: a hard maximum notional per order, a daily
loss limit after which only orders that reduce risk go, and how close to its liquidation price a position may come
before the trader is warned. Also the question no mode skips: an order that reverses a position.

The dashboard's order desk asks ``refusal`` before every order it sends (the order form, a close, a bracket, a
scale, an amend, each TWAP slice); a refusal is final: it is said, never asked. The day's PnL (``DayPnl``) is the
account's ``total_pnl`` (realized + unrealized + funding - fees) now, less what it was at 00:00 UTC: read from the
account's history when it goes back that far, else the first figure seen that day.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal

import msgspec

from tui.feed.state import FeedState

from .orders import OrderPlan, fmt_decimal

__all__ = [
    "DAY_MS",
    "DayPnl",
    "Guards",
    "LiquidationWatch",
    "OrderGuard",
    "day_baseline",
    "liquidation_distance_pct",
    "reduces_risk",
    "refusal",
    "reversal",
]

DAY_MS = 86_400_000


class Guards(msgspec.Struct, frozen=True):
    """A profile's guards; None: that guard is off."""

    max_order_notional: Decimal | None = None  # USDC: an order worth more is refused
    daily_loss_limit: Decimal | None = None  # USDC: past this loss since 00:00 UTC, only risk-reducing orders go
    liquidation_warn_pct: Decimal | None = None  # warn when the mark is within this % of the liquidation price

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.max_order_notional, self.daily_loss_limit, self.liquidation_warn_pct))


def _money(value: Decimal) -> str:
    return f"{value:,.2f}"


def reduces_risk(plans: Sequence[OrderPlan], positions: Mapping[str, Decimal]) -> bool:
    """Whether every order of ``plans`` only makes a position smaller: reduce-only, or against the position's side
    and, with the others of its instrument, no larger than the position."""
    against: dict[str, Decimal] = {}
    for plan in plans:
        if plan.reduce_only:
            continue
        held = positions.get(plan.symbol, Decimal(0))
        if not held or (plan.side == "buy") == (held > 0):
            return False
        against[plan.symbol] = against.get(plan.symbol, Decimal(0)) + plan.size
        if against[plan.symbol] > abs(held):
            return False
    return True


def refusal(
    plans: Sequence[OrderPlan],
    guards: Guards,
    positions: Mapping[str, Decimal],
    day_pnl: Decimal | None,
) -> str | None:
    """Why a profile's guards refuse ``plans`` (sent together), in words naming the limit; None: they may go."""
    cap = guards.max_order_notional
    if cap is not None:
        for plan in plans:
            protective = plan.reduce_only and plan.kind in ("take_profit", "stop_loss")  # never blocks a stop
            if plan.notional > cap and not protective:
                return (
                    f"order value {_money(plan.notional)} USDC is above this profile's max_order_notional "
                    f"{fmt_decimal(cap)} USDC ({plan.describe()})"
                )
    limit = guards.daily_loss_limit
    if limit is not None and day_pnl is not None and day_pnl <= -limit and not reduces_risk(plans, positions):
        return (
            f"daily loss limit reached: PnL since 00:00 UTC is {_money(day_pnl)} USDC, a loss of at least this "
            f"profile's daily_loss_limit {fmt_decimal(limit)} USDC; only orders that reduce a position go until "
            "00:00 UTC"
        )
    return None


def reversal(plans: Iterable[OrderPlan], positions: Mapping[str, Decimal]) -> str | None:
    """The words of the question before orders that would take a position through zero to the other side (asked
    in every mode); None when none would."""
    moved: dict[str, Decimal] = {}
    for plan in plans:
        if plan.reduce_only:
            continue
        moved[plan.symbol] = moved.get(plan.symbol, Decimal(0)) + (plan.size if plan.side == "buy" else -plan.size)
    for symbol, change in moved.items():
        held = positions.get(symbol, Decimal(0))
        after = held + change
        if held and after and (after > 0) != (held > 0):
            was, now = ("long", "short") if held > 0 else ("short", "long")
            return (
                f"REVERSES the {symbol} position: {was} {fmt_decimal(abs(held))} becomes {now} "
                f"{fmt_decimal(abs(after))}"
            )
    return None


# ---- the day's PnL ---------------------------------------------------------------------------------


def day_baseline(points: Iterable[tuple[int, Decimal]], day_start_ms: int) -> Decimal | None:
    """The account's total PnL at ``day_start_ms``: that of its last (time ms, total PnL) point at or before it;
    None when the history does not go back that far."""
    before = [(at, pnl) for at, pnl in points if at <= day_start_ms]
    return max(before)[1] if before else None


class DayPnl:
    """The account's PnL since 00:00 UTC: its total PnL now less its total PnL when the day began."""

    def __init__(self) -> None:
        self._day: int | None = None
        self._base: Decimal | None = None
        self.from_history = False  # the baseline is the history's figure at 00:00, not the first one seen

    def seed(self, baseline: Decimal, now_ms: int) -> None:
        """The total PnL at the start of ``now_ms``'s UTC day, from the account's history."""
        self._day, self._base, self.from_history = now_ms // DAY_MS, baseline, True

    def observe(self, total_pnl: Decimal | None, now_ms: int) -> Decimal | None:
        """The day's PnL with ``total_pnl`` the account's now; None while the account is not known."""
        if total_pnl is None:
            return None
        day = now_ms // DAY_MS
        if day != self._day or self._base is None:  # a new UTC day (or the first figure): it starts from here
            self._day, self._base, self.from_history = day, total_pnl, False
        return total_pnl - self._base


# ---- liquidation distance --------------------------------------------------------------------------


def liquidation_distance_pct(mark: Decimal | None, liquidation: Decimal | None) -> Decimal | None:
    """How far the mark is from the liquidation price, in % of the mark; None without both."""
    if mark is None or not mark or liquidation is None or liquidation <= 0:
        return None
    return abs(mark - liquidation) / mark * 100


class LiquidationWatch:
    """Each position is warned of once as it comes within the profile's distance of its liquidation price, and
    again only after it has gone back beyond it."""

    def __init__(self, warn_pct: Decimal) -> None:
        self.warn_pct = warn_pct
        self._near: set[str] = set()

    def check(self, distances: Mapping[str, Decimal | None]) -> list[tuple[str, Decimal]]:
        """(symbol, distance %) of the positions newly within the distance, from each open position's distance."""
        fresh = []
        for symbol, distance in distances.items():
            if distance is None:
                continue
            if distance <= self.warn_pct:
                if symbol not in self._near:
                    self._near.add(symbol)
                    fresh.append((symbol, distance))
            else:
                self._near.discard(symbol)
        self._near &= set(distances)  # a position closed: warned afresh if it comes back
        return fresh


class OrderGuard:
    """A session's guards against its account as the feed shows it: the one every order path asks (the desk's
    forms and the TWAP runner's slices), so they share one day's PnL."""

    def __init__(self, guards: Guards, state: FeedState, now_ms: Callable[[], int]) -> None:
        self.guards = guards
        self.state = state
        self.now_ms = now_ms
        self.day = DayPnl()

    def positions(self) -> dict[str, Decimal]:
        """Each instrument's signed position size, as last seen."""
        return {p.instrument: p.size for p in self.state.account.positions if p.size}

    def day_pnl(self) -> Decimal | None:
        """The account's PnL since 00:00 UTC; None while its summary is not known."""
        summary = self.state.account.summary
        return self.day.observe(summary.total_pnl if summary is not None else None, self.now_ms())

    def loss_limit_reached(self) -> bool:
        """Whether only orders that reduce risk go until the next UTC day."""
        limit, pnl = self.guards.daily_loss_limit, self.day_pnl() if self.guards.daily_loss_limit else None
        return limit is not None and pnl is not None and pnl <= -limit

    def refusal(self, plans: Sequence[OrderPlan]) -> str | None:
        """Why the guards refuse ``plans`` (sent together); None when they may go."""
        if not self.guards.any:
            return None
        return refusal(plans, self.guards, self.positions(), self.day_pnl())

    def seed(self, points: Iterable[tuple[int, Decimal]]) -> bool:
        """The day's baseline from the account's history ((time ms, total PnL) points); False when it does not
        go back to 00:00 UTC (the first figure seen today stays the baseline)."""
        now = self.now_ms()
        base = day_baseline(points, now // DAY_MS * DAY_MS)
        if base is not None:
            self.day.seed(base, now)
        return base is not None
