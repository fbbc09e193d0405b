"""Account events: what happened to the account that the trader must hear of, each exactly once.

Fills, trigger orders firing, orders the exchange ended (cancelled, expired, the unfilled rest of an IOC),
liquidations and funding payments become typed ``AccountEvent``s: a kind, the instrument, the words of the
notice and the figures as ``Decimal``. The ``EventLog`` keeps the recent ones (bounded) and remembers what it
has met, by fill (trade id, order id, side), by order id and state and by funding time, so a record met twice
(a poll and a push of one fill, a subscription's first picture after a reconnect) is announced once. What is
met before the account's first load is history: known, never announced.

``notices`` turns the events that arrived together into the few lines the dashboard shows: the fills of one
order become one line ("5 fills on BTC-PERP: bought 0.0500 at avg 100,123.4"), as do several orders ended at
once. The log itself (``book``, ``tui.feed.event_entries``) also holds what the dashboard saw (``add``: alerts,
TWAP steps, refusals, liquidation warnings, the connection lost and back), fills one entry per order. Nothing
here imports Textual.
"""

from __future__ import annotations

import collections
import re
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from decimal import Decimal
from typing import Literal, Protocol

import msgspec

from tui.api.decimals import decimal_places
from tui.api.models import Fill, FundingRecord, Order, WsFill, WsOrder, to_datetime

from .event_entries import EntryBook, LogEntry

__all__ = [
    "DEFAULT_BELL",
    "EVENTS_KEPT",
    "EVENT_KINDS",
    "AccountEvent",
    "EventKind",
    "EventLog",
    "LogEntry",
    "Notice",
    "OrderStatus",
    "notices",
]

EventKind = Literal["fill", "trigger", "cancel", "liquidation", "funding"]
EVENT_KINDS: tuple[EventKind, ...] = ("fill", "trigger", "cancel", "liquidation", "funding")
DEFAULT_BELL: frozenset[str] = frozenset({"fill", "trigger", "liquidation"})
EVENTS_KEPT = 200
MONEY_PLACES = 2  # USDC in the log as in the balances: cents
SEEN_KEPT = 5_000  # records remembered as met; far more than a poll returns, so an old one is never news
LIQUIDATION_FILL = 1  # ``fill_type`` of a liquidation's fills
OWN_CANCEL_GRACE_S = 3.0  # after the dashboard's own cancel ends, its pushes may still be on the way
_ZERO = Decimal(0)
_ENDED = frozenset({"filled", "cancelled", "canceled", "expired", "rejected"})
_IOC = frozenset({"IOC", "FOK"})
REST = "Unfilled rest cancelled"  # the title of an IOC/FOK order's unfilled rest, cancelled as it is placed
# A trailing stop's cloid (``tui.trading.trailing``): the trail cancels its old stop at each move and resize and
# enters that in the log itself ("moved to ...", "resized ..."), so the exchange's word of the cancel is not news.
TRAIL_CLOID = re.compile(r"tr\d+x\d+-\d+")

Severity = Literal["information", "warning", "error"]
OrderStatus = tuple[str, Decimal]  # (state, unfilled size): ("open", 0.006), ("filled", 0)


class Steps(Protocol):
    """What figures are written to: an instrument's tick and lot (``state.InstrumentInfo``)."""

    @property
    def tick_size(self) -> Decimal: ...

    @property
    def lot_size(self) -> Decimal: ...


class AccountEvent(msgspec.Struct, frozen=True):
    """One thing that happened to the account. ``pieces`` are the notice's words, joined by `` · ``."""

    kind: EventKind
    instrument: str
    title: str
    pieces: tuple[str, ...]
    at_ms: int
    side: str = ""  # "b" / "s"; "" when it has none (funding)
    size: Decimal = _ZERO
    price: Decimal = _ZERO  # 0: at market
    fee: Decimal = _ZERO  # negative: a rebate
    amount: Decimal = _ZERO  # funding received (+) or paid (-); a liquidation's closed PnL
    maker: bool = False
    order_id: int = 0
    state: str = ""  # the order's state, for trigger and cancel events
    tick: Decimal | None = None  # the instrument's steps, to write sums of these figures alike
    lot: Decimal | None = None

    @property
    def text(self) -> str:
        return " · ".join(self.pieces)


