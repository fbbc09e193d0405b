"""The help screen: every key binding, as remapped, with what it does; `/` filters it as you type."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import msgspec
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Input, Label

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
        Binding("escape,question_mark,q", "close", "Close", id="help.close",
                tooltip="Close the help (Escape clears a filter first)"),
        Binding("slash", "search", "Search", id="help.search", tooltip="Filter the keys as you type"),
    ]  # fmt: skip

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
    HelpScreen > Vertical > Input {
        display: none;
        margin: 0 0 1 0;
    }
    HelpScreen.-searching > Vertical > Input {
        display: block;
    }
    """

    def __init__(self, rows: Sequence[KeyHelp]) -> None:
        super().__init__()
        self._rows = list(rows)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Keys")
            yield Input(placeholder="filter keys… (esc: clear)", id="help-filter", compact=True)
            # in full: a long description wraps onto the lines below its key
            yield KeyTable([(r.keys, r.tooltip or r.description, r.id, r.scope) for r in self._rows], id="help-table")
            yield Label(
                "/ filters · Escape closes · ctrl+p lists every action · keys are remapped by id", classes="hint"
            )

    def on_mount(self) -> None:
        self.query_one(KeyTable).focus()

    def action_search(self) -> None:
        self.add_class("-searching")
        self.query_one(Input).focus()

    @on(Input.Changed, "#help-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_one(KeyTable).filter(event.value)

    @on(Input.Submitted, "#help-filter")
    def _filter_done(self, _event: Input.Submitted) -> None:
        self.query_one(KeyTable).focus()

    def action_close(self) -> None:
        """Escape while a filter is shown clears it; pressed again (or with none), it closes the help."""
        searching = self.has_class("-searching")
        self._clear_filter()
        if not searching:
            self.dismiss(None)

    def _clear_filter(self) -> None:
        box = self.query_one(Input)
        box.value = ""
        self.query_one(KeyTable).filter("")
        self.remove_class("-searching")
        self.query_one(KeyTable).focus()
