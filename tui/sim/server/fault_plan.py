"""Which faults ``xtui sim --faults`` injects: a frozen ``FaultPlan``, its presets, and its parsing at the CLI edge.

A plan is a preset (``none``, ``realistic``, ``thin-book``, ``brutal``) with single knobs laid over it. Every
value is checked here, where it is typed; the server receives a plan it can trust. Latencies are written in
milliseconds, ``40`` (always 40 ms) or ``20~80`` (uniform between 20 and 80 ms, drawn afresh for each request or
frame); rates are fractions between 0 and 1 (``0.05``: one in twenty).

The plan is said in one line (``describe``): at start-up on standard error, and in the ``X-Xtui-Faults`` header of
every answer and WebSocket upgrade, so nobody mistakes a faulty run for a slow exchange.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from typing import TypedDict, Unpack

from tui.api.decimals import is_plain_decimal

from ..grammar import int_text

__all__ = [
    "FAULTS_HEADER",
    "NO_FAULTS",
    "PRESETS",
    "FaultPlan",
    "Knobs",
    "Latency",
    "parse_latency",
    "parse_rate",
    "parse_seconds",
]

FAULTS_HEADER = "X-Xtui-Faults"
MAX_LATENCY_MS = 60_000  # a minute: past any client's timeout, so more says nothing new
MAX_DROP_EVERY_S = 86_400


@dataclass(frozen=True)
class Latency:
    """A delay drawn uniformly from ``lo_ms`` to ``hi_ms`` (both included); 0~0 is none."""

    lo_ms: int = 0
    hi_ms: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.lo_ms <= self.hi_ms <= MAX_LATENCY_MS:
            raise ValueError(f"a latency is 0 <= lo <= hi <= {MAX_LATENCY_MS} ms, got {self.lo_ms}~{self.hi_ms}")

    def __bool__(self) -> bool:
        return self.hi_ms > 0

    def __str__(self) -> str:
        return f"{self.lo_ms}ms" if self.lo_ms == self.hi_ms else f"{self.lo_ms}~{self.hi_ms}ms"


@dataclass(frozen=True)
class FaultPlan:
    """What goes wrong, and how often. ``seed`` None: the exchange's market seed (``--seed``) decides."""

    preset: str = "none"
    seed: int | None = None
    http: Latency = Latency()  # before each POST /exchange, /info, /explorer is handled
    ws_feed: Latency = Latency()  # on each subscription frame pushed (order kept)
    ws_ack: Latency = Latency()  # on each answer to a WebSocket request (subscribe, post, ping; order kept)
    refuse_rate: Decimal = Decimal(0)  # share of /exchange actions refused unapplied, saying it is a fault
    ws_drop_every_s: int = 0  # each WebSocket connection is closed this long after it opened (0: never)
    info_timeout_rate: Decimal = Decimal(0)  # share of /info requests that hang, then close unanswered
    partial_fill_rate: Decimal = Decimal(0)  # share of taker orders that fill only part of what they could
    thin_book: bool = False  # the synthetic makers quote few, small, wide levels

    def __post_init__(self) -> None:
        for name in ("refuse_rate", "info_timeout_rate", "partial_fill_rate"):
            rate = getattr(self, name)
            if not (isinstance(rate, Decimal) and rate.is_finite() and 0 <= rate <= 1):
                raise ValueError(f"{name} is a fraction from 0 to 1, got {rate!r}")
        if not 0 <= self.ws_drop_every_s <= MAX_DROP_EVERY_S:
            raise ValueError(f"ws_drop_every_s is from 0 to {MAX_DROP_EVERY_S}, got {self.ws_drop_every_s}")

    @property
    def active(self) -> bool:
        return bool(self.knobs())

    def knobs(self) -> list[str]:
        """The faults that are on, each as ``name=value``."""
        said: list[str] = []
        for name, latency in (("http", self.http), ("ws-feed", self.ws_feed), ("ws-ack", self.ws_ack)):
            if latency:
                said.append(f"{name}={latency}")
        if self.refuse_rate:
            said.append(f"refuse={self.refuse_rate}")
        if self.ws_drop_every_s:
            said.append(f"ws-drop={self.ws_drop_every_s}s")
        if self.info_timeout_rate:
            said.append(f"info-timeout={self.info_timeout_rate}")
        if self.partial_fill_rate:
            said.append(f"partial-fill={self.partial_fill_rate}")
        if self.thin_book:
            said.append("book=thin")
        return said

    def describe(self, seed: int) -> str:
        """One line: the preset, the seed the faults are drawn from, and every fault that is on."""
        return " ".join([self.preset, f"seed={seed}", *self.knobs()])


