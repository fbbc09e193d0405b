"""Which resting orders protect which position, and how much of it: the one model that the positions pane's TP/SL
columns, the chart's lines, the reverse, close, cancel-all and quit questions and the event log read.

The interface links no TP/SL to its entry, so the rules are xtui's:

- An order **protects** a position when it is on the position's instrument, on the side that closes it, and can
  only reduce it: reduce-only, or a TP/SL the exchange marks (``tpsl`` "tp"/"sl") that is no larger than the
  position (the exchange fires a marked one sent without reduce-only uncapped: larger, it would open the other
  side). A plain order on the closing side is no protection: it may open the other side.
- It is a **take-profit** when it closes at a better price than the mark (a long's sell above it: a limit
  take-profit counts), a **stop-loss** when at a worse one; the exchange's own TP/SL mark wins where it is given.
  It covers its unfilled size, at most the position's.
- A TP/SL of a bracket (grouping "normal") waits for its entry. It is **pending** while xtui's bracket cloid links
  it to an entry that still rests with nothing filled (the orders of one placeOrder share ``<stem>-``); it is
  **pending?** while it carries no such cloid and an order that may be its entry (same instrument, the other side,
  not reduce-only, nothing filled) rests. Neither is counted as protection. Once its entry has filled in part, a leg is
  armed (the exchange's rule): it protects like any other TP/SL.
- A reduce-only order that cannot reduce what is held (the old long's sells after a reverse to short, or any on a
  flat instrument) protects nothing: **stale**. The exchange cancels it or lets it fire into nothing.
- A tool that keeps a position's protection (a trailing stop) may say it is **not covered** (a resize it could not
  make); that note is shown with the position until the tool says otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Literal

import msgspec

from tui.api.models import Order, Position
from tui.feed.state import FeedState

from .orders import fmt_decimal

__all__ = [
    "Cover",
    "Guarded",
    "Protection",
    "ProtectionWatch",
    "cloid_stem",
    "protection",
    "protection_lines",
    "protection_now",
    "protective_orders",
]

Role = Literal["tp", "sl"]
BRACKET = "normal"
_STEM = re.compile(r"([a-z]+\d+)-\d+")


def cloid_stem(cloid: str) -> str | None:
    """The part the orders of one of xtui's placeOrder actions share (``br1733..`` of ``br1733..-2``)."""
    match = _STEM.fullmatch(cloid)
    return match.group(1) if match else None


class Cover(msgspec.Struct, frozen=True):
    """The take-profits (or the stop-losses) of one position: the first to act, and how much they cover together."""

    price: Decimal  # the nearest to the mark: the first to fire or fill
    covered: Decimal  # the sizes of all of them added, at most the position's
    held: Decimal  # the position's size (unsigned)
    orders: tuple[int, ...]

    @property
    def whole(self) -> bool:
        return self.covered >= self.held

    def words(self, name: str) -> str:
        """'SL 99,000', or 'SL 99,000 covers 0.01 of 0.03'."""
        said = f"{name} {fmt_decimal(self.price)}"
        return said if self.whole else f"{said} covers {fmt_decimal(self.covered)} of {fmt_decimal(self.held)}"


class Guarded(msgspec.Struct, frozen=True):
    """A position and what rests for it."""

    instrument: str
    size: Decimal  # signed
    tp: Cover | None
    sl: Cover | None
    pending: tuple[tuple[Order, bool], ...] = ()  # bracket legs waiting for an entry; True: linked by xtui's cloid
    stale: tuple[Order, ...] = ()  # reduce-only orders on this instrument that cannot reduce this position
    uncovered: str = ""  # a tool's own words: what it could not keep covered

    @property
    def side(self) -> str:
        return "long" if self.size > 0 else "short"

    def words(self) -> str:
        """The position's protection in a line: 'TP 101,000 · SL 99,000', 'no stop-loss', 'SL … covers 0.01 of 0.03'."""
        parts = [c.words(n) for c, n in ((self.tp, "TP"), (self.sl, "SL")) if c is not None]
        if self.sl is None:
            parts.append("no stop-loss")
        if self.uncovered:
            parts.append(self.uncovered)
        return " · ".join(parts)


