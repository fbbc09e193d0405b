"""One table of keys (``tui.ui.bindings``): wherever a key is pressed, it does one thing. The screen's bindings,
the focused widget's and the app's in effect there never share a key (bar the help's deliberate ``SHADOWS``), and
every screen or widget with bindings of its own is in the table, so a key added anywhere is checked."""

from __future__ import annotations

import importlib
import pkgutil

from textual.dom import DOMNode

import tui.ui
from tui.ui.bindings import contexts, key_clashes


def test_no_two_bindings_in_effect_in_one_place_share_a_key() -> None:
    """Every place (dashboard, its focused panes, each dialog and data screen) with the app's keys: no key twice."""
    assert key_clashes() == []


def test_the_check_finds_a_clash() -> None:
    """Mapped onto another key of its place, a binding is reported: the buy key on `s` (sell), the watchlist's
    app key on `o` (the wallet's withdraw)."""
    said = key_clashes({"buy": "s", "screen_watchlist": "o"})
    assert "dashboard: 's' is both buy and sell" in said
    assert "wallet: 'o' is both wallet.withdraw and screen_watchlist" in said


def test_every_class_with_bindings_is_in_the_table() -> None:
    """Each screen or widget of xtui with BINDINGS of its own (every module imported) is in some place's layers."""
    for module in pkgutil.walk_packages(tui.ui.__path__, "tui.ui."):
        importlib.import_module(module.name)
    listed = {id(layer_item) for layers in contexts().values() for layer in layers for layer_item in layer}
    pending: list[type[DOMNode]] = [DOMNode]
    missing = []
    while pending:
        cls = pending.pop()
        pending += cls.__subclasses__()
        own = cls.__dict__.get("BINDINGS")
        if cls.__module__.startswith("tui.") and own and not all(id(b) in listed for b in own):
            missing.append(f"{cls.__module__}.{cls.__qualname__}")
    assert missing == []