class Notice(msgspec.Struct, frozen=True):
    """A line for the trader: ``kinds`` says which bells it may ring."""

    kinds: frozenset[str]
    title: str
    text: str
    severity: Severity
    timeout: float


# ---- words and figures ------------------------------------------------------------------------------


def _figure(value: Decimal, step: Decimal | None, default: int = 4) -> str:
    """A price or size to its step's places, with thousands separators: 100,123.4."""
    return f"{value:,.{decimal_places(step, default)}f}"


def _money(value: Decimal) -> str:
    """USDC in cents, as the balances are shown (``MONEY_PLACES``)."""
    return f"{value:,.{MONEY_PLACES}f}"


def _verb(side: str, past: bool = True) -> str:
    buy = side == "b"
    if past:
        return "bought" if buy else "sold"
    return "buy" if buy else "sell"


def _at_ms(value: int | str) -> int:
    try:
        return int(to_datetime(value).timestamp() * 1000)
    except (ValueError, OverflowError, OSError):
        return 0


def _steps(info: Steps | None) -> tuple[Decimal | None, Decimal | None]:
    return (info.tick_size, info.lot_size) if info is not None else (None, None)


def fill_event(f: Fill | WsFill, info: Steps | None) -> AccountEvent:
    """A fill, or one side of a liquidation (``fill_type`` 1), as an event."""
    tick, lot = _steps(info)
    size, price = _figure(f.size, lot), _figure(f.price, tick)
    at = _at_ms(f.block_timestamp)
    if f.fill_type == LIQUIDATION_FILL:
        held = "long" if f.side == "s" else "short"  # the liquidation sells a long, buys back a short
        return AccountEvent(
            "liquidation", f.instrument, "LIQUIDATED",
            (f"{f.instrument} {held} {size} closed at {price}", f"PnL {_money(f.closed_pnl)}"),
            at, f.side, f.size, f.price, f.fee, f.closed_pnl, False, f.order_id, "", tick, lot,
        )  # fmt: skip
    fee = f"fee {_money(f.fee)}" if f.fee >= 0 else f"rebate {_money(-f.fee)}"
    pieces = (f"{_verb(f.side).capitalize()} {size} {f.instrument} at {price}", "taker" if f.crossed else "maker", fee)
    return AccountEvent(
        "fill", f.instrument, "Fill", pieces, at, f.side, f.size, f.price, f.fee, _ZERO, not f.crossed, f.order_id,
        "", tick, lot,
    )  # fmt: skip


def _trigger_name(prev: Order | None) -> str:
    tpsl = prev.tpsl if prev is not None else ""
    return {"tp": "Take-profit", "sl": "Stop-loss"}.get(tpsl, "Stop")


WITH_POSITION = "it went with the position it guarded (closed)"


def order_event(o: WsOrder | Order, prev: Order | None, info: Steps | None) -> AccountEvent | None:
    """An order's new state as an event: triggered, or ended by the exchange; None for the others (placed,
    amended, filled: fills tell of those)."""
    tick, lot = _steps(info)
    price = "at market" if not o.limit_price else f"limit {_figure(o.limit_price, tick)}"
    what = f"{_verb(o.side, past=False)} {_figure(o.size, lot)} {o.instrument}"
    state = o.state.lower()
    if state == "triggered":
        pieces = [what, price]
        if prev is not None and prev.trigger_px:
            pieces.append(f"trigger {_figure(prev.trigger_px, tick)}")
        title = f"{_trigger_name(prev)} triggered"
    elif state in _ENDED and state != "filled":
        left = f"{_figure(o.unfilled, lot)} of {_figure(o.size, lot)} unfilled"
        if prev is None and o.tif.upper() in _IOC:  # it never rested: the rest of an IOC/FOK (or market) order
            title, pieces = REST, [what, price, left, o.tif.upper()]
        else:
            kind = f"{_trigger_name(prev).lower()} order" if prev is not None and prev.trigger_px else "order"
            title = f"{kind.capitalize()} {'cancelled' if state == 'canceled' else state}"
            pieces = [what, price]
            if o.unfilled != o.size:
                pieces.append(left)
            with_position = prev is not None and prev.grouping == "position" and state in ("canceled", "cancelled")
            pieces.append(WITH_POSITION if with_position else "not from this dashboard")
    else:
        return None
    at = o.timestamp if isinstance(o.timestamp, int) else _at_ms(o.timestamp)
    kind_of: EventKind = "trigger" if state == "triggered" else "cancel"
    return AccountEvent(
        kind_of, o.instrument, title, tuple(pieces), at, o.side, o.unfilled, o.limit_price, _ZERO, _ZERO, False,
        o.order_id, state, tick, lot,
    )  # fmt: skip


