"""``tui/ui/render/`` holds every use of Textual's private API, and nothing else does. Each private name it relies
on is named here, so a Textual upgrade that renames or moves one fails this test by name, before a trader meets
it; ruff (SLF001, TID251) keeps private reaches and imports out of the rest of ``tui``."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest
import textual
from textual._parser import Parser
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.driver import Driver
from textual.drivers._writer_thread import WriterThread
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable

import tui.ui

ROOT = Path(__file__).resolve().parents[2]
RENDER = ROOT / "tui" / "ui" / "render"

# (where, the private name, what render/ needs of it)
PRIVATES = [
    (App, "_check_bindings", "keys_in_order: async (key, priority=False) -> bool runs the bindings for a key"),
    (App, "_display", "lean_app: (screen, renderable) writes a frame; overridden to leave out what is shown"),
    (App, "_batch_count", "lean_app: > 0 while Textual holds its updates (a frame drawn then is dropped)"),
    (App, "_background_screens", "screens: the screens visible behind the top one"),
    (App, "_update_mouse_over", "screens: (screen) what Textual does after a background refresh"),
    (App, "_handle_exception", "crash_guard: (error) ends the app; wrapped to contain an error"),
    (App, "_exception", "crash_guard: the error run_test re-raises"),
    (App, "_notifications", "toasts: the notices shown, oldest first"),
    (App, "_refresh_notifications", "toasts: () shows the notices on the toast rack, as Notify's handler does"),
    (App, "_thread_id", "toasts: the app's thread: a notice shown at once only from it"),
    (App, "_unnotify", "toasts: (notification, refresh) takes a notice off"),
    (Screen, "_bindings", "screens: the screen's BindingsMap (key_to_bindings), read by LeanScreen.bound_to"),
    (Screen, "_callbacks", "keys_in_order: the callbacks a screen runs after its next refresh (call_after_refresh)"),
    (Screen, "_modal_binding_chain", "keys_in_order: [(node, bindings)] from the focused widget up to the app"),
    (Screen, "_clear_tooltip", "keys_in_order: () hides the tooltip, as Textual does before a key"),
    (Screen, "_compositor", "lean_app, screens: the screen's compositor"),
    (Screen, "_compositor_refresh", "screens: overridden to draw a change behind a dialog as its own lines"),
    (Screen, "_on_screen_resume", "screens: a handler Textual runs per class; the first resume skips styling"),
    (Screen, "_set_dirty", "screens: (*regions) marks regions of the screen"),
    (Screen, "_dirty_widgets", "screens: the widgets waiting to be drawn"),
    (Widget, "_forward_event", "keys_in_order: (event) posts an input event, marked forwarded"),
    (MessagePump, "_closing", "keys_in_order: the pump is closing"),
    (MessagePump, "_closed", "keys_in_order: the pump is closed"),
    (MessagePump, "_task", "keys_in_order: the pump's message loop task (None once it ended), awaited with a callback"),
    (DataTable, "_data", "cell_table: row key -> column key -> cell"),
    (DataTable, "_update_count", "cell_table: the key of DataTable's line caches; observed, to drop them"),
    (DataTable, "_cell_render_cache", "cell_table: cells drawn, keyed by _update_count among others"),
    (DataTable, "_row_render_cache", "cell_table: rows drawn, keyed by _update_count among others"),
    (DataTable, "_row_renderable_cache", "cell_table: rows' renderables, keyed by (_update_count, row)"),
    (DataTable, "_line_cache", "cell_table: lines drawn, keyed by _update_count among others"),
    (DataTable, "_row_locations", "cell_table: row key -> index"),
    (DataTable, "_column_locations", "cell_table: column key -> index"),
    (Driver, "_app", "lean_output: the app a driver serves"),
    (LinuxDriver, "_file", "lean_output: the file the writer thread writes to (sys.__stderr__); replaced"),
    (LinuxDriver, "_writer_thread", "lean_output: the thread that writes the frames to the terminal"),
    (Parser, "_timeout_time", "key_input: None unless the parser waits, with a deadline, for the key after an Escape"),
    (XTermParser, "_sequence_to_key_events", "key_input: (sequence, alt) -> keys; overridden for alt+letter"),
    (Message, "_no_default_action", "toasts: a handler called prevent_default on the Notify shown at once"),
    (WriterThread, "_queue", "lean_output: the writes waiting (a link slower than the output: the pacer holds)"),
]
MODULES = [  # (private module, the names render/ imports from it)
    ("textual._compositor", ["ChopsUpdate", "LayoutUpdate"]),
    ("textual._xterm_parser", ["XTermParser"]),
    ("textual._parser", ["ParseError"]),
    ("textual._ansi_sequences", ["ANSI_SEQUENCES_KEYS"]),  # key_input: Escape then a letter Textual maps itself
    ("textual._callback", ["invoke"]),
    ("textual._context", ["active_message_pump"]),
    ("textual._styles_cache", ["StylesCache"]),  # gone_widgets: its get_inner_outer's lru_cache is emptied
    ("textual.widgets._text_area", ["TextArea"]),  # keys_in_order: looked up in sys.modules, never imported
]
COMPOSITOR_FIELDS = ["_dirty_regions"]  # the compositor's, read and cleared by lean_app and screens
UPDATE_FIELDS = ["region", "strips"]  # a LayoutUpdate's, read by whole_frame


def defines(owner: type, name: str) -> bool:
    """``owner`` or an instance of it has ``name``: a class attribute, or one its ``__init__`` sets."""
    if any(name in vars(cls) for cls in owner.__mro__):
        return True
    return any(
        f"self.{name}" in inspect.getsource(cls) for cls in owner.__mro__ if cls.__module__.startswith("textual")
    )


@pytest.mark.parametrize(("owner", "name", "need"), PRIVATES, ids=[f"{o.__name__}.{n}" for o, n, _ in PRIVATES])
def test_each_private_name_render_relies_on_is_there(owner: type, name: str, need: str) -> None:
    """Textual still has ``name`` where render/ uses it (for: ``need``)."""
    assert defines(owner, name), f"{owner.__name__}.{name} is gone: {need}"


@pytest.mark.parametrize(("module", "names"), MODULES, ids=[m for m, _ in MODULES])
def test_each_private_module_render_imports_still_has_its_names(module: str, names: list[str]) -> None:
    found = importlib.import_module(module)
    assert [n for n in names if not hasattr(found, n)] == []


def test_the_compositor_and_its_updates_still_have_their_fields() -> None:
    from textual._compositor import Compositor, LayoutUpdate

    assert all(defines(Compositor, f) for f in COMPOSITOR_FIELDS)
    assert set(UPDATE_FIELDS) <= set(inspect.signature(LayoutUpdate.__init__).parameters)


def test_the_cache_that_keeps_gone_widgets_is_still_an_lru_cache_on_a_method() -> None:
    """``gone_widgets`` empties it; a Textual that no longer caches per StylesCache there makes it needless."""
    from textual._styles_cache import StylesCache

    assert hasattr(StylesCache.get_inner_outer, "cache_clear")
    assert next(iter(inspect.signature(StylesCache.get_inner_outer).parameters)) == "cls"  # the instance, named cls


def test_check_bindings_takes_a_key_and_a_priority() -> None:
    check = App._check_bindings  # private: this file pins the private parts of Textual the product relies on
    assert list(inspect.signature(check).parameters) == ["self", "key", "priority"]
    assert inspect.iscoroutinefunction(check)


def test_the_input_thread_render_replaces_is_the_one_textual_runs() -> None:
    """``LeanDriver.run_input_thread`` replaces Textual's; Textual's must still read with ``XTermParser`` and hand
    events to ``process_message``, or render/key_input has fallen out of step with it."""
    source = inspect.getsource(LinuxDriver.run_input_thread)
    assert "XTermParser(" in source and "self.process_message(event)" in source and "parser.tick" in source
    assert "exit_event" in inspect.getsource(LinuxDriver)


def own_names(source: str) -> set[str]:
    """The private names a render module gives itself: what it assigns, its functions, its own classes' methods
    that no Textual class has."""
    tree = ast.parse(source)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    textual_privates = {name for owner, name, _ in PRIVATES}
    return {n for n in names if n.startswith("_") and n not in textual_privates}


def test_render_uses_no_private_name_this_test_does_not_name() -> None:
    """Every ``x._name`` that render/ reads or overrides is named above, or is one render/ defines itself."""
    named = {name for _, name, _ in PRIVATES} | set(COMPOSITOR_FIELDS) | {m.rsplit(".", 1)[1] for m, _ in MODULES}
    for path in RENDER.glob("*.py"):
        source = path.read_text()
        used = set(re.findall(r"(?<!textual)\.(_[a-z][a-z_]*)\b", source))
        assert used - named - own_names(source) == set(), path.name


def test_no_textual_private_import_outside_render() -> None:
    outside = [
        str(p.relative_to(ROOT)) for p in (ROOT / "tui").rglob("*.py")
        if RENDER not in p.parents and re.search(r"\btextual\._[a-z]", p.read_text())
    ]  # fmt: skip
    assert outside == []


def test_no_class_outside_render_overrides_a_textual_private_method() -> None:
    """A screen, widget or app of xtui's that defines ``_name`` Textual also defines would be a private patch
    outside the fence."""
    offenders = []
    for info in pkgutil.walk_packages(tui.ui.__path__, "tui.ui."):
        if info.name.startswith("tui.ui.render"):
            continue
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if not (inspect.isclass(cls) and cls.__module__ == info.name):
                continue
            textual_bases = [b for b in cls.__mro__[1:] if b.__module__.startswith("textual")]
            for name, value in vars(cls).items():
                private = name.startswith("_") and not name.startswith("__") and inspect.isfunction(value)
                if private and any(inspect.isfunction(vars(b).get(name)) for b in textual_bases):
                    offenders.append(f"{info.name}.{cls.__name__}.{name}")
    assert offenders == []


def test_the_pin_is_the_minor_version_this_contract_was_proven_on() -> None:
    """pyproject.toml allows Textual 8.2.x only: a new minor version must pass this file first."""
    text = (ROOT / "pyproject.toml").read_text()
    assert '"textual>=8.2.8,<8.3"' in text and textual.__version__.startswith("8.2.")
