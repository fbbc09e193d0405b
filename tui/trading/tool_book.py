"""What the protective tools keep on disk so that they outlive the terminal, per profile and account: each running
trailing stop (what it trails, the peak it has seen, the stop it keeps on the exchange) and each linked OCO (the
position it follows or its fixed size, and each leg's order: cloid, side, price, trigger, size).

The file is JSON (``tools-<profile>.json``: ``{"version": 1, "trails": [...], "ocos": [...]}``; a file with no
``"ocos"``, as the first trail-only builds wrote it, reads as one with none), written whole and atomically at every
change of a tool and before each stop a trail sends (a temporary file, then a rename), read within limits (64 KiB,
nested at most 6 deep, at most ``MAX_KEPT`` trails and ``MAX_KEPT`` OCOs) and checked field by field: a file that
cannot be read, or holds a bad entry, is moved aside with a notice, never written over, never half-used. On the next
start xtui finds each kept tool's orders on the exchange by their cloids and asks once to resume it
(``tui.ui.resume``).
"""

from __future__ import annotations

import re
from collections.abc import Container
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import msgspec

from tui.feed.kept_files import KeptFile, KeptStore
from tui.paths import profile_file

from .orders import OrderPlan, Side, fmt_decimal
from .trail_plan import TrailSpec

__all__ = ["MAX_KEPT", "KeptLeg", "KeptOco", "KeptResize", "KeptStop", "KeptTrail", "ToolBook", "tool_book_path"]

MAX_KEPT = 32  # trails, and OCOs
MAX_FILE_BYTES = 64 << 10  # MAX_KEPT of each, every field at its longest, fits (a test says so)
VERSION = 1
_ACCOUNT = re.compile(r"0x[0-9a-fA-F]{40}")
_SYMBOL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,39}")
_CLOID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_BIG = Decimal(10) ** 15


class KeptStop(msgspec.Struct, frozen=True):
    """A stop a trail is sending: kept before it is sent, so that a kill before its answer still finds it."""

    cloid: str
    trigger: Decimal
    size: Decimal


class KeptTrail(msgspec.Struct, frozen=True):
    """A trailing stop as kept: enough to find its stop on the exchange and go on trailing from where it was."""

    account: str
    id: int
    spec: TrailSpec
    peak: Decimal | None
    cloid: str  # its stop's
    trigger: Decimal
    size: Decimal
    placing: KeptStop | None = None  # the stop it was sending (a move's new one, or its first) when last kept

    def words(self) -> str:
        extreme = self.spec.extreme
        peak = f", {extreme} {self.peak.normalize():f}" if self.peak is not None else ""
        return (
            f"trailing stop {self.id}: {self.spec.side.upper()} {self.size.normalize():f} {self.spec.symbol} stop at"
            f" {self.trigger.normalize():f}, {self.spec.distance_words} behind the {self.spec.source}{peak}"
        )


class KeptResize(msgspec.Struct, frozen=True):
    """The order a leg's resize is sending (its cloid and new size): kept before it is sent, so that a kill before
    the answer, or before the old order is withdrawn, still finds it at the next start."""

    cloid: str
    size: Decimal


class KeptLeg(msgspec.Struct, frozen=True):
    """One leg of a kept OCO: the order it placed last, enough to place it again for another size."""

    cloid: str
    side: Side
    price: Decimal  # a take-profit's limit; a stop's price bound (0: bounded by the exchange)
    trigger: Decimal | None  # a stop's trigger; None for the take-profit
    size: Decimal
    placing: KeptResize | None = None  # the order that replaces it, while a resize sends it and withdraws this one

    @classmethod
    def of(cls, cloid: str, plan: OrderPlan, placing: KeptResize | None = None) -> KeptLeg:
        return cls(cloid, plan.side, plan.price, plan.trigger, plan.size, placing)

    def resized(self) -> KeptLeg:
        """The leg as its resize leaves it: the new order in place of the old one."""
        if self.placing is None:
            return self
        return KeptLeg(self.placing.cloid, self.side, self.price, self.trigger, self.placing.size)

    def plan(self, instrument_id: int, symbol: str) -> OrderPlan:
        """The leg's order as the OCO places it: a reduce-only limit, or a reduce-only stop market."""
        if self.trigger is None:
            return OrderPlan(instrument_id, symbol, self.side, "limit", self.price, self.size, self.price,
                             reduce_only=True, cloid=self.cloid)  # fmt: skip
        return OrderPlan(
            instrument_id, symbol, self.side, "stop", self.price, self.size, self.trigger, reduce_only=True,
            trigger=self.trigger, market=True, cloid=self.cloid,
        )  # fmt: skip


