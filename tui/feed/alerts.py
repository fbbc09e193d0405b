"""Price alerts: a price above or below a level, or a move of some percent within a window, on the last
trade, mark or index price of an instrument; kept on disk per profile, so they survive a restart.

An "above" or "below" alert fires once, when the price is at or past its level (at once if it already
is), and is then disarmed until the trader arms it again. A "move" alert fires when the price has moved
by at least its percentage from any price seen within its window, then starts its window afresh (so a
long slide fires once per further move, not on every tick).

The file is JSON, written whole and atomically (a temporary file, then a rename), read within limits: at most
1 MiB, nested at most 8 deep, each value checked (a level is a number above 0, at most 10^15 and 18 decimal
places; for a move, at most 100). A file that cannot be read is never overwritten: it is moved aside
(``alerts-NAME.json.bad-<time>``) and ``AlertBook.problem`` says where, for the dashboard to show. A file of more
than ``MAX_ALERTS`` alerts (checked on every price, so they are capped) is moved aside whole and the first
``MAX_ALERTS`` are loaded and written back: all of them are kept, and the trader is told.

An alert that fires is always returned, whatever happens to the file: when its new state (disarmed) cannot be
saved, it stays right in memory and ``AlertBook.not_saved`` says why, for the dashboard to say besides.
"""

from __future__ import annotations

import collections
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import msgspec
from msgspec.structs import asdict, replace

from tui.edges.bounded_parse import decimal_places
from tui.paths import profile_file

from .kept_files import KeptFile, KeptStore
from .watchlist import SYMBOL_RE

__all__ = ["CONDITIONS", "MAX_ALERTS", "SOURCES", "Alert", "AlertBook", "Fired", "alerts_path", "check_alert"]

Source = Literal["last", "mark", "index"]
Condition = Literal["above", "below", "move"]
SOURCES: tuple[Source, ...] = ("last", "mark", "index")
CONDITIONS: tuple[Condition, ...] = ("above", "below", "move")
MAX_WINDOW_S = 7 * 86_400
MAX_ALERTS = 500  # each is checked on every price update
MAX_FILE_BYTES = 1 << 20  # 500 alerts as xtui writes them take ~120 KB
MAX_LEVEL = Decimal(10) ** 15  # a price; a move's percentage is at most 100
MAX_PLACES = 18
MAX_ID = 10**9
_KEYS = frozenset(("id", "symbol", "source", "condition", "level", "window_s", "bell", "armed"))
SAMPLES = 600  # prices kept per move alert's window (one every window/600 seconds at most)


class Alert(msgspec.Struct, frozen=True):
    id: int
    symbol: str
    source: Source
    condition: Condition
    level: Decimal  # a price; for "move", a percentage
    window_s: int = 0  # "move" only: the window the move is measured in
    bell: bool = True
    armed: bool = True

    def describe(self) -> str:
        price = {"last": "last price", "mark": "mark price", "index": "index price"}[self.source]
        if self.condition == "move":
            minutes = self.window_s / 60
            span = f"{minutes:g} min" if minutes < 120 else f"{minutes / 60:g} h"
            return f"{self.symbol} {price} moves {self.level.normalize():f}% within {span}"
        return f"{self.symbol} {price} {self.condition} {self.level.normalize():,f}"


class Fired(msgspec.Struct, frozen=True):
    alert: Alert
    price: Decimal
    since: Decimal | None = None  # "move": the price it moved from

    def text(self) -> str:
        if self.alert.condition == "move" and self.since:
            pct = (self.price / self.since - 1) * 100
            return f"{self.alert.describe()}: {self.since.normalize():,f} → {self.price.normalize():,f} ({pct:+.2f}%)"
        return f"{self.alert.describe()}: now {self.price.normalize():,f}"


def alerts_path(data_dir: Path, profile: str) -> Path:
    """Where a profile's alerts live: ``<data dir>/alerts-<profile>.json`` (the name made file-safe)."""
    return profile_file(data_dir, "alerts", profile)


