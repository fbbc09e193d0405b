"""The keys reference: every binding of the one key table (``tui.ui.bindings``), by the place it acts, with its id
(what a keymap remaps) and what it does, as the help screen (``?``) shows them before any keymap."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tui.reference.markdown import code, page, table

__all__ = ["key_names", "key_scopes", "keys_page"]

COMMAND_PALETTE = "ctrl+p"
ARROWS = "↑↓←→"


def key_name(key: str) -> str:
    """A key as a reader presses it: ``question_mark`` is ``?``, ``escape`` is ``Escape``, ``shift+up`` ``shift+↑``."""
    from textual.keys import format_key

    *modifiers, last = key.strip().split("+")
    shown = format_key(last)
    if len(last) > 1 and not (len(shown) == 1 and (shown in ARROWS or (shown.isascii() and not shown.isalnum()))):
        shown = last.capitalize()  # a named key: Escape, Enter, Space, F12 (Textual shows esc, ⏎)
    return "+".join([*modifiers, shown])


def key_names(keys: str) -> list[str]:
    """Each key of a binding's comma-separated ``keys``, as ``key_name`` shows it."""
    return [key_name(k) for k in keys.split(",") if k.strip()]


def key_scopes() -> list[tuple[str, Sequence[object]]]:
    """Every scope of the key table, the app's own first and the help's next, as the help screen lists them."""
    from tui.ui.bindings import APP_BINDINGS, scopes
    from tui.ui.screens.help import HelpScreen

    return [("global", APP_BINDINGS), ("help", HelpScreen.BINDINGS), *scopes()]


def _rows(items: Iterable[object]) -> list[list[str]]:
    from textual.binding import Binding

    rows = []
    for b in items:
        if isinstance(b, Binding):
            keys = " ".join(code(k) for k in key_names(b.key))
            rows.append([keys, code(b.id) if b.id else "", b.tooltip or b.description])
    return rows


def keys_page() -> str:
    sections = []
    for scope, items in key_scopes():
        rows = _rows(items)
        if rows:
            sections.append(f"## {scope}\n\n" + table(["key", "id", "what it does"], rows))
    return page(
        "Keys reference",
        "Every key, by the place it acts, before any keymap: `?` in the dashboard shows the keys in force. The id "
        "is what a profile's keymap remaps ([configuration.md](configuration.md#profilesname)); a key without an id "
        f"is not remapped. Everywhere, {code(COMMAND_PALETTE)} opens the command palette (every action by name) and "
        f"{code('Tab')} / {code('shift+Tab')} move to the next / previous pane. What the keys are for, task by task: "
        "[the keys guide](../keys.md).",
        sections,
    )