class KeptOco(msgspec.Struct, frozen=True):
    """An OCO as kept: enough to find both legs on the exchange and link them again."""

    account: str
    id: int
    symbol: str
    instrument_id: int
    whole: bool  # it follows the position's size
    size: Decimal  # what its legs placed last are to close in all, their fills included
    take_profit: KeptLeg
    stop: KeptLeg

    @property
    def legs(self) -> tuple[KeptLeg, KeptLeg]:
        return self.take_profit, self.stop

    def as_resting(self, resting: Container[str]) -> tuple[KeptOco, list[str]]:
        """The pair as the exchange shows it, given the cloids that rest: a leg whose resize was under way (its new
        order kept before it was sent) is that new order when it rests, else its old one; and the cloids of the old
        orders that rest beside their new one (a kill before the resize withdrew them)."""
        legs, replaced = [], []
        for leg in self.legs:
            if leg.placing is not None and leg.placing.cloid in resting:
                legs.append(leg.resized())
                replaced += [leg.cloid] if leg.cloid in resting else []
            else:
                legs.append(msgspec.structs.replace(leg, placing=None))
        return msgspec.structs.replace(self, take_profit=legs[0], stop=legs[1]), replaced

    def words(self) -> str:
        part = "the whole position" if self.whole else f"{fmt_decimal(self.size)} of the position"
        return (
            f"OCO {self.id}: {self.stop.side.upper()} {fmt_decimal(self.stop.size)} {self.symbol}, take-profit at"
            f" {fmt_decimal(self.take_profit.price)}, stop trigger {fmt_decimal(self.stop.trigger)}, for {part}"
        )


def tool_book_path(data_dir: Path, profile: str) -> Path:
    """Where a profile's kept tools live: ``<data dir>/tools-<profile>.json``."""
    return profile_file(data_dir, "tools", profile)


def _number(raw: object, what: str, *, positive: bool = True) -> Decimal:
    if not isinstance(raw, str) or len(raw) > 40:
        raise ValueError(f"{what}: expected a number written as a string")
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise ValueError(f"{what}: {raw[:20]!r} is not a number") from None
    if not value.is_finite() or abs(value) >= _BIG or (positive and value <= 0):
        raise ValueError(f"{what}: {raw[:20]!r} is out of range")
    return value


def _matching(value: object, pattern: re.Pattern[str], said: str) -> str:
    """``value``, a string ``pattern`` matches whole; else ValueError(``said``)."""
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise ValueError(said)
    return value


def _whole(value: object, low: int, high: int, said: str) -> int:
    """``value``, a whole number from ``low`` to below ``high``; else ValueError(``said``)."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value < high:
        raise ValueError(said)
    return value


def _trail(raw: object) -> KeptTrail:
    """One kept trail from the file's JSON; ValueError naming what is wrong."""
    fields = {"account", "id", "symbol", "side", "distance", "percent", "source", "peak", "cloid", "trigger", "size"}
    if not isinstance(raw, dict) or set(raw) - {"placing"} != fields:  # no "placing": nothing was being sent
        raise ValueError(f"a trail has the fields {sorted(fields)}, and may have 'placing'")
    account = _matching(raw["account"], _ACCOUNT, "a trail's account is not an address")
    symbol = _matching(raw["symbol"], _SYMBOL, "a trail's symbol is not an instrument name")
    cloid = _matching(raw["cloid"], _CLOID, "a trail's cloid is not a client order id")
    run = _whole(raw["id"], 1, 1_000_000, "a trail's id is not a small whole number")
    if (
        raw["side"] not in ("buy", "sell")
        or raw["source"] not in ("mark", "last")
        or not isinstance(raw["percent"], bool)
    ):
        raise ValueError("a trail's side, source or percent is not one xtui writes")
    spec = TrailSpec(symbol, raw["side"], _number(raw["distance"], "distance"), raw["percent"], raw["source"])
    peak = None if raw["peak"] is None else _number(raw["peak"], "peak")
    placing = None if raw.get("placing") is None else _stop(raw["placing"])
    return KeptTrail(
        account, run, spec, peak, cloid, _number(raw["trigger"], "trigger"), _number(raw["size"], "size"),
        placing,
    )  # fmt: skip


