"""The house holds its shape: one object is one class (no class but an exception stands on more than 3 of xtui's
own classes), no module is over 500 lines, and at most 6 modules are loose at the root of ``tui``."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import tui

ROOT = Path(tui.__file__).parent
MAX_PROJECT_ANCESTORS = 3
MAX_LINES = 500
MAX_LOOSE = 6


def project_classes() -> list[type]:
    found = []
    for info in pkgutil.walk_packages(tui.__path__, "tui."):
        if info.name.endswith("__main__"):  # runs when imported
            continue
        module = importlib.import_module(info.name)
        found += [c for c in vars(module).values() if inspect.isclass(c) and c.__module__ == info.name]
    return found


def test_no_class_but_an_exception_stands_on_more_than_three_of_our_own() -> None:
    """Inheritance is for kinds, not for splitting one object into files: the exchange (9 before), the order desk
    (5) and the feed (2) hold their parts now."""
    deep = {
        f"{c.__module__}.{c.__qualname__}": n
        for c in project_classes()
        if not issubclass(c, BaseException)
        and (n := sum(b.__module__.startswith("tui.") for b in c.__mro__[1:])) > MAX_PROJECT_ANCESTORS
    }
    assert deep == {}


def test_no_module_is_over_500_lines() -> None:
    sizes = {str(p.relative_to(ROOT)): len(p.read_text().splitlines()) for p in ROOT.rglob("*.py")}
    big = {path: n for path, n in sizes.items() if n > MAX_LINES}
    assert big == {}


def test_few_modules_are_loose_at_the_root() -> None:
    loose = sorted(p.name for p in ROOT.glob("*.py"))
    assert len(loose) <= MAX_LOOSE, loose