class Protection(msgspec.Struct, frozen=True):
    """Every position's protection, and the orders that protect nothing."""

    positions: Mapping[str, Guarded]
    pending: tuple[tuple[Order, bool], ...]  # bracket legs waiting for an entry, on every instrument
    stale: tuple[Order, ...]  # reduce-only orders that can reduce nothing held

    def of(self, instrument: str) -> Guarded | None:
        return self.positions.get(instrument)

    def role(self, order: Order) -> str:
        """What ``order`` is to the positions: "TP", "SL", "pending TP", "pending? SL", "stale" or ""."""
        guarded = self.positions.get(order.instrument)
        if guarded is not None:
            for cover, name in ((guarded.tp, "TP"), (guarded.sl, "SL")):
                if cover is not None and order.order_id in cover.orders:
                    return name
        for leg, linked in self.pending:
            if leg.order_id == order.order_id:
                return f"{'pending' if linked else 'pending?'} {leg.tpsl.upper() or 'exit'}"
        if any(o.order_id == order.order_id for o in self.stale):
            return "stale"
        return ""


def _closes(order: Order, size: Decimal) -> bool:
    return (order.side == "s") == (size > 0)


def _size(order: Order) -> Decimal:
    return order.unfilled or order.size


def _may_only_reduce(order: Order) -> bool:
    return order.reduce_only or order.tpsl in ("tp", "sl")


def _role(order: Order, size: Decimal, mark: Decimal | None, entry: Decimal) -> Role:
    if order.tpsl in ("tp", "sl"):
        return "tp" if order.tpsl == "tp" else "sl"
    at = order.trigger_px or order.limit_price
    ref = mark if mark is not None else entry
    better = at > ref if size > 0 else at < ref
    if not order.trigger_px:  # a limit that closes: a take-profit where it is better than the mark, else a close
        return "tp"
    return "tp" if better else "sl"


def _pending(order: Order, orders: Sequence[Order]) -> tuple[bool, bool]:
    """(is a leg waiting for an entry, linked by xtui's cloid)."""
    if order.grouping != BRACKET or order.tpsl not in ("tp", "sl"):
        return False, False
    stem = cloid_stem(order.cloid)
    entries = [
        o
        for o in orders
        if o.instrument == order.instrument
        and not _may_only_reduce(o)
        and o.side != order.side
        and (o.unfilled or o.size) == o.size  # a leg waits for its entry's first fill only
    ]
    if stem is not None:  # linked: its entry rests unfilled, or it has filled and the leg is armed
        return any(cloid_stem(o.cloid) == stem for o in entries), True
    return bool(entries), False


def _nearest(orders: list[Order], mark: Decimal | None, entry: Decimal) -> Decimal:
    ref = mark if mark is not None else entry
    return min((o.trigger_px or o.limit_price for o in orders), key=lambda px: abs(px - ref))


def _cover(orders: list[Order], held: Decimal, mark: Decimal | None, entry: Decimal) -> Cover | None:
    if not orders:
        return None
    covered = min(held, sum((o.unfilled or o.size for o in orders), Decimal(0)))
    return Cover(_nearest(orders, mark, entry), covered, held, tuple(o.order_id for o in orders))