def _stop(raw: object) -> KeptStop:
    if not isinstance(raw, dict) or set(raw) != {"cloid", "trigger", "size"}:
        raise ValueError("a trail's placing stop has the fields ['cloid', 'size', 'trigger']")
    cloid = _matching(raw["cloid"], _CLOID, "a trail's placing cloid is not a client order id")
    return KeptStop(cloid, _number(raw["trigger"], "placing trigger"), _number(raw["size"], "placing size"))


def _leg(raw: object, name: str) -> KeptLeg:
    fields = {"cloid", "side", "price", "trigger", "size"}
    if not isinstance(raw, dict) or set(raw) - {"placing"} != fields:  # no "placing": no resize under way
        raise ValueError(f"an OCO's {name} has the fields {sorted(fields)}, and may have 'placing'")
    cloid = _matching(raw["cloid"], _CLOID, f"an OCO's {name} cloid is not a client order id")
    if raw["side"] not in ("buy", "sell"):
        raise ValueError(f"an OCO's {name} side is not one xtui writes")
    if (raw["trigger"] is None) != (name == "take_profit"):
        raise ValueError(f"an OCO's {name} trigger is not one xtui writes")
    price = _number(raw["price"], f"{name} price", positive=False)
    if price < 0 or (price == 0 and name == "take_profit"):
        raise ValueError(f"{name} price: out of range")
    trigger = None if raw["trigger"] is None else _number(raw["trigger"], f"{name} trigger")
    placing = raw.get("placing")
    if placing is not None:
        if not isinstance(placing, dict) or set(placing) != {"cloid", "size"}:
            raise ValueError(f"an OCO's {name} placing has the fields ['cloid', 'size']")
        said = f"an OCO's {name} placing cloid is not a client order id"
        placing = KeptResize(_matching(placing["cloid"], _CLOID, said), _number(placing["size"], f"{name} size"))
    return KeptLeg(cloid, raw["side"], price, trigger, _number(raw["size"], f"{name} size"), placing)


def _oco(raw: object) -> KeptOco:
    """One kept OCO from the file's JSON; ValueError naming what is wrong."""
    fields = {"account", "id", "symbol", "instrument", "whole", "size", "take_profit", "stop"}
    if not isinstance(raw, dict) or set(raw) != fields:
        raise ValueError(f"an OCO has the fields {sorted(fields)}")
    account = _matching(raw["account"], _ACCOUNT, "an OCO's account is not an address")
    symbol = _matching(raw["symbol"], _SYMBOL, "an OCO's symbol is not an instrument name")
    run = _whole(raw["id"], 1, 1_000_000, "an OCO's id is not a small whole number")
    instrument = _whole(raw["instrument"], 0, 1 << 31, "an OCO's instrument is not an instrument id")
    if not isinstance(raw["whole"], bool):
        raise ValueError("an OCO's whole is not true or false")
    tp, stop = _leg(raw["take_profit"], "take_profit"), _leg(raw["stop"], "stop")
    if tp.side != stop.side or tp.cloid == stop.cloid:
        raise ValueError("an OCO's legs are not on one side with two cloids")
    return KeptOco(account, run, symbol, instrument, raw["whole"], _number(raw["size"], "size"), tp, stop)


def _raw_leg(leg: KeptLeg) -> dict[str, Any]:
    return {
        "cloid": leg.cloid, "side": leg.side, "price": str(leg.price),
        "trigger": None if leg.trigger is None else str(leg.trigger), "size": str(leg.size),
    } | ({} if leg.placing is None else {
        "placing": {"cloid": leg.placing.cloid, "size": str(leg.placing.size)},
    })  # fmt: skip


