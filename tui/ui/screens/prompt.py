"""A one-line text prompt (the client order id to cancel, say); Escape cancels."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

__all__ = ["PromptScreen"]


class PromptScreen(ModalScreen[str | None]):
    """Dismisses with the text entered (stripped), or None when cancelled or empty."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    DEFAULT_CSS = """
    PromptScreen {
        align: center middle;
    }
    PromptScreen > Vertical {
        width: 60;
        max-width: 100%;
        height: auto;
        border: thick $primary;
        background: $surface;
        padding: 1 2;
    }
    PromptScreen Label {
        margin-bottom: 1;
    }
    PromptScreen .hint {
        color: $foreground-muted;
        margin: 1 0 0 0;
    }
    """

    def __init__(self, title: str, *, placeholder: str = "", hint: str = "Enter to confirm · Escape to cancel") -> None:
        super().__init__()
        self._title = title
        self._placeholder = placeholder
        self._hint = hint

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._title, markup=False)
            yield Input(placeholder=self._placeholder, id="prompt-input")
            yield Label(self._hint, classes="hint", markup=False)

    @on(Input.Submitted, "#prompt-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
