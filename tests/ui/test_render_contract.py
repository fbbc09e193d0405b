"""``tui/ui/render/`` holds xtui's uses of Textual's private API. Each one it relies on is named here, so a
Textual upgrade that renames or moves one fails this test by name, before a trader meets it."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from textual.app import App
from textual.drivers.linux_driver import LinuxDriver
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.widget import Widget

RENDER = Path(__file__).resolve().parents[2] / "tui" / "ui" / "render"

# (where, the private name, what xtui needs of it)
PRIVATES = [
    (App, "_check_bindings", "async (key, priority=False) -> bool: runs the bindings for a key"),
    (Screen, "_modal_binding_chain", "[(node, bindings)] from the focused widget up to the app"),
    (Screen, "_clear_tooltip", "() hides the tooltip, as Textual does before a key"),
    (Widget, "_forward_event", "(event) posts an input event, marked forwarded"),
    (MessagePump, "_closing", "bool: the pump is closing"),
    (MessagePump, "_closed", "bool: the pump is closed"),
]


@pytest.mark.parametrize(("owner", "name", "need"), PRIVATES, ids=[f"{o.__name__}.{n}" for o, n, _ in PRIVATES])
def test_each_private_name_render_relies_on_is_there(owner: type, name: str, need: str) -> None:
    """Textual still has ``name`` where render/ uses it (for: ``need``)."""
    assert hasattr(owner, name) or name in inspect.getsource(owner), f"{owner.__name__}.{name} is gone: {need}"


def test_check_bindings_takes_a_key_and_a_priority() -> None:
    assert list(inspect.signature(App._check_bindings).parameters) == ["self", "key", "priority"]
    assert inspect.iscoroutinefunction(App._check_bindings)


def test_the_input_thread_render_replaces_is_the_one_textual_runs() -> None:
    """``LeanDriver.run_input_thread`` replaces Textual's; Textual's must still read with ``XTermParser`` and hand
    events to ``process_message``, or render/key_input has fallen out of step with it."""
    from textual._parser import ParseError  # noqa: F401  # render/key_input catches it
    from textual._xterm_parser import XTermParser

    source = inspect.getsource(LinuxDriver.run_input_thread)
    assert "XTermParser(" in source and "self.process_message(event)" in source and "parser.tick" in source
    assert {"debug"} <= set(inspect.signature(XTermParser.__init__).parameters)
    assert hasattr(LinuxDriver, "exit_event") or "self.exit_event" in inspect.getsource(LinuxDriver)


def test_render_uses_no_private_name_this_test_does_not_name() -> None:
    """Every ``obj._name`` that render/ reads on a Textual object is in PRIVATES (its own are underscored too:
    those are the attributes its classes define)."""
    named = {name for _, name, _ in PRIVATES}
    own = {"_held_escape", "_pasting", "_escapes_kept", "_settle", "_bound"}
    used = set()
    for path in RENDER.glob("*.py"):
        used |= set(re.findall(r"(?<!textual)\.(_[a-z][a-z_]*)\b", path.read_text()))
    assert used - named - own == set()


def test_the_private_modules_render_imports_are_imported_nowhere_else() -> None:
    """``textual._parser`` and ``textual._xterm_parser`` are imported in render/ only."""
    tui = RENDER.parents[1]
    outside = [
        p for p in tui.rglob("*.py")
        if RENDER not in p.parents and re.search(r"textual\._(xterm_)?parser", p.read_text())
    ]  # fmt: skip
    assert outside == []