class Knobs(TypedDict, total=False):
    """The single knobs that may be laid over a preset (``plan_from``): ``FaultPlan``'s fields of those names."""

    http: Latency
    ws_feed: Latency
    ws_ack: Latency
    refuse_rate: Decimal
    ws_drop_every_s: int
    info_timeout_rate: Decimal
    partial_fill_rate: Decimal


NO_FAULTS = FaultPlan()
PRESETS: dict[str, FaultPlan] = {
    "none": NO_FAULTS,
    # what a bot meets on a good day over the internet: some latency, a rare refusal, a daily-ish reconnect
    "realistic": FaultPlan(
        preset="realistic",
        http=Latency(20, 80),
        ws_feed=Latency(5, 40),
        ws_ack=Latency(20, 80),
        refuse_rate=Decimal("0.01"),
        ws_drop_every_s=600,
        info_timeout_rate=Decimal("0.005"),
        partial_fill_rate=Decimal("0.05"),
    ),
    # only the book: few levels, small and wide, so size moves the price
    "thin-book": FaultPlan(preset="thin-book", thin_book=True),
    # everything at once, often: a bot that survives this survives a bad day
    "brutal": FaultPlan(
        preset="brutal",
        http=Latency(50, 400),
        ws_feed=Latency(20, 300),
        ws_ack=Latency(50, 400),
        refuse_rate=Decimal("0.1"),
        ws_drop_every_s=20,
        info_timeout_rate=Decimal("0.05"),
        partial_fill_rate=Decimal("0.3"),
        thin_book=True,
    ),
}


def parse_latency(text: str) -> Latency:
    """``40`` or ``20~80`` (milliseconds, ASCII digits); ValueError with the reason."""
    parts = text.split("~")
    if len(parts) > 2:
        raise ValueError(f"a latency is MS or LO~HI in milliseconds, got {text[:40]!r}")
    values = [int_text(p) for p in parts]
    if any(v is None for v in values):
        raise ValueError(f"a latency is MS or LO~HI in whole milliseconds (ASCII digits), got {text[:40]!r}")
    lo, hi = values[0], values[-1]
    assert lo is not None and hi is not None
    if lo > hi:
        raise ValueError(f"a latency's low end comes first: {lo}~{hi} is backwards")
    if hi > MAX_LATENCY_MS:
        raise ValueError(f"a latency is at most {MAX_LATENCY_MS} ms, got {hi}")
    return Latency(lo, hi)


def parse_rate(text: str) -> Decimal:
    """A fraction from 0 to 1 (``0.05``); ValueError with the reason."""
    if not is_plain_decimal(text):
        raise ValueError(f"a rate is a plain decimal from 0 to 1 (e.g. 0.05), got {text[:40]!r}")
    rate = Decimal(text)
    if not 0 <= rate <= 1:
        raise ValueError(f"a rate is from 0 to 1 (a share, not a percentage), got {text[:40]!r}")
    return rate


def parse_seconds(text: str) -> int:
    """Whole seconds from 0 (never) to a day; ValueError with the reason."""
    n = int_text(text)
    if n is None:
        raise ValueError(f"whole seconds (ASCII digits), got {text[:40]!r}")
    if n > MAX_DROP_EVERY_S:
        raise ValueError(f"at most {MAX_DROP_EVERY_S} s (a day), got {n}")
    return n


def plan_from(preset: str, seed: int | None = None, **knobs: Unpack[Knobs]) -> FaultPlan:
    """``preset`` with the knobs given laid over it; ValueError for an unknown preset."""
    base = PRESETS.get(preset)
    if base is None:
        raise ValueError(f"unknown fault preset {preset[:40]!r}: one of {', '.join(PRESETS)}")
    return dataclasses.replace(base, seed=seed, **knobs)
