"""The event log: every fill (one line per order, its pieces summed), trigger, order the exchange ended,
liquidation, funding payment, liquidation warning, alert, TWAP step, refusal, and the connection lost and back,
newest first, with its time (UTC). Below this session's entries, the end of the log file as earlier sessions
left it (``tui.feed.event_file``). Opening it marks every entry read: the header's count of new events clears.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Label

from tui.feed.event_entries import LogEntry, iso_ms
from tui.ui.messages import FeedChanged
from tui.ui.widgets.record_table import RecordTable

from .data_screen import DataScreen, ScreenContext

__all__ = ["EventLogScreen", "earlier_row"]

SHOWN_EVERY_S = 0.5  # new entries appear this soon while the screen is open


def _when(at_ms: int) -> str:
    return iso_ms(at_ms)[:19].replace("T", " ")


def earlier_row(line: str) -> tuple[str, str, str]:
    """(time, kind, text) of a line of the file; a line not of that form is all text."""
    parts = line.split(" ", 2)
    if len(parts) == 3 and len(parts[0]) == 24 and parts[0].endswith("Z") and parts[1].isalpha():
        return parts[0][:19].replace("T", " "), parts[1], parts[2]
    return "", "", line


class EventLogScreen(DataScreen):
    NOTICES_IN_LINE = True  # a toast would sit over the rows being read
    SCREEN_TITLE = "Event log"
    AUTO_FOCUS = "RecordTable"

    DEFAULT_CSS = """
    EventLogScreen #events-note {
        width: 1fr;
    }
    EventLogScreen RecordTable {
        height: 1fr;
    }
    """

    @property
    def polls(self) -> bool:
        return False  # nothing to load: the log is in memory, shown every SHOWN_EVERY_S

    def __init__(self, ctx: ScreenContext) -> None:
        super().__init__(ctx)
        self._shown_seq = -1
        self._earlier_shown = -1

    def compose_body(self) -> ComposeResult:
        yield Label("", id="events-note", classes="screen-note", markup=False)
        yield RecordTable([("time", "Time (UTC)"), ("kind", "Kind"), ("text", "Event")], id="events-table")

    def on_mount(self) -> None:
        super().on_mount()
        self.set_interval(SHOWN_EVERY_S, self.show)

    async def fetch(self) -> None:
        self._shown_seq = -1  # r: shown again whole
        self.show()

    def show(self) -> None:
        if not self.is_mounted:
            return
        log = self.ctx.feed.state.account.events
        entries: list[LogEntry] = log.book.entries()
        newest = entries[-1].seq if entries else 0
        earlier = self.ctx.event_file.earlier
        if newest == self._shown_seq and len(earlier) == self._earlier_shown:
            return
        self._shown_seq, self._earlier_shown = newest, len(earlier)
        rows: list[tuple[str, list[str]]] = [(f"e{e.seq}", [_when(e.at_ms), e.kind, e.text]) for e in reversed(entries)]
        rows += [(f"f{i}", list(earlier_row(line))) for i, line in reversed(list(enumerate(earlier)))]
        self.query_one("#events-table", RecordTable).show(rows)
        file = self.ctx.event_file
        note = f"{len(entries)} event(s) this session, {len(earlier)} earlier · kept in {file.path.name} (data dir)"
        self.query_one("#events-note", Label).update(f"{note} · {file.problem}" if file.problem else note)
        if log.book.unread:
            log.book.mark_read()
            self.app.post_message(FeedChanged(frozenset({"events"})))
