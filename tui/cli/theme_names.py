"""``--theme``'s names, read without Textual: the ``name`` of each theme file xtui ships and of the user's own.

``tui.ui.themes`` makes Textual themes of the same files; it imports Textual, which the command line does not
load at start. This reads the names only, for the one line that refuses an unknown ``--theme`` before anything
starts (the dashboard checks the files in full when it loads them; a file that cannot be read is left out here).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

__all__ = ["shipped_theme_dir", "theme_names"]

MAX_THEME_BYTES = 256 << 10  # as tui.ui.themes: a theme is ~1 KB


def shipped_theme_dir() -> Path:
    """themes/ at the top of the source tree, or tui/_themes in a wheel (as ``tui.ui.themes.THEME_DIR``)."""
    package = Path(__file__).resolve().parent.parent
    packaged = package / "_themes"
    return packaged if packaged.is_dir() else package.parent / "themes"


def _names_in(directory: Path) -> list[str]:
    from tui.edges.bounded_parse import parse_json, parse_toml, read_capped

    if not directory.is_dir():
        return []
    names = []
    for path in sorted(p for p in directory.iterdir() if p.suffix in (".toml", ".json")):
        try:
            text = read_capped(path, MAX_THEME_BYTES).decode("utf-8")
            data = parse_toml(text) if path.suffix == ".toml" else parse_json(text)
        except (OSError, ValueError):  # FileLimitError, a syntax error, not UTF-8: the dashboard says which
            continue
        name = data.get("name") if isinstance(data, dict) else None
        if isinstance(name, str) and name:
            names.append(name)
    return names


def theme_names(env: Mapping[str, str] | None = None) -> list[str]:
    """xtui's themes (the house theme first), then the user's from ``themes/`` in the data directory."""
    from tui.paths import data_dir

    names = ["xtui", *_names_in(shipped_theme_dir()), *_names_in(data_dir(env) / "themes")]
    return list(dict.fromkeys(names))
