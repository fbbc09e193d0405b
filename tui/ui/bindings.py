"""Every key binding by scope: the app's own, what a keymap may remap (``binding_ids``), and the catalogue the
help screen and the command palette show (``key_catalogue``), with the keys in effect after the user's keymap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any

from textual.binding import Binding, BindingType

from tui.ui.screens.catalogue import SCREEN_BINDINGS
from tui.ui.screens.help import KeyHelp

if TYPE_CHECKING:
    from textual.app import App

__all__ = ["APP_BINDINGS", "KeyHelp", "binding_ids", "key_catalogue", "scopes"]

APP_BINDINGS: list[BindingType] = [
    Binding("q", "quit_app", "Quit", id="quit", tooltip="Quit (asks first while an order is being sent)"),
    Binding("question_mark", "help", "Help", id="help", tooltip="Show every key"),
    Binding("T", "next_theme", "Theme", id="next_theme", show=False, tooltip="Switch to the next xtui theme"),
    Binding("f12", "diagnostics", "Diagnostics", id="diagnostics", show=False,
            tooltip="Diagnostics: frame time, terminal bytes/s, CPU, memory, feed messages/s, data ages, rate budget"),
    *SCREEN_BINDINGS,
]  # fmt: skip


@cache
def scopes() -> list[tuple[str, list[BindingType]]]:
    """Every scope with bindings a keymap may remap, after the app's own. Its screens are imported here, on
    first use (help, the palette, a keymap to check), not for the first frame."""
    from tui.ui.screens.catalogue import screen_classes
    from tui.ui.screens.confirm import ConfirmScreen
    from tui.ui.screens.data_screen import DataScreen
    from tui.ui.screens.form import FormScreen
    from tui.ui.screens.main import MainScreen
    from tui.ui.screens.order_form import OrderFormScreen
    from tui.ui.screens.prompt import PromptScreen
    from tui.ui.widgets.book import OrderBookPane
    from tui.ui.widgets.markets import MarketsPane

    return [
        ("dashboard", MainScreen.BINDINGS),
        ("markets", MarketsPane.BINDINGS),
        ("order book", OrderBookPane.BINDINGS),
        ("order form", OrderFormScreen.BINDINGS),
        ("confirm", ConfirmScreen.BINDINGS),
        ("prompt", PromptScreen.BINDINGS),
        ("data screens", DataScreen.BINDINGS),
        *((name, screen.BINDINGS) for name, screen in screen_classes().items()),
        ("form", FormScreen.BINDINGS),
    ]


def _bindings(items: Iterable[BindingType]) -> list[Binding]:
    return [b for b in items if isinstance(b, Binding)]


def binding_ids() -> set[str]:
    """Every binding id a keymap may name."""
    from tui.ui.screens.help import HelpScreen

    every = [APP_BINDINGS, HelpScreen.BINDINGS, *(items for _, items in scopes())]
    return {b.id for items in every for b in _bindings(items) if b.id}


def key_catalogue(app: App[Any], app_bindings: Iterable[BindingType], keymap: Mapping[str, str]) -> list[KeyHelp]:
    """Every binding with an id, by scope, with the keys the keymap gives it."""
    out = []
    for scope, items in [("global", app_bindings), *scopes()]:
        for b in _bindings(items):
            if not b.id:
                continue
            keys = keymap.get(b.id, b.key)
            shown = ", ".join(app.get_key_display(replace(b, key=k.strip())) for k in keys.split(","))
            out.append(KeyHelp(scope, shown, b.description, b.id, b.tooltip, b.action))
    palette = Binding(app.COMMAND_PALETTE_BINDING, "command_palette", "Command palette")
    out.append(KeyHelp("global", app.get_key_display(palette), "Command palette", "command_palette", "", ""))
    out.append(KeyHelp("global", "tab, shift+tab", "Next / previous pane", "focus", "", ""))
    return out
