"""A one-field app for the key-order tests, run in a real pty through xtui's own driver: each Enter writes the
field's value to a file as a line (``submit <value>``), each Escape writes ``cancel <value>``, and the field is
set back to its first value. The form is a screen, reading its field when Enter is handled, as xtui's are.
``--textual`` leaves keys to Textual alone, to show what xtui's order fixes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, ClassVar

from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.driver import Driver
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from tui.ui.render.keys_in_order import KeysInOrder
from tui.ui.render.lean_output import LeanDriver


class ProbeForm(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, out: Path, first: str) -> None:
        super().__init__()
        self.out, self.first = out, first

    def compose(self) -> ComposeResult:
        yield Input(self.first, id="field", select_on_focus=False)

    def on_mount(self) -> None:
        self.out.write_text("ready\n")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self._record("submit")

    def action_cancel(self) -> None:
        self._record("cancel")

    def _record(self, what: str) -> None:
        field = self.query_one(Input)
        with self.out.open("a") as out:
            out.write(f"{what} {field.value}\n")
        field.value = self.first
        field.cursor_position = len(self.first)


class KeysProbe(App[None]):
    def __init__(self, out: Path, first: str, *, ordered: bool) -> None:
        self.keys = KeysInOrder(self) if ordered else None
        super().__init__()
        self.out, self.first = out, first

    def on_mount(self) -> None:
        self.push_screen(ProbeForm(self.out, self.first))

    def get_driver_class(self) -> type[Driver]:
        return LeanDriver

    async def on_event(self, event: events.Event) -> None:
        if self.keys is not None and await self.keys.take(event):
            return
        await super().on_event(event)

    def post_message(self, message: Message) -> bool:
        if self.keys is not None and self.keys.caught(message):
            return True
        return super().post_message(message)


def main(argv: list[str]) -> Any:
    out, first, *flags = argv
    KeysProbe(Path(out), first, ordered="--textual" not in flags).run()


if __name__ == "__main__":
    main(sys.argv[1:])
