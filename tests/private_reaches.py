"""Where the tests reach into what is private: an attribute or function whose name starts with one underscore,
of anything but the test's own ``self`` or ``cls`` (``app._display``, ``textual._parser``), a name starting with
one underscore imported from ``tui`` (``from tui.x import _helper``), or such a name given as a string to
``setattr``, ``getattr``, ``hasattr``, ``delattr`` or ``monkeypatch.setattr``. Dunders are not private, nor a named
tuple's own methods (``_replace``, ``_asdict``, ``_fields``, ``_make``).

A reach is counted once a line. Each one says why it is there: a comment holding ``private:`` on its line or on the
comment line just above it. ``python -m tests.private_reaches`` lists them and counts them."""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path

__all__ = ["TESTS", "Reach", "reaches", "reaches_in"]

TESTS = Path(__file__).resolve().parent
WHY = "private:"
_NAMED_TUPLE = frozenset({"_replace", "_asdict", "_fields", "_make"})
_BY_NAME = frozenset({"setattr", "getattr", "hasattr", "delattr"})


@dataclass(frozen=True)
class Reach:
    path: Path
    line: int
    names: tuple[str, ...]
    why: bool  # a ``private:`` comment says why

    def __str__(self) -> str:
        return f"{self.path.relative_to(TESTS.parent)}:{self.line}: {', '.join(self.names)}" + (
            "" if self.why else "  (no '# private:' comment)"
        )


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in _NAMED_TUPLE


def _names(tree: ast.AST) -> dict[int, list[str]]:
    """The private names each line reaches."""
    found: dict[int, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.setdefault(node.lineno, []).append(node.attr)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tui":
            for alias in node.names:
                if _private(alias.name):
                    found.setdefault(node.lineno, []).append(alias.name)
        elif isinstance(node, ast.Call) and len(node.args) >= 2:
            func = node.func
            called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            name = node.args[1]
            text = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else ""
            if called in _BY_NAME and _private(text):
                found.setdefault(name.lineno, []).append(text)
    return found


def _comments(source: str) -> dict[int, tuple[str, bool]]:
    """Each comment's text by line, and whether the line holds nothing else."""
    comments: dict[int, tuple[str, bool]] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            alone = not token.line[: token.start[1]].strip()
            comments[token.start[0]] = (token.string, alone)
    return comments


def reaches_in(path: Path) -> list[Reach]:
    source = path.read_text(encoding="utf-8")
    comments = _comments(source)
    found = []
    for line, names in sorted(_names(ast.parse(source)).items()):
        own = WHY in comments.get(line, ("", False))[0]
        above, alone = comments.get(line - 1, ("", False))
        found.append(Reach(path, line, tuple(names), own or (alone and WHY in above)))
    return found


def reaches(root: Path = TESTS) -> list[Reach]:
    """Every private reach in the tests below ``root``."""
    return [reach for path in sorted(root.rglob("*.py")) for reach in reaches_in(path)]


if __name__ == "__main__":
    every = reaches()
    for reach in every:
        print(reach)
    print(f"{len(every)} private reaches, {sum(not r.why for r in every)} without a reason")
