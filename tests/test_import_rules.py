"""The layering rules of ARCHITECTURE.md, checked on the source so that a violation fails CI."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "tui"
CORE = ["api", "feed", "sim", "config.py", "config_text.py", "config_values.py", "keys.py", "logs.py"]


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the module's package
                pkg = path.relative_to(ROOT.parent).with_suffix("").parts[: -node.level]
                base = ".".join(pkg)
                names.add(f"{base}.{node.module}" if node.module else base)
            elif node.module:
                names.add(node.module)
    return names


def _files(part: str) -> list[Path]:
    p = ROOT / part
    return sorted(p.rglob("*.py")) if p.is_dir() else [p] if p.exists() else []


@pytest.mark.parametrize("part", CORE)
def test_core_never_imports_textual(part: str) -> None:
    for f in _files(part):
        bad = {n for n in _imports(f) if n.split(".")[0] in ("textual", "textual_plotext", "plotext")}
        assert not bad, f"{f} imports {bad}"


def test_api_imports_nothing_else_of_tui() -> None:
    for f in _files("api"):
        bad = {n for n in _imports(f) if n.startswith("tui.") and not n.startswith("tui.api")}
        assert not bad, f"{f} imports {bad}"


def test_sim_imports_only_api_of_the_rest() -> None:
    for f in _files("sim"):
        bad = {n for n in _imports(f) if n.startswith("tui.") and not n.startswith(("tui.api", "tui.sim"))}
        assert not bad, f"{f} imports {bad}"


def test_api_keeps_eth_account_off_the_signing_path() -> None:
    for f in _files("api"):
        assert "eth_account" not in {n.split(".")[0] for n in _imports(f)}, f