def protection(
    positions: Iterable[Position],
    orders: Sequence[Order],
    marks: Mapping[str, Decimal | None],
    uncovered: Mapping[str, str] | None = None,
) -> Protection:
    """The model, from the exchange's positions and open orders, the marks, and the tools' ``uncovered`` words
    (instrument -> what a tool could not keep covered)."""
    held = {p.instrument: p for p in positions if p.size}
    pending: list[tuple[Order, bool]] = []
    stale: list[Order] = []
    mine: dict[str, dict[Role, list[Order]]] = {name: {"tp": [], "sl": []} for name in held}
    stale_of: dict[str, list[Order]] = {name: [] for name in held}
    pending_of: dict[str, list[tuple[Order, bool]]] = {name: [] for name in held}
    unbounded: dict[str, Decimal] = {}  # the marked TP/SL sent without reduce-only on each position's closing side
    for order in orders:
        p = held.get(order.instrument)
        if p is not None and not order.reduce_only and order.tpsl in ("tp", "sl") and _closes(order, p.size):
            unbounded[p.instrument] = unbounded.get(p.instrument, Decimal(0)) + _size(order)
    for order in orders:
        waits, linked = _pending(order, orders)
        if waits:
            pending.append((order, linked))
            if order.instrument in held:
                pending_of[order.instrument].append((order, linked))
            continue
        if not _may_only_reduce(order):
            continue
        p = held.get(order.instrument)
        if not order.reduce_only and (
            p is None or not _closes(order, p.size) or unbounded.get(p.instrument, 0) > abs(p.size)
        ):
            continue  # sent without reduce-only they fire uncapped: more than the position, they open the other side
        if p is None or not _closes(order, p.size):
            stale.append(order)
            if p is not None:
                stale_of[p.instrument].append(order)
            continue
        mine[p.instrument][_role(order, p.size, marks.get(p.instrument), p.entry_price)].append(order)
    said = uncovered or {}
    guarded = {
        name: Guarded(
            name,
            p.size,
            _cover(mine[name]["tp"], abs(p.size), marks.get(name), p.entry_price),
            _cover(mine[name]["sl"], abs(p.size), marks.get(name), p.entry_price),
            tuple(pending_of[name]),
            tuple(stale_of[name]),
            said.get(name, ""),
        )
        for name, p in held.items()
    }
    return Protection(guarded, tuple(pending), tuple(stale))


def protective_orders(model: Protection, orders: Iterable[Order]) -> list[tuple[Order, str]]:
    """The orders among ``orders`` that protect a position or wait to (a bracket's legs), each with its role."""
    return [(o, role) for o in orders if (role := model.role(o)) and role != "stale"]


def protection_now(state: FeedState, uncovered: Mapping[str, str] | None = None) -> Protection:
    """The model of the feed's account as it stands, at the tickers' marks."""
    marks = {name: t.mark_price for name, t in state.market.tickers.items()}
    return protection(state.account.positions, state.account.open_orders, marks, uncovered)


def protection_lines(model: Protection, orders: Sequence[Order], limit: int = 6) -> list[str]:
    """The protective orders among ``orders``, a line each for a question: 'BTC-PERP SL: SELL 0.01 stop 99,000'."""
    found = protective_orders(model, orders)
    lines = [f"  {o.instrument} {role}: {_order_words(o)}" for o, role in found[:limit]]
    return lines + ([f"  and {len(found) - limit} more"] if len(found) > limit else [])


def _order_words(o: Order) -> str:
    side = "BUY" if o.side == "b" else "SELL"
    at = f"stop {fmt_decimal(o.trigger_px)}" if o.trigger_px else f"limit {fmt_decimal(o.limit_price)}"
    return f"{side} {fmt_decimal(o.unfilled or o.size)} {at}"


class ProtectionWatch:
    """What changed in the protection of a position still held since the last look, for the event log: a stop-loss
    that no longer covers it all (it grew), one placed or gone, a tool that could not keep it covered, orders left
    protecting nothing. A position opened or closed is its fills' news; a move of a price is no change (a trailing
    stop says its own moves); the first look is history, never news."""

    def __init__(self) -> None:
        self._seen: dict[str, str] | None = None

    def changes(self, model: Protection) -> list[tuple[str, str, bool]]:
        """(instrument, what it is now in words, whether that is worse: less of it covered) for each change."""
        now = {name: _status(g) for name, g in model.positions.items()}
        before, self._seen = self._seen, now
        if before is None:
            return []
        out = []
        for name, status in now.items():
            if name in before and before[name] != status:  # a position newly held or closed: its fills say so
                g = model.positions[name]
                worse = _rank(status) < _rank(before[name])
                out.append((name, f"{name} {g.side} {fmt_decimal(abs(g.size))}: {g.words()}", worse))
        return out


def _status(g: Guarded) -> str:
    def cover(c: Cover | None) -> str:
        return "none" if c is None else "whole" if c.whole else "part"

    return f"tp {cover(g.tp)} sl {cover(g.sl)} uncovered {bool(g.uncovered)} stale {len(g.stale)}"


def _rank(status: str) -> int:
    """How protected: the stop-loss first (whole 2, part 1, none 0), then a tool that says it is not covered."""
    sl = status.split(" sl ")[1].split()[0]
    return {"whole": 4, "part": 2, "none": 0}[sl] + (0 if "uncovered True" in status else 1)
