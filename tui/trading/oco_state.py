"""An OCO's record: its two legs (``Leg``: the take-profit limit and the stop, each as the exchange's record last
showed it) and the pair (``Oco``: what it covers, whether it still runs, and what it says of itself), watched by
``tui.trading.oco.OcoRunner``."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

import msgspec

from .orders import OrderPlan, fmt_decimal
from .tool_book import KeptResize

__all__ = ["Leg", "Oco", "State"]

State = Literal["running", "done", "stopped", "left"]


class Leg(msgspec.Struct):
    name: str  # "take-profit" or "stop"
    tag: str  # "t" or "s": its cloids' mark
    plan: OrderPlan  # what it places (its size and cloid change as it is resized)
    cloid: str = ""  # the order placed last ("" none)
    expires_ms: int = 0
    placed: int = 0
    before: Decimal = Decimal(0)  # what its replaced orders filled
    filled: Decimal = Decimal(0)  # what the order placed last has filled, as the record last said
    open: bool = False  # the record (as last read) shows that order resting
    unsure: bool = False  # placed while quitting and never confirmed: it may rest
    stray: str = ""  # a resize's new order placed while quitting and never confirmed (it may rest), in words
    placing: KeptResize | None = None  # a resize's new order, kept on disk before it is sent, until it is the leg's

    @property
    def total(self) -> Decimal:
        return self.before + self.filled

    @property
    def left(self) -> Decimal:
        """What the order placed last may still close."""
        return self.plan.size - self.filled

    def describe(self) -> str:
        at = f"trigger {fmt_decimal(self.plan.trigger)}" if self.plan.trigger else f"at {fmt_decimal(self.plan.price)}"
        return f"{self.name} {fmt_decimal(self.left)} {at}"


class Oco(msgspec.Struct):
    id: int
    symbol: str
    size: Decimal  # what the pair is to close in all (its fills so far and what its legs are for now)
    legs: tuple[Leg, Leg]
    state: State = "running"
    unconfirmed: str = ""
    reason: str = ""
    whole: bool = False  # set for the whole position: it follows the position's size
    uncovered: str = ""  # "not covered: ..." while the legs are not for what they should be (a resize not done)
    refused: str = ""  # why the last resize was refused (said once)
    uncovered_said: bool = False  # whether ``uncovered`` was told
    kept_on_exit: bool = False  # left as xtui ended (not by the trader): the next start offers to resume it

    @property
    def active(self) -> bool:
        return self.state == "running"

    @property
    def filled(self) -> Decimal:
        return sum((leg.total for leg in self.legs), Decimal(0))

    def progress(self) -> str:
        rest = " · ".join(leg.describe() for leg in self.legs if leg.cloid and leg.open)
        said = f"{fmt_decimal(self.filled)} of {fmt_decimal(self.size)} {self.symbol} closed" + (
            f" · {rest}" if rest else ""
        )
        return f"{said} · {self.uncovered}" if self.uncovered and self.active else said
