"""The help screen: every key binding, as remapped, with what it does."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import msgspec
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Label

from tui.ui.widgets.key_table import KeyTable

__all__ = ["HelpScreen", "KeyHelp"]


class KeyHelp(msgspec.Struct, frozen=True):
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
    HelpScreen KeyTable {
        height: 1fr;
    }
    """

    def __init__(self, rows: Sequence[KeyHelp]) -> None:
        super().__init__()
        self._rows = list(rows)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Keys")
            # in full: a long description wraps onto the lines below its key
            yield KeyTable([(r.keys, r.tooltip or r.description, r.id, r.scope) for r in self._rows], id="help-table")
            yield Label("Escape closes · ctrl+p lists every action · keys are remapped by id", classes="hint")

    def on_mount(self) -> None:
        self.query_one(KeyTable).focus()

    def action_close(self) -> None:
        self.dismiss(None)