def check_alert(alert: Alert) -> Alert:
    """``alert`` when each of its values is within bounds; ValueError naming the first that is not."""
    if not SYMBOL_RE.fullmatch(alert.symbol):
        raise ValueError(f"alert {alert.id}: {alert.symbol[:40]!r} is not an instrument name")
    if alert.source not in SOURCES or alert.condition not in CONDITIONS:
        raise ValueError(f"alert {alert.id}: source or condition not known")
    level, top = alert.level, Decimal(100) if alert.condition == "move" else MAX_LEVEL
    if not level.is_finite() or not 0 < level <= top or decimal_places(level) > MAX_PLACES:
        raise ValueError(f"alert {alert.id}: level must be a number above 0, at most {top:,} and {MAX_PLACES} places")
    if alert.condition == "move" and not 0 < alert.window_s <= MAX_WINDOW_S:
        raise ValueError(f"alert {alert.id}: a move needs a window of 1 s to 7 days")
    if not 0 <= alert.window_s <= MAX_WINDOW_S:
        raise ValueError(f"alert {alert.id}: window_s must be 0 to 7 days")
    return alert


def _whole(raw: dict[str, Any], key: str, default: int | None = None) -> int:
    value = raw.get(key, default)
    if type(value) is not int:
        raise ValueError(f"{key} must be a whole number, not {type(value).__name__}")
    return value


def _flag(raw: dict[str, Any], key: str) -> bool:
    value = raw.get(key, True)
    if type(value) is not bool:
        raise ValueError(f"{key} must be true or false, not {type(value).__name__}")
    return value


def _alert(raw: Any) -> Alert:
    """An alert from its JSON object; ValueError naming what is wrong."""
    if not isinstance(raw, dict):
        raise ValueError("an alert must be an object")
    name = raw.get("id") if type(raw.get("id")) is int else "?"
    try:
        if unknown := sorted(set(raw) - _KEYS):
            raise ValueError(f"unknown key {unknown[0][:40]!r}")
        alert_id = _whole(raw, "id")
        if not 1 <= alert_id <= MAX_ID:
            raise ValueError(f"id must be 1 to {MAX_ID:,}")
        level = raw.get("level")
        if not isinstance(level, str | int | Decimal) or isinstance(level, bool):
            raise ValueError("level must be a number")
        texts = [raw.get(key) for key in ("symbol", "source", "condition")]
        if not all(isinstance(t, str) for t in texts):
            raise ValueError("symbol, source and condition must be strings")
        alert = Alert(
            id=alert_id,
            symbol=raw["symbol"],
            source=raw["source"],
            condition=raw["condition"],
            level=Decimal(level) if not isinstance(level, str) or len(level) <= 40 else Decimal("NaN"),
            window_s=_whole(raw, "window_s", 0),
            bell=_flag(raw, "bell"),
            armed=_flag(raw, "armed"),
        )
    except (ArithmeticError, ValueError) as exc:  # Decimal's errors are ArithmeticErrors
        raise ValueError(f"alert {name}: {exc}") from None
    return check_alert(alert)


def _alerts(raw: object) -> list[Alert]:
    """The alerts of an alert file's JSON; ValueError naming what is wrong."""
    if not isinstance(raw, dict) or set(raw) != {"alerts"} or not isinstance(raw["alerts"], list):
        raise ValueError('expected {"alerts": [...]}')
    alerts = [_alert(a) for a in raw["alerts"]]
    ids = collections.Counter(a.id for a in alerts)
    if twice := [i for i, n in ids.items() if n > 1]:
        raise ValueError(f"alert {twice[0]} appears {ids[twice[0]]} times")
    return alerts


