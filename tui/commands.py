"""The command palette's provider and the key catalogue the help screen shows.

Every command calls the same ``action_*`` method its key does, so the palette and the keys never
disagree. Keys shown are the ones in effect after the user's keymap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from tui.screens.catalogue import SCREENS
from tui.screens.confirm import ConfirmScreen
from tui.screens.data_screen import DataScreen
from tui.screens.form import FormScreen
from tui.screens.help import HelpScreen, KeyHelp
from tui.screens.main import MainScreen
from tui.screens.order_form import OrderFormScreen
from tui.screens.prompt import PromptScreen
from tui.widgets.markets import MarketsPane

if TYPE_CHECKING:
    from textual.app import App

__all__ = ["KeyHelp", "XtuiCommands", "binding_ids", "key_catalogue"]

# Every scope with bindings a keymap may remap, after the app's own.
SCOPES: list[tuple[str, Iterable[BindingType]]] = [
    ("dashboard", MainScreen.BINDINGS),
    ("markets", MarketsPane.BINDINGS),
    ("order form", OrderFormScreen.BINDINGS),
    ("confirm", ConfirmScreen.BINDINGS),
    ("prompt", PromptScreen.BINDINGS),
    ("data screens", DataScreen.BINDINGS),
    *((name, screen.BINDINGS) for name, screen in SCREENS.items()),
    ("form", FormScreen.BINDINGS),
]


def _bindings(items: Iterable[BindingType]) -> list[Binding]:
    return [b for b in items if isinstance(b, Binding)]


def binding_ids() -> set[str]:
    """Every binding id a keymap may name."""
    from tui.app import XtuiApp

    scopes = [XtuiApp.BINDINGS, HelpScreen.BINDINGS, *(items for _, items in SCOPES)]
    return {b.id for items in scopes for b in _bindings(items) if b.id}


def key_catalogue(app: App[Any], app_bindings: Iterable[BindingType], keymap: Mapping[str, str]) -> list[KeyHelp]:
    """Every binding with an id, by scope, with the keys the keymap gives it."""
    out = []
    for scope, items in [("global", app_bindings), *SCOPES]:
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


class XtuiCommands(Provider):
    """The dashboard's actions and the app's, by the same names the footer and help show."""

    def _commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        app = self.app
        main = next((s for s in app.screen_stack if isinstance(s, MainScreen)), None)
        # the data screen on top (under the palette), whose own actions are listed too
        data = next((s for s in reversed(app.screen_stack) if isinstance(s, DataScreen)), None)
        data_scopes = {"data screens", *(n for n, cls in SCREENS.items() if type(data) is cls)} if data else set()
        keymap: Mapping[str, str] = getattr(app, "keymap", {})
        out: list[tuple[str, str, Callable[[], Any]]] = []
        for item in key_catalogue(app, app.BINDINGS, keymap):
            if not item.action:
                continue
            targets: dict[str, Any] = {"global": app, "dashboard": main, **dict.fromkeys(data_scopes, data)}
            target = targets.get(item.scope)
            if target is None:
                continue
            title = item.tooltip or item.description
            help_text = escape(f"key {item.keys} · {item.description} · id {item.id}")
            out.append((title, help_text, partial(app.run_action, item.action, target)))
        return out

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(escape(title), callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
