"""Funding as the panes write it: a rate with its period (``0.0013%/1h``), per 8 hours, or annualised (``APR 11.4%``);
and the header's line with the selected instrument's rate and a countdown to the next payment.

The countdown moves once a second in a widget of its own beside the header, which repaints only the cells that
changed: each second a digit or two are written to the terminal, never the whole header line. The header comes
first: where it leaves too little room, the line drops its words (``0.0013%/1h 12:34``), then shows nothing
(80 columns).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import ClassVar, Literal

from textual.containers import Horizontal
from textual.content import Content
from textual.geometry import Region

from tui.feed.funding import annualised, next_payment_s
from tui.feed.state import FeedState

from .display import fmt_rate
from .header import ProfileHeader
from .pane import FeedLine

__all__ = ["MODES", "FundingLine", "FundingView", "HeaderRow", "fmt_countdown", "fmt_funding", "fmt_period"]

Mode = Literal["period", "8h", "apr"]
MODES: tuple[Mode, ...] = ("period", "8h", "apr")
MODE_NAMES = {"period": "per funding period", "8h": "per 8 hours", "apr": "annualised (APR)"}
EIGHT_HOURS_S = 8 * 3_600


def fmt_period(seconds: int) -> str:
    """A funding period in one unit: 3600 -> 1h, 28800 -> 8h, 1800 -> 30m, 86400 -> 1d."""
    if seconds % 86_400 == 0:
        return f"{seconds // 86_400}d"
    if seconds % 3_600 == 0:
        return f"{seconds // 3_600}h"
    if seconds % 60 == 0:
        return f"{seconds // 60}m"
    return f"{seconds}s"


def fmt_funding(rate: Decimal | None, period_s: int, mode: Mode = "period") -> str:
    """``rate`` (per ``period_s``) as ``mode`` asks: ``0.0013%/1h``, ``0.0100%/8h`` or ``APR 11.4%``."""
    if rate is None:
        return "-"
    if mode == "apr":
        return f"APR {annualised(rate, period_s) * 100:.1f}%"
    if mode == "8h":
        return f"{fmt_rate(rate * EIGHT_HOURS_S / period_s)}/8h"
    return f"{fmt_rate(rate)}/{fmt_period(period_s)}"


def fmt_countdown(seconds: float) -> str:
    """Time left, to the second: 12:34 under an hour, 1:02:03 beyond."""
    s = max(0, int(seconds))
    hours, rest = divmod(s, 3_600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


class FundingView:
    """How funding rates are written on the dashboard (view state the markets pane and the header share)."""

    def __init__(self, mode: Mode = "period") -> None:
        self.mode: Mode = mode

    def cycle(self) -> Mode:
        """The next way of writing them: per period, per 8 hours, annualised."""
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        return self.mode

    def text(self, rate: Decimal | None, period_s: int) -> str:
        return fmt_funding(rate, period_s, self.mode)

    @property
    def name(self) -> str:
        return MODE_NAMES[self.mode]


class FundingLine(FeedLine):
    """``funding 0.0013%/1h in 12:34``: the selected perp's rate and the time to its next payment (the
    exchange's clock: ``now_s``). Empty for a spot instrument, which pays no funding."""

    TOPICS: ClassVar[frozenset[str]] = frozenset({"markets"})

    DEFAULT_CSS = """
    FundingLine {
        width: auto;
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1 0 0;
    }
    """

    def __init__(
        self, state: FeedState, *, view: FundingView, now_s: Callable[[], float], id: str | None = None
    ) -> None:
        super().__init__(state, id=id)
        self.view = view
        self._now_s = now_s
        self._content = Content("")

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)  # the countdown; drawn on the screen's next refresh tick

    def _tick(self) -> None:
        self.dirty = True

    def refresh_state(self) -> None:
        market = self.state.market
        info = market.instruments.get(market.selected)
        ticker = market.tickers.get(market.selected)
        if info is None or info.kind != "perp" or ticker is None:
            self.show(Content(""))
            return
        period = market.funding_period_s
        rate = (self.view.text(ticker.funding_rate, period), "bold")
        left = fmt_countdown(next_payment_s(self._now_s(), period))
        room = self._room()
        forms = (
            Content.assemble(("funding ", "$foreground-muted"), rate, (" in ", "$foreground-muted"), left),
            Content.assemble(rate, " ", left),
        )
        self.show(next((f for f in forms if f.cell_length + 1 <= room), Content("")))

    def _room(self) -> int:
        """The columns the header leaves on its line (its text and padding, and a space before this)."""
        row = self.parent
        if not isinstance(row, HeaderRow):
            return self.app.size.width
        header = row.query_one(ProfileHeader)
        width = row.size.width or self.app.size.width  # not laid out yet: the row spans the screen
        return width - len(getattr(header.content, "plain", "")) - 3

    def render(self) -> Content:
        return self._content

    def show(self, content: Content) -> None:
        """Show ``content``, repainting only the cells that changed (the countdown's, each second); a layout
        pass when the width changes (the line is as wide as its text)."""
        old = self._content
        if content.plain == old.plain and content.spans == old.spans:
            return
        self._content = content
        if content.cell_length != old.cell_length:
            self.refresh(layout=True)
        elif content.spans != old.spans:
            self.refresh()
        else:
            changed = [i for i, (a, b) in enumerate(zip(old.plain, content.plain, strict=True)) if a != b]
            self.refresh(Region(changed[0], 0, changed[-1] - changed[0] + 1, 1))


class HeaderRow(Horizontal):
    """The header's line: the profile header, and the funding line at its right end."""

    DEFAULT_CSS = """
    HeaderRow {
        height: 1;
        background: $panel;
    }
    HeaderRow > ProfileHeader {
        width: 1fr;
    }
    """

    def on_resize(self) -> None:
        for line in self.query(FeedLine):
            line.refit()  # more or less room: the header says it in fewer words when narrow