class AlertBook(KeptStore):
    """A profile's alerts, their file, and what they have seen (the prices of each move alert's window)."""

    def __init__(self, path: Path, alerts: list[Alert] | None = None, problem: str = "") -> None:
        self.path = path
        self.alerts = alerts or []
        self.file = KeptFile(path, problem)
        self.not_saved = ""  # why the last save failed ("" once one succeeds): the state in memory is the right one
        self._seen: dict[int, collections.deque[tuple[float, Decimal]]] = {}

    @classmethod
    def load(cls, path: Path) -> AlertBook:
        """The alerts in ``path``; a file that cannot be read, or holds too many, is set aside with a notice."""
        book = cls(path)
        alerts = book.file.load(_alerts, MAX_FILE_BYTES) or []
        book.alerts = sorted(alerts, key=lambda a: a.id)[:MAX_ALERTS]
        if len(alerts) > MAX_ALERTS:
            book.file.over_cap(len(alerts), MAX_ALERTS, "alerts", book.save)
        return book

    def save(self) -> None:
        """Write every alert; OSError (``NotKept`` when the unread file must not be written over) if it cannot."""
        self.file.write({"alerts": [{**asdict(a), "level": str(a.level)} for a in self.alerts]})

    def _save_or_undo(self, before: list[Alert]) -> None:
        """Save an edit; if it cannot be saved, the alerts are as they were (what is shown is what is kept)."""
        try:
            self.save()
        except OSError:
            self.alerts = before
            raise
        self.not_saved = ""

    # ---- editing --------------------------------------------------------------------------------

    def next_id(self) -> int:
        return max((a.id for a in self.alerts), default=0) + 1

    def put(self, alert: Alert) -> None:
        """Add ``alert``, or replace the one with its id (armed again, its window started afresh). ValueError when a
        value is out of bounds or there are ``MAX_ALERTS`` already; OSError (nothing changed) when not saved."""
        check_alert(alert)
        if len(self.alerts) >= MAX_ALERTS and all(a.id != alert.id for a in self.alerts):
            raise ValueError(f"at most {MAX_ALERTS} alerts")
        before = self.alerts
        self.alerts = sorted([a for a in before if a.id != alert.id] + [alert], key=lambda a: a.id)
        self._save_or_undo(before)
        self._seen.pop(alert.id, None)

    def remove(self, alert_id: int) -> None:
        """Delete an alert; OSError (nothing changed) when that cannot be saved."""
        before = self.alerts
        self.alerts = [a for a in before if a.id != alert_id]
        self._save_or_undo(before)
        self._seen.pop(alert_id, None)

    def toggle(self, alert_id: int) -> Alert | None:
        """Arm or disarm an alert: the alert as it is now (None if there is none); OSError when not saved."""
        for a in self.alerts:
            if a.id == alert_id:
                self.put(replace(a, armed=not a.armed))
                return replace(a, armed=not a.armed)
        return None

    # ---- watching -------------------------------------------------------------------------------

    def check(self, prices: Mapping[tuple[str, str], Decimal], now_s: float) -> list[Fired]:
        """The alerts ``prices`` ((symbol, source) -> price) fire now; above/below ones are disarmed. Never raises
        for the file: when the disarmed state cannot be saved, ``not_saved`` says why."""
        fired: list[Fired] = []
        disarm: list[Alert] = []
        for a in self.alerts:
            price = prices.get((a.symbol, a.source))
            if not a.armed or price is None or price <= 0:
                continue
            if (a.condition == "above" and price >= a.level) or (a.condition == "below" and price <= a.level):
                fired.append(Fired(a, price))
                disarm.append(a)
            elif a.condition == "move":
                window = self._seen.setdefault(a.id, collections.deque(maxlen=SAMPLES))
                while window and window[0][0] < now_s - a.window_s:
                    window.popleft()
                far = max(window, key=lambda tp: abs(price / tp[1] - 1), default=(now_s, price))[1]
                if abs(price / far - 1) * 100 >= a.level:
                    fired.append(Fired(a, price, far))
                    window.clear()
                    window.append((now_s, price))
                elif not window or now_s - window[-1][0] >= a.window_s / SAMPLES:  # a bounded sample
                    window.append((now_s, price))
        if disarm:  # fired stays fired in memory whatever the disk says: the trader is told both
            gone = {a.id for a in disarm}
            self.alerts = [replace(a, armed=False) if a.id in gone else a for a in self.alerts]
            try:
                self.save()
                self.not_saved = ""
            except OSError as exc:
                self.not_saved = f"{exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else "")
        return fired
