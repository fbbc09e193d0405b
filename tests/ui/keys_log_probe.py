"""An app that writes every key it receives to a file, a line each (``paste <text>`` for a paste), run in a real
pty through xtui's own driver and parser, for ``test_escape_table``."""

from __future__ import annotations

import sys
from pathlib import Path

from textual import events
from textual.app import App
from textual.driver import Driver

from tui.ui.render.lean_output import LeanDriver


class KeysLogApp(App[None]):
    def __init__(self, out: Path) -> None:
        super().__init__()
        self.out = out

    def get_driver_class(self) -> type[Driver]:
        return LeanDriver

    def on_mount(self) -> None:
        self.out.write_text("ready\n")

    def _write(self, line: str) -> None:
        with self.out.open("a") as out:
            out.write(line + "\n")

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self._write(event.key)
        elif isinstance(event, events.Paste):
            self._write(f"paste {event.text}")
        else:
            await super().on_event(event)


if __name__ == "__main__":
    KeysLogApp(Path(sys.argv[1])).run()