def funding_event(r: FundingRecord, instrument: str, info: Steps | None) -> AccountEvent:
    tick, lot = _steps(info)
    amount = r.funding_payment
    pieces = (
        f"{'received' if amount >= 0 else 'paid'} {_money(abs(amount))} USDC on {instrument}",
        f"rate {(r.funding_rate * 100).normalize():f}%",
        f"size {_figure(r.size, lot)}",
    )
    return AccountEvent(
        "funding", instrument, "Funding", pieces, _at_ms(r.timestamp), "", r.size, r.mark_price, _ZERO, amount,
        tick=tick, lot=lot,
    )  # fmt: skip


# ---- the log ----------------------------------------------------------------------------------------


class EventLog:
    """The account's recent events, oldest first, each met once; see the module docstring.

    ``count`` is how many events were ever announced: a reader remembers the count it has shown and asks
    ``since(shown)``. ``live`` turns true with ``history()`` (the account's first load): before it, every
    record is only remembered.
    """

    def __init__(self, kept: int = EVENTS_KEPT, wall_ms: Callable[[], int] | None = None) -> None:
        self.recent: collections.deque[AccountEvent] = collections.deque(maxlen=kept)
        self.book = EntryBook()  # the log screen's and the log file's entries, fills one per order
        self._wall_ms = wall_ms or (lambda: int(time.time() * 1000))
        self.count = 0
        self.live = False
        self._seen: collections.OrderedDict[Hashable, None] = collections.OrderedDict()
        self._fill_mark = -1  # the newest trade id of the first load: no fill at or below it is news
        self._own = 0  # the dashboard's own cancels in flight
        self._own_until = float("-inf")
        self.kept_by_xtui: Callable[[str], bool] = lambda cloid: False  # a cloid of xtui's runners (chase, OCO)

    def since(self, shown: int) -> list[AccountEvent]:
        """The events announced after the first ``shown`` (those still kept)."""
        new = min(self.count - shown, len(self.recent))
        return list(self.recent)[-new:] if new > 0 else []

    def _first(self, key: Hashable) -> bool:
        """Remember ``key``; True the first time it is met."""
        if key in self._seen:
            return False
        self._seen[key] = None
        if len(self._seen) > SEEN_KEPT:
            self._seen.popitem(last=False)
        return True

    def _add(self, event: AccountEvent) -> AccountEvent:
        self.count += 1
        self.recent.append(event)
        at = event.at_ms or self._wall_ms()
        if event.kind == "fill":
            sums = (event.instrument, event.side, event.tick, event.lot, MONEY_PLACES)
            self.book.fill(event.order_id, at, sums, (event.size, event.price, event.fee, event.maker))
        else:
            self.book.add(at, event.kind, f"{event.title}: {event.text}")
        return event

    def note(self, event: AccountEvent) -> AccountEvent:
        """An event the dashboard itself finds (a liquidation-distance warning): kept and announced as the rest."""
        return self._add(event)

    def history(self, fills: Iterable[Fill], orders: Iterable[Order]) -> None:
        """The account as first loaded: its fills and open orders are known, not news. From now on, live."""
        for f in fills:
            self._first(("fill", f.trade_id, f.order_id, f.side))
            self._fill_mark = max(self._fill_mark, f.trade_id)
        for o in orders:
            self._first(("order", o.order_id, o.state.lower()))
        self.live = True

    def fill(self, f: Fill | WsFill, info: Steps | None) -> AccountEvent | None:
        """A fill pushed or polled: its event the first time it is met, once live."""
        if not self._first(("fill", f.trade_id, f.order_id, f.side)) or not self.live or f.trade_id <= self._fill_mark:
            return None
        return self._add(fill_event(f, info))

    def order(self, o: WsOrder | Order, prev: Order | None, info: Steps | None, now: float) -> AccountEvent | None:
        """An order's state pushed or polled (``prev``: the open order held before): a trigger firing, or an
        order the exchange ended, the first time that state is met. The dashboard's own cancels are not news."""
        state = o.state.lower()
        if state != "triggered" and state not in _ENDED:
            return None  # placed or amended: the desk or the book tells of it
        if not self._first(("order", o.order_id, state)) or not self.live:
            return None
        event = order_event(o, prev, info)
        if event is None:
            return None
        if event.kind == "cancel" and event.title != REST and (self.own_cancelling(now) or self.by_xtui(o.cloid)):
            return None  # the desk told of it, or a runner of xtui withdrew its own order and says so itself
        return self._add(event)

    def funding(self, r: FundingRecord, instrument: str, info: Steps | None) -> AccountEvent | None:
        if not self._first(("funding", r.instrument_id, r.timestamp)) or not self.live:
            return None
        return self._add(funding_event(r, instrument, info))

    def add(self, kind: str, text: str, at_ms: int | None = None) -> LogEntry:
        """Enter what the dashboard itself saw (an alert, a TWAP step, a refusal, a liquidation warning, the
        connection lost or back) in the log, at ``at_ms`` or now. ``kind`` is one word (``event_entries.LOG_KINDS``:
        a liquidation warning is ``"warning"``). Only logged: notices are the caller's, and so is telling the
        header (the feed marks the ``events`` topic; the UI calls ``XtuiApp.log_event``, which does both)."""
        return self.book.add(self._wall_ms() if at_ms is None else at_ms, kind, text)

    def by_xtui(self, cloid: str) -> bool:
        """Whether an order is one of xtui's runners' (a chase's, an OCO's, a trailing stop's): its cancel is the
        runner's own doing, and the runner says it in the log ("trailing stop 1: moved to ...")."""
        return bool(cloid) and (TRAIL_CLOID.fullmatch(cloid) is not None or self.kept_by_xtui(cloid))

    def own_cancel(self, running: bool, now: float) -> None:
        """The dashboard's own cancel started (``running``) or ended: the cancels pushed meanwhile, and for a
        few seconds after, are the trader's doing."""
        if running:
            self._own += 1
        else:
            self._own = max(0, self._own - 1)
            self._own_until = now + OWN_CANCEL_GRACE_S

    def own_cancelling(self, now: float) -> bool:
        return self._own > 0 or now < self._own_until


