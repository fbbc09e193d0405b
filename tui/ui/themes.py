"""Theme files (TOML or JSON) into ``textual.theme.Theme`` objects, with the semantic trading colours.

A theme file has ``name`` and ``primary``, optionally the other Textual theme colours and ``dark``, and a
``variables`` table holding the trading colours every pane uses: ``bid``, ``ask``, ``up``, ``down`` and
``stale``. Red (``error``) is kept for danger: the mainnet badge, armed mode, errors; selling and falling are not
red in xtui's themes. Unknown keys are refused, so a typo does not silently fall back to a default.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import BUILTIN_THEMES, Theme

from tui.edges.bounded_parse import parse_json, parse_toml, read_capped
from tui.paths import data_dir

__all__ = [
    "DEFAULT_THEME",
    "SEMANTIC_DEFAULTS",
    "THEME_DIR",
    "ThemeError",
    "builtin_themes",
    "load_theme",
    "load_themes",
    "user_theme_dir",
    "xtui_themes",
]

# themes/ at the top of the source tree; a wheel carries the same files as tui/_themes (pyproject force-include)
_PACKAGE = Path(__file__).resolve().parent.parent
_PACKAGED = _PACKAGE / "_themes"
THEME_DIR = _PACKAGED if _PACKAGED.is_dir() else _PACKAGE.parent / "themes"
DEFAULT_THEME = "xtui"
MAX_THEME_BYTES = 256 << 10  # a theme is ~1 KB
SEMANTIC_DEFAULTS: dict[str, str] = {
    "bid": "#2ebd85",
    "ask": "#c061cb",  # not red: red is kept for danger (mainnet, armed, errors)
    "up": "#2ebd85",
    "down": "#c061cb",
    "stale": "#6e7681",
}
_COLOURS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
_KEYS = frozenset({"name", "dark", "variables", *_COLOURS})

# The house theme, used when the theme files are not installed next to the package.
_HOUSE = Theme(
    name=DEFAULT_THEME,
    primary="#4c8dff",
    secondary="#2a4a7a",
    accent="#f5a524",
    warning="#f5a524",
    error="#f0524f",
    success="#2ebd85",
    foreground="#d8dee9",
    background="#0d1117",
    surface="#151b23",
    panel="#1f2733",
    dark=True,
    variables=dict(SEMANTIC_DEFAULTS),
)


class ThemeError(ValueError):
    """A theme file that cannot be used; the message names the file and the key."""


def _colour(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ThemeError(f"{where}: expected a colour string")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeError(f"{where}: {value!r} is not a colour") from None
    return value


def theme_from_dict(data: Any, source: str = "theme") -> Theme:
    """A ``Theme`` from a parsed theme file; ``ThemeError`` naming the bad key otherwise."""
    if not isinstance(data, dict):
        raise ThemeError(f"{source}: expected a table of theme keys")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ThemeError(f"{source}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ThemeError(f"{source}: 'name' is required")
    if "primary" not in data:
        raise ThemeError(f"{source}: 'primary' is required")
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeError(f"{source}: 'dark' must be true or false")
    colours = {key: _colour(data[key], f"{source}: {key}") for key in _COLOURS if key in data}
    raw_vars = data.get("variables", {})
    if not isinstance(raw_vars, dict):
        raise ThemeError(f"{source}: 'variables' must be a table")
    variables = dict(SEMANTIC_DEFAULTS)
    for key, value in raw_vars.items():
        variables[str(key)] = _colour(value, f"{source}: variables.{key}")
    return Theme(
        name=name.strip(),
        primary=colours["primary"],
        secondary=colours.get("secondary"),
        warning=colours.get("warning"),
        error=colours.get("error"),
        success=colours.get("success"),
        accent=colours.get("accent"),
        foreground=colours.get("foreground"),
        background=colours.get("background"),
        surface=colours.get("surface"),
        panel=colours.get("panel"),
        boost=colours.get("boost"),
        dark=dark,
        variables=variables,
    )


def load_theme(path: Path) -> Theme:
    """Read one ``.toml`` or ``.json`` theme file."""
    try:  # within limits: no theme file can overflow the stack (``tui.edges.bounded_parse``)
        text = read_capped(path, MAX_THEME_BYTES).decode("utf-8")
        data = parse_json(text) if path.suffix == ".json" else parse_toml(text)
    except (OSError, UnicodeError, ValueError) as exc:
        raise ThemeError(f"{path.name}: {exc}") from None
    return theme_from_dict(data, path.name)


def load_themes(directory: Path) -> list[Theme]:
    """Every theme file in ``directory``, sorted by file name; a missing directory has none."""
    if not directory.is_dir():
        return []
    files: Iterable[Path] = sorted(p for p in directory.iterdir() if p.suffix in (".toml", ".json"))
    return [load_theme(p) for p in files]


def builtin_themes() -> list[Theme]:
    """The themes shipped in ``themes/``; at least the house theme even when the files are missing."""
    themes = load_themes(THEME_DIR)
    if not any(t.name == DEFAULT_THEME for t in themes):
        themes.insert(0, _HOUSE)
    return themes


def user_theme_dir(env: Mapping[str, str] | None = None) -> Path:
    """``themes/`` in the data directory: the user's own theme files."""
    return data_dir(env) / "themes"


def xtui_themes(user_dir: Path | None = None) -> list[Theme]:
    """The shipped themes, then the user's from ``user_dir`` (default ``user_theme_dir()``); a user theme with a
    shipped theme's name replaces it. A bad user file is a ThemeError naming its path."""
    themes = {t.name: t for t in builtin_themes()}
    directory = user_theme_dir() if user_dir is None else user_dir
    try:
        users = load_themes(directory)
    except ThemeError as exc:
        raise ThemeError(f"{directory}/{exc}") from None
    themes.update((t.name, t) for t in users)
    return list(themes.values())


def known_themes() -> list[str]:
    """Every theme name a profile or ``--theme`` may use: xtui's own and Textual's built-in ones."""
    return [t.name for t in xtui_themes()] + list(BUILTIN_THEMES)
