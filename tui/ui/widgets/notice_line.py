"""A screen's own lines for notices, in place of toasts: on a screen whose table the trader reads to its last row
(the event log, TWAPs, chases and OCOs), a toast would sit over rows of it. The newest notice shows here, in its
severity's colour, until its timeout; an older one still showing is counted, not stacked."""

from __future__ import annotations

from textual.content import Content
from textual.notifications import Notification
from textual.timer import Timer
from textual.widgets import Static

__all__ = ["NoticeLine"]


class NoticeLine(Static):
    # always there, two lines high (a notice past them is cut): one appearing never shrinks the table under the
    # trader's eyes, which would put its cursor row out of sight
    DEFAULT_CSS = """
    NoticeLine {
        height: 2;
        padding: 0 1;
        text-overflow: ellipsis;
    }
    NoticeLine.-shown {
        background: $boost;
    }
    NoticeLine.-warning {
        color: $warning;
    }
    NoticeLine.-error {
        color: $error;
        text-style: bold;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.shown: list[Notification] = []  # the notices still within their timeout, oldest first
        self._timer: Timer | None = None

    @property
    def text(self) -> str:
        """What the line says now ("" when no notice is up)."""
        return str(self.render()) if self.shown else ""

    def add(self, notice: Notification) -> None:
        """Show ``notice`` (the newest) until its timeout."""
        self.shown.append(notice)
        self._draw()

    def _draw(self) -> None:
        self.shown = [n for n in self.shown if n.time_left > 0]
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if not self.shown:
            self.update("")
            self.set_classes("")
            return
        newest = self.shown[-1]
        words = " · ".join(line for line in newest.message.splitlines() if line.strip())
        earlier = f"  (+{len(self.shown) - 1} earlier)" if len(self.shown) > 1 else ""
        text = f"{newest.title}: {words}{earlier}" if newest.title else f"{words}{earlier}"
        self.update(Content(text))
        self.set_classes(f"-shown -{newest.severity}")
        self._timer = self.set_timer(min(n.time_left for n in self.shown), self._draw)