# ---- notices ----------------------------------------------------------------------------------------

_SEVERITY: dict[str, tuple[Severity, float]] = {
    "fill": ("information", 8),
    "trigger": ("warning", 10),
    "cancel": ("warning", 10),
    "liquidation": ("error", 60),
    "funding": ("information", 6),
}


def _done(status: OrderStatus | None, lot: Decimal | None) -> str | None:
    """Whether an order is done, in words: "order filled", "0.0060 left"."""
    if status is None:
        return None
    state, unfilled = status
    if state in ("open", "triggered"):
        return f"{_figure(unfilled, lot)} left" if unfilled else "order filled"
    return "order filled" if state == "filled" else f"order {state}"


def _fills(group: Sequence[AccountEvent], status_of: Callable[[int], OrderStatus | None]) -> tuple[str, str]:
    """(title, text) of fills of one instrument and side."""
    first = group[0]
    orders = list(dict.fromkeys(e.order_id for e in group if e.order_id))
    if len(group) == 1:
        done = _done(status_of(first.order_id), first.lot) if first.order_id else None
        return first.title, " · ".join((*first.pieces, *([done] if done else [])))
    size = sum((e.size for e in group), _ZERO)
    avg = sum((e.size * e.price for e in group), _ZERO) / size if size else _ZERO
    fees = sum((e.fee for e in group), _ZERO)
    makers = sum(e.maker for e in group)
    pieces = [
        f"{len(group)} fills on {first.instrument}: {_verb(first.side)} {_figure(size, first.lot)} "
        f"at avg {_figure(avg, first.tick)}",
        "all maker" if makers == len(group) else "all taker" if not makers else f"{makers} maker",
        f"fees {_money(fees)}" if fees >= 0 else f"rebates {_money(-fees)}",
    ]
    if len(orders) == 1:
        done = _done(status_of(orders[0]), first.lot)
        pieces += [done] if done else []
    elif orders:
        ended = sum(1 for oid in orders if (s := status_of(oid)) is not None and s[0] not in ("open", "triggered"))
        pieces.append(f"{len(orders)} orders, {ended} done")
    return "Fills", " · ".join(pieces)


