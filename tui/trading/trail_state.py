"""A trailing stop's record: the stops it placed (``Stop``) and the trail itself (``Trail``: what it follows, the stop
it keeps, whether it still trails, and what it says of itself), moved by ``tui.trading.trailing.TrailRunner``."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

import msgspec

from .orders import fmt_decimal
from .trail_plan import TrailSpec

__all__ = ["State", "Stop", "Trail"]

State = Literal["trailing", "ended", "stopped"]


class Stop(msgspec.Struct, frozen=True):
    """One stop a trail placed, as the exchange took it."""

    cloid: str
    trigger: Decimal
    size: Decimal
    oid: int | None = None

    def words(self, spec: TrailSpec) -> str:
        return f"{spec.side.upper()} {fmt_decimal(self.size)} {spec.symbol} stop at {fmt_decimal(self.trigger)}"


class Trail(msgspec.Struct):
    id: int
    spec: TrailSpec
    state: State = "trailing"
    peak: Decimal | None = None  # the best price of the source seen since it started
    stop: Stop | None = None  # the stop it keeps on the exchange
    old: Stop | None = None  # the stop a move replaced, until its cancel is confirmed
    placing: Stop | None = None  # the stop being sent, kept on disk before it goes (a kill may come before its answer)
    moves: int = 0
    unconfirmed: str = ""  # while a step's outcome is unknown: what the trail waits for, in words
    halt: str = ""  # told to stop: it does, once the step under way is settled
    reason: str = ""  # why it ended or stopped, and what rests
    refusals: int = 0  # stops refused in a row
    refused: str = ""  # the last refusal, in the exchange's words
    checked_at: float = 0.0  # when the stop's record was last read (the runner's clock)
    resizes: int = 0  # stops placed for a new size of the position at the same trigger
    uncovered: str = ""  # while its stop is not for the whole position (as last read): how much it covers, in words
    uncovered_said: bool = False  # whether ``uncovered`` was told (a resize that fails, or waits on the exchange)
    kept_on_exit: bool = False  # stopped as xtui ended (not by the trader): the next start offers to resume it

    @property
    def active(self) -> bool:
        return self.state == "trailing"

    @property
    def waiting(self) -> bool:
        return bool(self.unconfirmed)

    def followed(self) -> str:
        """The best price it has seen, in words: 'peak 100,250' behind a long, 'trough 99,750' above a short."""
        extreme = self.spec.extreme
        return f"{extreme} {fmt_decimal(self.peak)}" if self.peak is not None else f"no {extreme} yet"

    def label(self) -> tuple[str, str]:
        """What the open orders show for its stop: ('trailing 50', 'peak 100,250'), or with the position not
        covered, ('trailing 50', 'NOT COVERED: the stop covers 0.01 of 0.03')."""
        if self.uncovered:  # "not covered: ..." shouted: the stop this row shows is not for the whole position
            return f"trailing {self.spec.distance_words}", "NOT COVERED" + self.uncovered.removeprefix("not covered")
        return f"trailing {self.spec.distance_words}", self.followed()

    def resting(self) -> str:
        """What it leaves on the exchange, in words."""
        if self.stop is None:
            return "no stop of this trail rests"
        said = f"the {self.stop.words(self.spec)} (cloid {self.stop.cloid}) stays on the exchange"
        if self.old is not None:
            said += f", and the old {self.old.words(self.spec)} may too (its cancel is unconfirmed)"
        if self.uncovered:
            said += f"; {self.uncovered}"
        return said

    def progress(self) -> str:
        stop = f"stop {fmt_decimal(self.stop.trigger)}" if self.stop else "no stop yet"
        said = (
            f"{self.spec.symbol} {self.spec.distance_words} behind the {self.spec.source}: {stop} · {self.followed()}"
        )
        return f"{said} · {self.uncovered}" if self.uncovered else said
