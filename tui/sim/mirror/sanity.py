"""Which of a mirror's instruments the source's last ticker can be followed for, and why not the others.

A mirror that followed whatever its source said turned a glitch into money: prices x1000 for one poll took a paper
account from 123k to 14.6M, and an instrument left out of the source's ticker stayed "live" at a price nobody
gave any more. Here each instrument is checked on every poll, and is stale (its price held where the source last
made sense, its quotes pulled) while:

- the source's ticker leaves it out, or gives it no positive index and mark;
- its mark is more than the bound away from its own index (an exchange's mark follows its index closely);
- its index or mark moved more than the bound since the price last followed (default 20% in one poll).

A price back within the bound makes it live again at once. A move past the bound that the source keeps saying,
poll after poll (``CONFIRM_POLLS`` in a row, each within the bound of the one before), is taken as the market's
own: a real crash is followed, a few polls late, rather than frozen for ever.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .config import MAX_MOVE_PCT, SourcePrice

__all__ = ["CONFIRM_POLLS", "DEFAULT_MAX_MOVE_PCT", "Sanity"]

DEFAULT_MAX_MOVE_PCT = MAX_MOVE_PCT
CONFIRM_POLLS = 5
_HUNDRED = Decimal(100)
_LARGE_PCT = Decimal(10) ** 7  # past this a change is written with an exponent


@dataclass
class _Suspect:
    """A price past the bound, and how many polls in a row the source has said it (or one close to it)."""

    price: SourcePrice
    polls: int


class Sanity:
    """The stale instruments of one mirror, by name, with the reason in words."""

    def __init__(self, max_move_pct: Decimal = DEFAULT_MAX_MOVE_PCT) -> None:
        if not (max_move_pct.is_finite() and max_move_pct > 0):
            raise ValueError(f"the bound of a move in one poll must be above 0%, not {max_move_pct}%")
        self.max_move_pct = max_move_pct
        self.bound = max_move_pct / _HUNDRED
        self.stale: dict[str, str] = {}  # instrument name -> why its price is not followed
        self._suspects: dict[str, _Suspect] = {}

    def check(
        self, followed: dict[str, SourcePrice], fresh: dict[str, SourcePrice], named: set[str]
    ) -> dict[str, SourcePrice]:
        """Of ``fresh`` (the poll's prices), those to follow; every instrument of ``followed`` (the prices now
        followed) that is not among them is stale, with its reason. ``named``: the symbols the ticker named at all."""
        good: dict[str, SourcePrice] = {}
        for name, before in followed.items():
            now = fresh.get(name)
            if now is None:
                self._suspects.pop(name, None)
                said = "no positive index and mark" if name in named else "missing"
                self.stale[name] = f"{said} in the source's ticker"
                continue
            why = self._far_from_index(now) or self._moved(before, now)
            if why is None:
                good[name] = now
                self._suspects.pop(name, None)
                self.stale.pop(name, None)
            elif self._confirmed(name, now):
                good[name] = now  # the source has said it long enough: the market moved
                self.stale.pop(name, None)
            else:
                self.stale[name] = why
        return good

    def _far_from_index(self, price: SourcePrice) -> str | None:
        off = self._change(price.index, price.mark)
        if off is None or off > self.bound:
            return f"mark {price.mark} is {self._pct(price.index, price.mark)} from index {price.index}"
        return None

    def _moved(self, before: SourcePrice, now: SourcePrice) -> str | None:
        for what, old, new in (("mark", before.mark, now.mark), ("index", before.index, now.index)):
            change = self._change(old, new)
            if change is None or change > self.bound:
                bound = f"{self.max_move_pct.normalize():f}%"
                return f"{what} {old} -> {new} ({self._pct(old, new)}) in one poll, past {bound}"
        return None

    def _confirmed(self, name: str, now: SourcePrice) -> bool:
        suspect = self._suspects.get(name)
        if suspect is not None and self._moved(suspect.price, now) is None:
            suspect.price, suspect.polls = now, suspect.polls + 1
        else:
            suspect = self._suspects[name] = _Suspect(now, 1)
        if suspect.polls < CONFIRM_POLLS or self._far_from_index(now) is not None:
            return False
        del self._suspects[name]
        return True

    @staticmethod
    def _change(old: Decimal, new: Decimal) -> Decimal | None:
        """|new - old| / old; None when it cannot be computed (an absurd exponent)."""
        try:
            return abs(new - old) / old
        except ArithmeticError:
            return None

    @staticmethod
    def _pct(old: Decimal, new: Decimal) -> str:
        try:
            pct = (new - old) / old * _HUNDRED
            return f"{pct:+.1f}%" if abs(pct) < _LARGE_PCT else f"{pct:+.2E}%"
        except ArithmeticError:
            return "off any scale"
