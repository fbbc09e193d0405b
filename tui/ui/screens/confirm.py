"""A yes/no question answered from the keyboard; the default (Enter, Escape) is No."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

__all__ = ["ConfirmScreen"]


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True only for ``y`` or the Yes button."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    DEFAULT_CSS = """
    ConfirmScreen {
        align: center middle;
    }
    ConfirmScreen > Vertical {
        width: 64;
        max-width: 100%;
        height: auto;
        border: thick $warning;
        background: $surface;
        padding: 1 2;
    }
    ConfirmScreen .title {
        text-style: bold;
        color: $warning;
        margin-bottom: 1;
    }
    ConfirmScreen .reason {
        color: $foreground;
    }
    ConfirmScreen Horizontal {
        height: auto;
        margin-top: 1;
        align-horizontal: right;
    }
    ConfirmScreen Button {
        margin-left: 2;
        min-width: 10;
    }
    """

    def __init__(self, title: str, lines: list[str], *, yes: str = "Yes (y)", no: str = "No (n)") -> None:
        super().__init__()
        self._title = title
        self._lines = lines
        self._yes = yes
        self._no = no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._title, classes="title", markup=False)
            for line in self._lines:
                yield Static(line, classes="reason", markup=False)
            with Horizontal():
                yield Button(self._no, id="no", variant="primary")
                yield Button(self._yes, id="yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
