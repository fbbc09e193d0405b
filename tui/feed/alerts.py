"""Price alerts: a price above or below a level, or a move of some percent within a window, on the last
trade, mark or index price of an instrument; kept on disk per profile, so they survive a restart.

An "above" or "below" alert fires once, when the price is at or past its level (at once if it already
is), and is then disarmed until the trader arms it again. A "move" alert fires when the price has moved
by at least its percentage from any price seen within its window, then starts its window afresh (so a
long slide fires once per further move, not on every tick).

The file is JSON, written whole and atomically (a temporary file, then a rename). A file that cannot be
read is never overwritten: it is moved aside (``alerts-NAME.json.bad-<time>``) and the reason is kept in
``AlertBook.problem`` for the dashboard to show.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal

import msgspec
from msgspec.structs import asdict, replace

from tui.paths import profile_file

from .kept_files import set_aside, write_json

__all__ = ["CONDITIONS", "SOURCES", "Alert", "AlertBook", "Fired", "alerts_path"]

Source = Literal["last", "mark", "index"]
Condition = Literal["above", "below", "move"]
SOURCES: tuple[Source, ...] = ("last", "mark", "index")
CONDITIONS: tuple[Condition, ...] = ("above", "below", "move")
MAX_WINDOW_S = 7 * 86_400
MAX_ALERTS = 500
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


def _alert(raw: Any) -> Alert:
    """An alert from its JSON object; ValueError naming what is wrong."""
    if not isinstance(raw, dict):
        raise ValueError("an alert must be an object")
    try:
        level = Decimal(str(raw["level"]))
        alert = Alert(
            id=int(raw["id"]),
            symbol=str(raw["symbol"]),
            source=raw["source"],
            condition=raw["condition"],
            level=level,
            window_s=int(raw.get("window_s", 0)),
            bell=bool(raw.get("bell", True)),
            armed=bool(raw.get("armed", True)),
        )
    except (KeyError, TypeError, ValueError, InvalidOperation) as exc:
        raise ValueError(f"alert {raw.get('id', '?')}: {exc!r}") from None
    if alert.source not in SOURCES or alert.condition not in CONDITIONS:
        raise ValueError(f"alert {alert.id}: source or condition not known")
    if not alert.level.is_finite() or alert.level <= 0:
        raise ValueError(f"alert {alert.id}: level must be a number above 0")
    if alert.condition == "move" and not 0 < alert.window_s <= MAX_WINDOW_S:
        raise ValueError(f"alert {alert.id}: a move needs a window of 1 s to 7 days")
    return alert


class AlertBook:
    """A profile's alerts, their file, and what they have seen (the prices of each move alert's window)."""

    def __init__(self, path: Path, alerts: list[Alert] | None = None, problem: str = "") -> None:
        self.path = path
        self.alerts = alerts or []
        self.problem = problem  # why the file could not be read (it was moved aside), for the trader to see
        self._seen: dict[int, collections.deque[tuple[float, Decimal]]] = {}

    @classmethod
    def load(cls, path: Path) -> AlertBook:
        if not path.exists():
            return cls(path)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(raw, dict) or not isinstance(raw.get("alerts"), list):
                raise ValueError('expected {"alerts": [...]}')
            return cls(path, [_alert(a) for a in raw["alerts"]][:MAX_ALERTS])
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            return cls(path, problem=set_aside(path, exc))

    def save(self) -> None:
        write_json(self.path, {"alerts": [{**asdict(a), "level": str(a.level)} for a in self.alerts]})

    # ---- editing --------------------------------------------------------------------------------

    def next_id(self) -> int:
        return max((a.id for a in self.alerts), default=0) + 1

    def put(self, alert: Alert) -> None:
        """Add ``alert``, or replace the one with its id (armed again, its window started afresh)."""
        if len(self.alerts) >= MAX_ALERTS and all(a.id != alert.id for a in self.alerts):
            raise ValueError(f"at most {MAX_ALERTS} alerts")
        self.alerts = [a for a in self.alerts if a.id != alert.id] + [alert]
        self.alerts.sort(key=lambda a: a.id)
        self._seen.pop(alert.id, None)
        self.save()

    def remove(self, alert_id: int) -> None:
        self.alerts = [a for a in self.alerts if a.id != alert_id]
        self._seen.pop(alert_id, None)
        self.save()

    def toggle(self, alert_id: int) -> Alert | None:
        for a in self.alerts:
            if a.id == alert_id:
                self.put(replace(a, armed=not a.armed))
                return replace(a, armed=not a.armed)
        return None

    # ---- watching -------------------------------------------------------------------------------

    def check(self, prices: Mapping[tuple[str, str], Decimal], now_s: float) -> list[Fired]:
        """The alerts ``prices`` ((symbol, source) -> price) fire now; above/below ones are disarmed."""
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
        if disarm:
            gone = {a.id for a in disarm}
            self.alerts = [replace(a, armed=False) if a.id in gone else a for a in self.alerts]
            self.save()
        return fired
