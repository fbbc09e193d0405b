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

__all__ = ["APP_BINDINGS", "SHADOWS", "KeyHelp", "binding_ids", "contexts", "key_catalogue", "key_clashes", "scopes"]

APP_BINDINGS: list[BindingType] = [
    Binding("q", "quit_app", "Quit", id="quit", tooltip="Quit (asks first while an order is being sent)"),
    Binding("question_mark", "help", "Help", id="help", tooltip="Show every key"),
    Binding("Y", "next_layout", "Layout", id="next_layout", show=False,
            tooltip="Next saved layout (several markets at once, panes where you put them), then the dashboard's own"),
    Binding("at", "switch_account", "Account", id="switch_account", show=False,
            tooltip="Trade as another account: the config's profiles (own key, agent, watch-only, paper), in place"),
    Binding("T", "next_theme", "Theme", id="next_theme", show=False, tooltip="Switch to the next xtui theme"),
    Binding("f12", "diagnostics", "Diagnostics", id="diagnostics", show=False,
            tooltip="Diagnostics: frame time, terminal bytes/s, CPU, memory, feed messages/s, data ages, rate budget"),
    *SCREEN_BINDINGS,
]  # fmt: skip


@cache
def scopes() -> list[tuple[str, list[BindingType]]]:
    """Every scope with bindings a keymap may remap, after the app's own. Its screens are imported here, on
    first use (help, the palette, a keymap to check), not for the first frame."""
    from tui.ui.screens.accounts import AccountsScreen, PasswordScreen, RunningToolsScreen
    from tui.ui.screens.catalogue import screen_classes
    from tui.ui.screens.confirm import ConfirmScreen
    from tui.ui.screens.data_screen import DataScreen
    from tui.ui.screens.form import FormScreen
    from tui.ui.screens.form_controls import FormCheckbox, FormSelect
    from tui.ui.screens.heatmap import HeatmapScreen
    from tui.ui.screens.ladder import LadderScreen
    from tui.ui.screens.layout_screen import LayoutScreen
    from tui.ui.screens.live_screen import LiveScreen
    from tui.ui.screens.main import MainScreen
    from tui.ui.screens.order_form import OrderFormScreen
    from tui.ui.screens.prompt import PromptScreen
    from tui.ui.widgets.book import OrderBookPane
    from tui.ui.widgets.markets import MarketsPane

    return [
        ("dashboard", MainScreen.BINDINGS),
        ("layout", LayoutScreen.BINDINGS),
        ("ladder", LadderScreen.BINDINGS),
        ("heatmap", HeatmapScreen.BINDINGS),
        ("ladder, heatmap", LiveScreen.BINDINGS),
        ("markets", MarketsPane.BINDINGS),
        ("order book", OrderBookPane.BINDINGS),
        ("order form", OrderFormScreen.BINDINGS),
        ("form fields", [*FormSelect.BINDINGS, *FormCheckbox.BINDINGS]),
        ("confirm", ConfirmScreen.BINDINGS),
        ("prompt", PromptScreen.BINDINGS),
        ("data screens", DataScreen.BINDINGS),
        *((name, screen.BINDINGS) for name, screen in screen_classes().items()),
        ("form", FormScreen.BINDINGS),
        ("accounts", AccountsScreen.BINDINGS),
        ("password", PasswordScreen.BINDINGS),
        ("running tools", RunningToolsScreen.BINDINGS),
    ]


# A dialog's own key standing in for the app's while it is open, on purpose: the help closes on ? and q.
# In a layout's markets pane, Escape clears the filter being typed before it goes back to the dashboard.
SHADOWS: frozenset[tuple[str, str]] = frozenset(
    {("help", "question_mark"), ("help", "q"), ("layout markets", "escape")}
)


def _merged(cls: type[Any]) -> list[BindingType]:
    """A screen's or widget's bindings as Textual merges them, xtui's classes' own (Textual's own navigation keys,
    which xtui's widgets replace on purpose, left out), the most derived last."""
    out: list[BindingType] = []
    for klass in reversed(cls.__mro__):
        if "BINDINGS" in klass.__dict__ and klass.__module__.startswith("tui."):
            out += klass.__dict__["BINDINGS"]
    return out


