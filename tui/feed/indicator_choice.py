"""The chart indicators a trader chose, kept per profile so they survive a restart.

The file is JSON (``{"indicators": ["sma", "rsi"]}``), written whole and atomically, read within limits (4 KiB,
nested at most 4 deep) through the kept-file machinery: a file that cannot be read is moved aside
(``chart-indicators-NAME.json.bad-<time>``), never written over, and ``problem`` says where.
"""

from __future__ import annotations

from pathlib import Path

from tui.paths import profile_file

from .indicators import INDICATORS, MA_PERIODS, RSI_PERIOD, Study, indicator_title, studies_for
from .kept_files import KeptFile, KeptStore

__all__ = ["IndicatorChoice", "indicators_path", "next_indicators"]

MAX_FILE_BYTES = 4 << 10
# what the chart's key steps through: none, each alone, all of them
RING: tuple[tuple[str, ...], ...] = ((), *((name,) for name in INDICATORS), INDICATORS)


def indicators_path(data_dir: Path, profile: str) -> Path:
    """Where a profile's indicators live: ``<data dir>/chart-indicators-<profile>.json``."""
    return profile_file(data_dir, "chart-indicators", profile)


def next_indicators(chosen: tuple[str, ...]) -> tuple[str, ...]:
    """The next of none, each alone, all; from any other choice (made in the palette), none."""
    i = RING.index(chosen) if chosen in RING else len(RING) - 1
    return RING[(i + 1) % len(RING)]


def _names(raw: object) -> tuple[str, ...]:
    if not isinstance(raw, dict) or set(raw) != {"indicators"} or not isinstance(raw["indicators"], list):
        raise ValueError('expected {"indicators": [...]}')
    for item in raw["indicators"]:
        if item not in INDICATORS:
            shown = repr(item)
            raise ValueError(
                f"{shown if len(shown) <= 24 else shown[:20] + '...'} is not one of {', '.join(INDICATORS)}"
            )
    return tuple(name for name in INDICATORS if name in raw["indicators"])


class IndicatorChoice(KeptStore):
    """A profile's chosen indicators (in ``INDICATORS`` order) and their file, with the profile's periods (its
    config's ``chart_ma_periods`` and ``chart_rsi_period``)."""

    def __init__(
        self, path: Path, chosen: tuple[str, ...] = (), ma_periods: tuple[int, ...] = MA_PERIODS,
        rsi_period: int = RSI_PERIOD,
    ) -> None:  # fmt: skip
        self.chosen = chosen
        self.ma_periods = ma_periods
        self.rsi_period = rsi_period
        self.file = KeptFile(path)

    @classmethod
    def load(
        cls, path: Path, ma_periods: tuple[int, ...] = MA_PERIODS, rsi_period: int = RSI_PERIOD
    ) -> IndicatorChoice:
        choice = cls(path, (), ma_periods, rsi_period)
        choice.chosen = choice.file.load(_names, MAX_FILE_BYTES, max_depth=4) or ()
        return choice

    def title(self, name: str) -> str:
        """``name`` as the chooser says it, at this profile's periods ("SMA 9, 21 and 50")."""
        return indicator_title(name, self.ma_periods, self.rsi_period)

    def studies(self) -> list[Study]:
        """The studies the chosen indicators draw, at this profile's periods."""
        return studies_for(self.chosen, self.ma_periods, self.rsi_period)

    def choose(self, chosen: tuple[str, ...]) -> None:
        """Show ``chosen`` (kept in ``INDICATORS`` order) and save it; OSError if it cannot be saved (it is shown
        all the same: the chart is not refused for a disk)."""
        self.chosen = tuple(name for name in INDICATORS if name in chosen)
        self.file.write({"indicators": list(self.chosen)})

    def toggled(self, name: str) -> tuple[str, ...]:
        return tuple(n for n in INDICATORS if (n in self.chosen) != (n == name))
