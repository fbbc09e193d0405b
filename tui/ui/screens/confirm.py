"""A yes/no question answered from the keyboard; the default (Enter, Escape) is No. A question may offer one more
answer on a key of its own (cancel-all's "keep the protection"): it dismisses with that key."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

__all__ = ["ConfirmScreen"]


class ConfirmScreen(ModalScreen[bool | str]):
    """Dismisses with True only for ``y`` or the Yes button; with ``also``'s key for that key or its button."""

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

    def __init__(
        self,
        title: str,
        lines: list[str],
        *,
        yes: str = "Yes (y)",
        no: str = "No (n)",
        also: tuple[str, str] | None = None,
        default: bool = False,
    ) -> None:
        super().__init__()
        self._title = title
        self._lines = lines
        self._yes = yes
        self._no = no
        self._also = also  # (key, button label): a third answer
        self._default = default  # Enter answers yes (resuming a protective tool); Escape is still no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._title, classes="title", markup=False)
            for line in self._lines:
                yield Static(line, classes="reason", markup=False)
            with Horizontal():
                yield Button(self._no, id="no", variant="primary")
                if self._also is not None:
                    yield Button(self._also[1], id="also", variant="default")
                yield Button(self._yes, id="yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#yes" if self._default else "#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "also" and self._also is not None:
            self.dismiss(self._also[0])
        else:
            self.dismiss(event.button.id == "yes")

    def on_key(self, event: events.Key) -> None:
        if self._also is not None and event.key == self._also[0]:
            event.stop()
            self.dismiss(self._also[0])

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