@cache
def contexts() -> dict[str, list[list[BindingType]]]:
    """Every place keys act, with the bindings in effect there, nearest first: the focused widget's (where it has
    its own), its screen's and the app's. Built from ``scopes``, the one table of every binding."""
    from tui.ui.screens.accounts import AccountsScreen, PasswordScreen, RunningToolsScreen
    from tui.ui.screens.catalogue import screen_classes
    from tui.ui.screens.confirm import ConfirmScreen
    from tui.ui.screens.form import FormScreen
    from tui.ui.screens.form_controls import FormCheckbox, FormSelect
    from tui.ui.screens.heatmap import HeatmapScreen
    from tui.ui.screens.help import HelpScreen
    from tui.ui.screens.ladder import LadderScreen
    from tui.ui.screens.layout_screen import LayoutScreen
    from tui.ui.screens.main import MainScreen
    from tui.ui.screens.order_form import OrderFormScreen
    from tui.ui.screens.prompt import PromptScreen
    from tui.ui.widgets.book import OrderBookPane
    from tui.ui.widgets.book_lines import BookLines
    from tui.ui.widgets.depth_chart import DepthChart
    from tui.ui.widgets.key_table import KeyTable
    from tui.ui.widgets.ladder import LadderLines
    from tui.ui.widgets.markets import MarketsPane

    main = _merged(MainScreen)
    book = _merged(OrderBookPane)
    places: dict[str, list[list[BindingType]]] = {
        "dashboard": [main, APP_BINDINGS],
        "markets": [_merged(MarketsPane), main, APP_BINDINGS],
        "order book": [_merged(BookLines), book, main, APP_BINDINGS],
        "depth chart": [_merged(DepthChart), book, main, APP_BINDINGS],
        "layout": [_merged(LayoutScreen), APP_BINDINGS],
        "layout book": [_merged(BookLines), book, _merged(LayoutScreen), APP_BINDINGS],
        "layout markets": [_merged(MarketsPane), _merged(LayoutScreen), APP_BINDINGS],
        "order form": [_merged(OrderFormScreen), APP_BINDINGS],
        "order form choice": [_merged(FormSelect), _merged(OrderFormScreen), APP_BINDINGS],
        "order form box": [_merged(FormCheckbox), _merged(OrderFormScreen), APP_BINDINGS],
        "ladder": [_merged(LadderLines), _merged(LadderScreen), APP_BINDINGS],
        "heatmap": [_merged(HeatmapScreen), APP_BINDINGS],
        "confirm": [_merged(ConfirmScreen), APP_BINDINGS],
        "prompt": [_merged(PromptScreen), APP_BINDINGS],
        "form": [_merged(FormScreen), APP_BINDINGS],
        "help": [_merged(KeyTable), _merged(HelpScreen), APP_BINDINGS],
        "accounts": [_merged(AccountsScreen), APP_BINDINGS],
        "password": [_merged(PasswordScreen), APP_BINDINGS],
        "running tools": [_merged(RunningToolsScreen), APP_BINDINGS],
    }
    places.update((name, [_merged(screen), APP_BINDINGS]) for name, screen in screen_classes().items())
    return places


def key_clashes(keymap: Mapping[str, str] | None = None) -> list[str]:
    """Every key that two bindings in effect in one place share (after ``keymap``), in words; the deliberate
    ``SHADOWS`` aside. Empty: every key does one thing wherever it is pressed."""
    keymap = keymap or {}
    out = []
    for place, layers in contexts().items():
        seen: dict[str, str] = {}
        for b in (b for layer in layers for b in _bindings(layer)):
            name = b.id or b.action
            for key in (k.strip() for k in keymap.get(b.id or "", b.key).split(",")):
                if key in seen and seen[key] != name and (place, key) not in SHADOWS:
                    out.append(f"{place}: {key!r} is both {seen[key]} and {name}")
                seen.setdefault(key, name)
    return out


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
