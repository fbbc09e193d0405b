"""The help screen: every key binding, as remapped, with what it does."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Label

__all__ = ["HelpScreen", "KeyHelp"]

DIALOG_WIDTH = 160  # the widest the table is laid out for
FRAME = 4  # the border and the padding, both sides
SCROLLBAR = 2
CELL_PADDING = 2  # a DataTable cell's padding, both sides
KEY_MAX = 16
DOES_MIN = 24


@dataclass(frozen=True, slots=True)
class KeyHelp:
    """One binding as the help screen shows it."""

    scope: str
    keys: str  # as displayed, after the keymap
    description: str
    id: str
    tooltip: str
    action: str


class HelpScreen(Screen[None]):
    """Every key, full screen: a screen of its own draws in a fraction of the time a dialog over the
    dashboard does (a dialog's backdrop repaints the whole dashboard, dimmed, each time it opens)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close", id="help.close"),
    ]

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
    }
    HelpScreen > Vertical {
        width: 100%;
        max-width: 100%;
        height: 100%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    HelpScreen Label {
        text-style: bold;
        margin: 0 0 1 0;
    }
    HelpScreen .hint {
        color: $foreground-muted;
        text-style: none;
        margin: 1 0 0 0;
    }
    HelpScreen DataTable {
        height: 1fr;
    }
    """

    def __init__(self, rows: Sequence[KeyHelp]) -> None:
        super().__init__()
        self._rows = list(rows)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Keys")
            table: DataTable[Any] = DataTable(cursor_type="row", id="help-table")
            key_w = min(KEY_MAX, max((len(r.keys) for r in self._rows), default=3))
            id_w = max((len(r.id) for r in self._rows), default=2)
            scope_w = max((len(r.scope) for r in self._rows), default=5)
            does_w = max(DOES_MIN, self._inner_width() - key_w - id_w - scope_w - 4 * CELL_PADDING)
            table.add_column("Key", width=key_w, key="keys")
            table.add_column("Does", width=does_w, key="does")
            table.add_column("Id (keymap)", width=id_w, key="id")
            table.add_column("Where", width=scope_w, key="scope")
            for row in self._rows:
                scope, keys = Text(row.scope, style="dim"), Text(row.keys, style="bold")
                does = Text(row.tooltip or row.description)
                lines = len(does.wrap(self.app.console, does_w))  # in full: a long description takes two lines
                table.add_row(keys, does, Text(row.id, style="dim"), scope, height=max(1, lines))
            yield table
            yield Label("Escape closes · ctrl+p lists every action · keys are remapped by id", classes="hint")

    def _inner_width(self) -> int:
        """The width the table has: the dialog's (140, or the screen's if narrower) less its frame."""
        return min(DIALOG_WIDTH, self.app.size.width) - FRAME - SCROLLBAR

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()

    def action_close(self) -> None:
        self.dismiss(None)
