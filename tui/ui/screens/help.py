"""The help screen: every key binding, as remapped, with what it does."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label

__all__ = ["HelpScreen", "KeyHelp"]


@dataclass(frozen=True, slots=True)
class KeyHelp:
    """One binding as the help screen shows it."""

    scope: str
    keys: str  # as displayed, after the keymap
    description: str
    id: str
    tooltip: str
    action: str


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close", id="help.close"),
    ]

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
    }
    HelpScreen > Vertical {
        width: 108;
        max-width: 100%;
        height: 90%;
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
            table.add_column("Key", width=14, key="keys")
            table.add_column("Does", width=52, key="does")
            table.add_column("Id (keymap)", width=20, key="id")
            table.add_column("Where", width=10, key="scope")
            for row in self._rows:
                scope, keys = Text(row.scope, style="dim"), Text(row.keys, style="bold")
                table.add_row(keys, Text(row.tooltip or row.description), Text(row.id, style="dim"), scope)
            yield table
            yield Label("Escape closes · ctrl+p lists every action · keys are remapped by id", classes="hint")

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()

    def action_close(self) -> None:
        self.dismiss(None)
