"""The status bar: the connection, how old each pane's data is, the rate-limit budget, clock drift, the last error.

While every pane's data is fresh (newer than ``STALE_AFTER_S``) the bar says "data fresh"; otherwise it
names each pane whose data is older, with its age, greyed ("-": none yet). The bar then changes when
something goes stale or recovers, not every second while all is well: over SSH every redraw of the bar
is a line written to the terminal.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import ClassVar

from textual.content import Content

from tui.feed.state import FeedState
from tui.trading.latency import Latency

from .display import fmt_age
from .header import CONNECTION_STYLES
from .pane import FeedLine

__all__ = ["DRIFT_WARN_MS", "STALE_AFTER_S", "StatusBar", "drift_warning"]

STALE_AFTER_S = 3.0
DRIFT_WARN_MS = 1000  # a clock this far off signs wrong nonces until the exchange's clock is measured
# (topic, label): the data behind each pane
AGES = (("book", "book"), ("trades", "tape"), ("markets", "mkts"), ("chart", "chart"), ("account", "acct"))


def drift_warning(drift_ms: int | None) -> str | None:
    """The warning for a clock this far from the exchange's, or None while it is within a second."""
    if drift_ms is None or abs(drift_ms) <= DRIFT_WARN_MS:
        return None
    way = "behind" if drift_ms > 0 else "ahead of"  # drift is server time - local time
    return f"this clock is {abs(drift_ms) / 1000:.1f}s {way} the exchange's"


class StatusBar(FeedLine):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"status", "book", "trades", "markets", "chart", "account"})

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        color: $foreground-muted;
        padding: 0 1;
    }
    """

    def __init__(
        self, state: FeedState, *, clock: Callable[[], float], latency: Latency | None = None, id: str | None = None
    ) -> None:
        super().__init__(state, id=id)
        self._clock = clock
        self._latency = latency  # the desk's: the last order's sign -> ack -> socket times, the session's median

    def refresh_state(self) -> None:
        status = self.state.status
        now = self._clock()
        dot, colour = CONNECTION_STYLES.get(status.connection, ("?", "$stale"))
        parts: list[str | tuple[str, str] | Content] = []
        warning = drift_warning(status.clock_drift_ms)
        if warning:  # first, so a narrow terminal never cuts it off
            parts += [(" WARNING ", "bold reverse $error"), (f" {warning}: orders may be rejected ", "$error"), "│ "]
        parts.append((f"{dot} {status.connection}", f"bold {colour}"))
        if status.reconnects:
            parts.append(f" ({status.reconnects}×)")
        parts.append(" │")
        old = [
            f" {label} -" if at is None else f" {label} {fmt_age(now - at)}"
            for topic, label in AGES
            if (at := status.updated.get(topic)) is None or now - at > STALE_AFTER_S
        ]
        parts.extend([(text, "$stale") for text in old] if old else [(" data fresh", "$foreground")])
        if self._latency is not None:  # before the rate budget: a narrow terminal keeps it
            self._latency.observe(self.state.account.socket_seen)
            if said := self._latency.words():
                parts.extend([" │ ", said])
        rate = status.rate
        if rate is not None:
            used = rate.info_1m
            style = "$warning" if used.limit and used.used >= used.limit * 0.8 else ""
            parts.extend([" │ ", (f"rate {used.used}/{used.limit}", style)])
            since = now - status.rate_at  # the waits were read then: they count down from there
            if (wait := rate.waiting_s - since) > 0:
                parts.append((f" wait {math.ceil(wait)}s", "$warning"))
            if (ban := rate.banned_s - since) > 0:
                parts.append((f" BANNED {math.ceil(ban)}s", "bold $error"))
        if status.clock_drift_ms is not None and not warning:
            parts.extend([" │ ", f"drift {status.clock_drift_ms:+d}ms"])

        if status.last_error:
            parts.extend([" │ ", (status.last_error, "$error")])
        self.show(Content.assemble(*parts))