def _raw_oco(o: KeptOco) -> dict[str, Any]:
    return {
        "account": o.account, "id": o.id, "symbol": o.symbol, "instrument": o.instrument_id, "whole": o.whole,
        "size": str(o.size), "take_profit": _raw_leg(o.take_profit), "stop": _raw_leg(o.stop),
    }  # fmt: skip


def _raw(t: KeptTrail) -> dict[str, Any]:
    return {
        "account": t.account, "id": t.id, "symbol": t.spec.symbol, "side": t.spec.side,
        "distance": str(t.spec.distance), "percent": t.spec.percent, "source": t.spec.source,
        "peak": None if t.peak is None else str(t.peak), "cloid": t.cloid, "trigger": str(t.trigger),
        "size": str(t.size),
    } | ({} if t.placing is None else {"placing": {
        "cloid": t.placing.cloid, "trigger": str(t.placing.trigger), "size": str(t.placing.size),
    }})  # fmt: skip


def _tools(raw: object) -> tuple[list[KeptTrail], list[KeptOco]]:
    """The trails and OCOs of a tool file's JSON; ValueError naming what is wrong."""
    if not isinstance(raw, dict) or raw.get("version") != VERSION or not isinstance(raw.get("trails"), list):
        raise ValueError(f'expected {{"version": {VERSION}, "trails": [...]}}')
    ocos = raw.get("ocos", [])  # absent: written before OCOs were kept
    if set(raw) - {"version", "trails", "ocos"} or not isinstance(ocos, list):
        raise ValueError(f'expected {{"version": {VERSION}, "trails": [...], "ocos": [...]}}')
    if len(raw["trails"]) > MAX_KEPT or len(ocos) > MAX_KEPT:
        raise ValueError(f"more than {MAX_KEPT} trails or OCOs")
    return [_trail(t) for t in raw["trails"]], [_oco(o) for o in ocos]


class ToolBook(KeptStore):
    """A profile's kept tools and their file."""

    def __init__(
        self, path: Path, trails: list[KeptTrail] | None = None, problem: str = "", ocos: list[KeptOco] | None = None
    ) -> None:
        self.path = path
        self.trails = trails or []
        self.ocos = ocos or []
        self.file = KeptFile(path, problem)

    @classmethod
    def load(cls, path: Path) -> ToolBook:
        """The tools kept in ``path``; a file that cannot be read, or holds a bad entry, is set aside with a notice."""
        book = cls(path)
        book.trails, book.ocos = book.file.load(_tools, MAX_FILE_BYTES, max_depth=6) or ([], [])
        return book

    def of(self, account: str) -> list[KeptTrail]:
        """The trails kept for ``account``."""
        return [t for t in self.trails if t.account.lower() == account.lower()]

    def keep(self, account: str, trails: list[KeptTrail]) -> None:
        """``account``'s trails are now ``trails`` (the others' stay as they are); saved at once (OSError if not)."""
        others = [t for t in self.trails if t.account.lower() != account.lower()]
        self._save((others + trails)[-MAX_KEPT:], self.ocos)

    def ocos_of(self, account: str) -> list[KeptOco]:
        """The OCOs kept for ``account``."""
        return [o for o in self.ocos if o.account.lower() == account.lower()]

    def keep_ocos(self, account: str, ocos: list[KeptOco]) -> None:
        """``account``'s OCOs are now ``ocos`` (the others' stay as they are); saved at once (OSError if not)."""
        others = [o for o in self.ocos if o.account.lower() != account.lower()]
        self._save(self.trails, (others + ocos)[-MAX_KEPT:])

    def _save(self, trails: list[KeptTrail], ocos: list[KeptOco]) -> None:
        if trails == self.trails and ocos == self.ocos:
            return
        self.file.write({"version": VERSION, "trails": [_raw(t) for t in trails], "ocos": [_raw_oco(o) for o in ocos]})
        self.trails, self.ocos = trails, ocos
