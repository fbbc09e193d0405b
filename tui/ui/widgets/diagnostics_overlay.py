"""The diagnostics overlay: why a link feels slow, live, over the dashboard (F12 opens and closes it).

Once a second it samples ``Diagnostics`` and shows frame time, terminal bytes a second, the process's CPU
and memory, the feed's messages a second by channel, each pane's data age and the rate-limit budget. It
floats over the panes on a layer of its own (the grid is not laid out again) and takes no focus, so every
key still goes to the dashboard and the feed runs on. It writes its lines only when a figure changed.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.widgets import Static

from tui.api.limits import Budget
from tui.feed.state import FeedState
from tui.ui.diagnostics import Diagnostics, Figures

from .display import fmt_age

__all__ = ["AGES", "DiagnosticsOverlay", "overlay_lines"]

SAMPLE_S = 1.0
LABEL = 10  # width of the labels' column
CHANNELS_SHOWN = 6  # the busiest channels, by name; the rest summed
# (topic, label): the data behind each pane
AGES = (
    ("book", "book"), ("trades", "tape"), ("markets", "mkts"), ("chart", "chart"),
    ("positions", "pos"), ("orders", "orders"), ("fills", "fills"), ("account", "acct"),
)  # fmt: skip


def _row(label: str, text: str) -> str:
    return f"{label:<{LABEL}}{text}"


def _rate(n: float) -> str:
    return f"{n:,.0f}/s" if n >= 10 or n == 0 else f"{n:,.1f}/s"


def _budget(name: str, b: Budget) -> str:
    return f"{name} {b.used:,}/{b.limit:,}"


def _megabytes(n: int | None) -> str:
    return "RSS —" if n is None else f"RSS {n / 1_048_576:,.1f} MB"


def overlay_lines(figures: Figures | None, state: FeedState, now: float) -> list[str]:
    """The overlay's text: ``figures`` (None: not sampled yet) and the data ages at ``now`` (the feed's clock)."""
    if figures is None:
        return ["measuring…"]
    f = figures
    frame = "no frame" if f.frame_ms is None else f"{f.frame_ms:.1f} ms mean · {f.worst_frame_ms or 0:.1f} worst"
    lines = [
        _row("frames", f"{frame} · {_rate(f.frames_per_s)}"),
        _row("terminal", "not counted (no terminal)" if f.bytes_per_s is None else f"{f.bytes_per_s:,.0f} B/s"),
        _row("process", f"CPU {f.cpu_pct:.1f}% · {_megabytes(f.rss_bytes)}"),
        _row("feed", f"{_rate(f.total_messages_per_s)[:-2]} messages/s"),
    ]
    channels = [(name, rate) for name, rate in f.messages_per_s.items() if rate > 0]  # the quiet ones: noise
    for name, rate in channels[:CHANNELS_SHOWN]:
        lines.append(_row("", f"{name:<16}{_rate(rate):>10}"))
    if len(channels) > CHANNELS_SHOWN:
        rest = sum(rate for _, rate in channels[CHANNELS_SHOWN:])
        lines.append(_row("", f"{f'{len(channels) - CHANNELS_SHOWN} more':<16}{_rate(rest):>10}"))
    updated = state.status.updated
    ages = [f"{label} {fmt_age(now - updated[t]) if t in updated else '-'}" for t, label in AGES]
    lines += [_row("data age", " · ".join(ages[:4])), _row("", " · ".join(ages[4:]))]
    budget = f.rate
    if budget is not None:
        info = f"{_budget('/info', budget.info_1m)} 1m · {budget.info_1h.used:,}/{budget.info_1h.limit:,} 1h"
        waiting = f" · waiting {budget.waiting_s:.1f}s" if budget.waiting_s > 0 else ""
        banned = f" · BANNED {budget.banned_s:.0f}s" if budget.banned_until is not None else ""
        lines += [_row("rate", info), _row("", f"{_budget('/exchange', budget.exchange_1m)} 1m{waiting}{banned}")]
    return lines


class DiagnosticsOverlay(Static, can_focus=False):
    """The figures of ``diagnostics``, sampled once a second; ages read ``state`` at ``clock`` (the feed's)."""

    DEFAULT_CSS = """
    DiagnosticsOverlay {
        layer: diagnostics;  /* a layer of its own: docking it here does not narrow the dashboard's grid */
        dock: right;
        width: 56;
        height: auto;
        margin: 1 1 0 0;
        padding: 0 1;
        background: $panel;
        color: $foreground;
        border: round $accent;
        border-title-color: $foreground;
        border-subtitle-color: $foreground-muted;
    }
    """

    def __init__(self, diagnostics: Diagnostics, state: FeedState, *, clock: Callable[[], float]) -> None:
        super().__init__("", id="diagnostics", markup=False)
        self.diagnostics = diagnostics
        self.state = state
        self._clock = clock
        self.lines: list[str] = []

    def on_mount(self) -> None:
        self.border_title = "Diagnostics"
        self.border_subtitle = "F12 closes"
        self.show_figures()
        self.set_interval(SAMPLE_S, self.show_figures)

    def show_figures(self) -> None:
        """Sample and show; nothing is written when no figure changed."""
        lines = overlay_lines(self.diagnostics.sample(), self.state, self._clock())
        if lines != self.lines:
            grew = len(lines) != len(self.lines)
            self.lines = lines
            self.update(Content("\n".join(lines)), layout=grew)
