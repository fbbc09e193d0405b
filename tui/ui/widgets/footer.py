"""The footer: the keys the screen and its focused widget offer, drawn as one line of text.

Textual's Footer is a row of widgets, one per key (some forty mounted on the dashboard), composed afresh
whenever the bindings may have changed: focus moving, a dialog closing, each a layout pass of the whole screen
on the path from Enter to the acknowledgement. Here the keys are a list of text runs: the
first frame has them, and a change of keys repaints one line. It looks as Textual's compact footer does
(its theme variables: ``$footer-key-foreground`` and the rest), and a click on a key presses it.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget

__all__ = ["Footer", "FooterKey"]

SEPARATOR = "▏"  # before the command palette's key, at the right


class FooterKey(NamedTuple):
    """A key as the footer shows it."""

    key: str  # the key pressed, as a binding names it
    display: str  # as it is shown
    description: str
    enabled: bool

    @property
    def text(self) -> str:
        return f"{self.display} {self.description}" if self.description else self.display


class Footer(Widget, can_focus=False):
    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {"footer--key", "footer--description", "footer--separator"}
    DEFAULT_CSS = """
    Footer {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        .footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .footer--separator {
            color: $foreground 20%;
        }
    }
    """

    def __init__(self, *, show_command_palette: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.show_command_palette = show_command_palette
        self.keys: tuple[FooterKey, ...] = ()  # on the left, in the bindings' order
        self.palette: FooterKey | None = None  # on the right
        self._spans: list[tuple[int, int, FooterKey]] = []  # the columns each key takes, as last drawn

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        """``screen``'s bindings may have changed (focus moved, a dialog closed): one line is repainted if the
        keys they offer did."""
        if screen is self.screen and self._read() != (self.keys, self.palette):
            self.refresh()

    def _read(self) -> tuple[tuple[FooterKey, ...], FooterKey | None]:
        """The keys of the screen's active bindings (the first of each action), and the palette's."""
        app = self.app
        active = self.screen.active_bindings
        keys: list[FooterKey] = []
        actions: set[str] = set()
        for _, binding, enabled, _ in active.values():
            if binding.show and binding.action not in actions:
                actions.add(binding.action)
                keys.append(FooterKey(binding.key, app.get_key_display(binding), binding.description, enabled))
        palette: FooterKey | None = None
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _, binding, enabled, _ = active[app.COMMAND_PALETTE_BINDING]
            palette = FooterKey(binding.key, app.get_key_display(binding), binding.description, enabled)
        return tuple(keys), palette

    def text(self) -> str:
        """The keys as plain text (what a test reads)."""
        return " ".join(key.text for key in self.keys) + (f" {self.palette.text}" if self.palette else "")

    def render(self) -> Text:
        self.keys, self.palette = self._read()  # as they are now: the first frame comes before any signal
        width = self.size.width
        key_style = self.get_component_rich_style("footer--key")
        description_style = self.get_component_rich_style("footer--description")
        right = Text()
        if self.palette is not None:
            right.append(SEPARATOR, self.get_component_rich_style("footer--separator"))
            self._append(right, self.palette, key_style, description_style)
            right.append(" ")
        room = max(0, width - right.cell_len)
        line = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, FooterKey]] = []
        for key in self.keys:
            if line.cell_len + cell_len(key.text) > room:
                break  # no key shown cut: what does not fit is left out (? lists every key)
            start = line.cell_len
            self._append(line, key, key_style, description_style)
            spans.append((start, line.cell_len, key))
            line.append(" ")
        line.append(" " * (room - line.cell_len))
        if self.palette is not None:
            spans.append((room + cell_len(SEPARATOR), width - 1, self.palette))
        line.append_text(right)
        self._spans = spans
        return line

    @staticmethod
    def _append(line: Text, key: FooterKey, key_style: Style, description_style: Style) -> None:
        dim = Style(dim=True) if not key.enabled else Style()
        line.append(key.display, key_style + dim)
        if key.description:
            line.append(" " + key.description, description_style + dim)

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                if key.enabled:
                    self.app.simulate_key(key.key)
                else:
                    self.app.bell()
                return