def _summary(kind: str, group: Sequence[AccountEvent]) -> tuple[str, str]:
    """(title, text) of several events of one kind (not fills) arriving together."""
    first = group[0]
    if kind == "funding":
        net = sum((e.amount for e in group), _ZERO)
        places = {e.instrument for e in group}
        way = "received" if net >= 0 else "paid"
        return "Funding", f"{way} {_money(abs(net))} USDC net on {len(places)} position(s): {', '.join(sorted(places))}"
    if kind == "liquidation":
        pnl = sum((e.amount for e in group), _ZERO)
        return first.title, f"{len(group)} liquidation fills on {first.instrument} · PnL {_money(pnl)}"
    if kind == "trigger":
        listed = "; ".join(e.pieces[0] for e in group[:3]) + ("; …" if len(group) > 3 else "")
        return "Triggers", f"{len(group)} trigger orders fired on {first.instrument}: {listed}"
    states = collections.Counter(e.state.replace("canceled", "cancelled") for e in group)
    told = ", ".join(f"{n} {state}" for state, n in states.items())
    if all(e.pieces[-1] == WITH_POSITION for e in group):  # a position's TP/SL: the exchange ends them as it closes
        return "Orders ended", f"{len(group)} TP/SL orders on {first.instrument} went with the closed position"
    return "Orders ended", f"{len(group)} orders on {first.instrument} ended, not from this dashboard: {told}"


def notices(
    events: Sequence[AccountEvent],
    status_of: Callable[[int], OrderStatus | None] = lambda _oid: None,
) -> list[Notice]:
    """The lines to show for ``events`` that arrived together, in the order they arrived: one per event,
    except that the fills of one order, and other events of one kind and instrument (funding: of
    any instrument), make one line each. ``status_of(order_id)`` says whether a filled order is done now."""
    groups: dict[tuple[str, ...], list[AccountEvent]] = {}
    for e in events:
        if e.kind == "fill":  # one line per order, its pieces summed (an order has one instrument and side)
            key: tuple[str, ...] = ("fill", e.instrument, e.side, str(e.order_id or id(e)))
        elif e.kind == "funding":
            key = ("funding",)
        elif e.kind == "cancel" and e.title == REST:
            key = ("rest", str(e.order_id))
        else:
            key = (e.kind, e.instrument)
        groups.setdefault(key, []).append(e)
    out = []
    for group in groups.values():
        kind = group[0].kind
        if kind == "fill":
            title, text = _fills(group, status_of)
        elif len(group) == 1:
            title, text = group[0].title, group[0].text
        else:
            title, text = _summary(kind, group)
        severity, timeout = _SEVERITY[kind]
        out.append(Notice(frozenset({kind}), title, text, severity, timeout))
    return out
