"""No import cycles in ``tui``, typing-only ones included: each module's imports, read from its source with ``ast``,
make a graph of modules, and no two modules may reach each other in it.

What counts as an import of module A by module B (an arrow B -> A):

- every ``import`` and ``from ... import`` statement in B, wherever it stands: at module level, inside a function or
  class, under ``if TYPE_CHECKING:``, in a ``try``. A typing-only cycle is a cycle: the two modules cannot be read,
  typed or moved one without the other.
- ``import tui.x.y`` is an arrow to ``tui.x.y``; relative imports are resolved against B's package (B itself when B
  is a package's ``__init__``).
- ``from P import N`` is an arrow to the submodule ``P.N`` when ``P/N.py`` or ``P/N/__init__.py`` exists, else to
  ``P`` (its ``__init__``: a name defined or re-exported there).
- Python runs a package's ``__init__`` before any of its submodules, but that is no arrow: only what a module names
  counts. So an ``__init__`` that re-exports its submodules is no cycle with them; a submodule that imports a name
  from its own package's ``__init__`` makes a cycle only if that ``__init__`` imports the submodule (directly, or
  through others that do): it then runs half-initialised, one waiting on the other.
- Modules outside ``tui`` (the standard library, Textual, ...) are left out; ``importlib.import_module`` with a
  string is not read.

A cycle is a strongly connected component of more than one module (Tarjan's algorithm); the failure names each
arrow that ties it with the names the importer takes.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import tui

ROOT = Path(tui.__file__).parent

Graph = dict[str, dict[str, set[str]]]  # importer -> imported -> the names it takes


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package at ``root`` by its dotted name (a package by its own name: its ``__init__``)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join([package, *parts])] = path
    return found


def _base(importer: str, is_package: bool, level: int, module: str | None) -> str:
    """The module a ``from`` import names, relative imports resolved against the importer's package."""
    if not level:
        return module or ""
    parts = importer.split(".")
    if not is_package:
        parts.pop()
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join([*parts, module] if module else parts)


def import_graph(root: Path, package: str) -> Graph:
    """The module graph of the package at ``root``: every arrow, with the names taken through it."""
    modules = module_names(root, package)
    graph: Graph = {name: defaultdict(set) for name in modules}
    for importer, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = alias.name
                    while target and target not in modules:  # ``import a.b.c`` of a name that is no module
                        target = target.rpartition(".")[0]
                    if target:
                        graph[importer][target].add(alias.name)
            elif isinstance(node, ast.ImportFrom):
                base = _base(importer, is_package, node.level, node.module)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if sub in modules:
                        graph[importer][sub].add(alias.name)
                    elif base in modules:
                        graph[importer][base].add(alias.name)
    for importer, arrows in graph.items():
        arrows.pop(importer, None)  # a package's ``from . import x`` of a name of its own
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module, each sorted (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def described(graph: Graph, found: list[list[str]]) -> str:
    """Each cycle, and the arrows that tie it: ``a -> b: the names a takes from b``."""
    lines = []
    for number, component in enumerate(found, 1):
        lines.append(f"cycle {number}: {', '.join(component)}")
        members = set(component)
        for importer in component:
            for target, names in sorted(graph[importer].items()):
                if target in members:
                    lines.append(f"  {importer} -> {target}: {', '.join(sorted(names))}")
    return "\n".join(lines)


def test_no_import_cycles_in_tui() -> None:
    graph = import_graph(ROOT, "tui")
    found = cycles(graph)
    report = described(graph, found)
    print(report)
    assert not found, f"import cycles in tui:\n{report}"


def test_the_graph_reads_every_kind_of_import() -> None:
    """Arrows the rules above make, on modules of xtui itself: a typing-only import, one inside a function, a
    relative one, ``from P import submodule`` and ``from P import a name of P's __init__``."""
    graph = import_graph(ROOT, "tui")
    assert "Exchange" in graph["tui.sim.mirror.market"]["tui.sim.engine"]  # a name of the package's __init__
    assert "market_queries" not in graph["tui.sim.engine.exchange"]
    assert "OrderBook" in graph["tui.sim.engine.markets"]["tui.sim.engine.book"]
    assert "ReplaySource" in graph["tui.sim.server.local_exchange"]["tui.sim.mirror.replay"]  # inside a function
    assert "Exchange" in graph["tui.sim.mirror.record"]["tui.sim.engine"]  # under ``if TYPE_CHECKING:``
    assert "tui.sim.engine" not in graph["tui.sim.engine.exchange"]  # the package runs first, but is not named


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_a_cycle_is_found_however_it_is_written(tmp_path: Path) -> None:
    pkg = _tree(
        tmp_path,
        {
            "__init__.py": "from .a import A\n",
            "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\nclass A: ...\n",
            "b.py": "def f():\n    from pkg.c import C\nclass B: ...\n",
            "c.py": "from . import a\nC = 1\n",
            "d.py": "import pkg.sub.e\n",
            "sub/__init__.py": "",
            "sub/e.py": "from .. import A\nfrom ..d import nothing\n",
        },
    )
    graph = import_graph(pkg, "pkg")
    found = cycles(graph)
    assert found == [["pkg.a", "pkg.b", "pkg.c"], ["pkg.d", "pkg.sub.e"]]  # ``pkg`` imports ``a``, nothing of it back
    assert "pkg.c -> pkg.a: a" in described(graph, found)


def test_re_exports_in_an_init_are_no_cycle(tmp_path: Path) -> None:
    """``pkg/__init__`` re-exports ``a``; ``b`` takes a name of the package: no cycle, as ``__init__`` never
    imports ``b``. Once it does, ``b`` and the ``__init__`` wait on each other."""
    files = {"__init__.py": "from .a import A\n", "a.py": "A = 1\n", "b.py": "from pkg import A\n"}
    assert cycles(import_graph(_tree(tmp_path, files), "pkg")) == []
    files["__init__.py"] += "from .b import *\n"
    assert cycles(import_graph(_tree(tmp_path, files), "pkg")) == [["pkg", "pkg.b"]]
