"""The configuration reference: every key of config.toml from the schema, with its default and what it means."""

from __future__ import annotations

import os
from collections.abc import Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec

from tui.reference.markdown import code, page, table

__all__ = ["configuration_page"]


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return f"{value:,}" if value == value.to_integral_value() else str(value)
    if isinstance(value, frozenset | set | list | tuple):
        return "[" + ", ".join(f'"{v}"' for v in sorted(value)) + "]"
    return str(value)


def _defaults() -> dict[str, Any]:
    """Each ``ProfileConfig`` field's default, by name (a field whose default is None has none to show)."""
    from tui.config.profiles import ProfileConfig

    out = {}
    for f in msgspec.structs.fields(ProfileConfig):
        if f.default is not msgspec.NODEFAULT and f.default is not None:
            out[f.name] = f.default
    return out


def _rows(keys: Iterable[str], help_: dict[str, tuple[str, str]], defaults: dict[str, Any]) -> list[list[str]]:
    """A row for each key of the schema, in its order; a key with no words in ``tui.config.key_help`` is an error."""
    rows = []
    for key in keys:
        if key not in help_:
            raise LookupError(f"config key {key!r} has no words in tui/config/key_help.py: say what it sets there")
        what, default = help_[key]
        said = default or (code(_shown(defaults[key])) if key in defaults else "none")
        rows.append([code(key), what, said])
    return rows


def _themes() -> str:
    from tui.cli.theme_names import theme_names

    return ", ".join(code(n) for n in theme_names({"XTUI_DATA_DIR": os.devnull}))  # xtui's own, no user's


def _builtin_profiles() -> str:
    from tui.config.profiles import BUILTIN_PROFILES

    rows = []
    for name, p in BUILTIN_PROFILES.items():
        where = f"paper trading at the prices of {p.mirror}" if p.mirror else (p.url or "the built-in exchange")
        rows.append([code(name), where, p.network])
    said = "Usable without a file; a profile of the same name in the file is laid over the built-in one."
    return f"## Built-in profiles\n\n{said}\n\n" + table(["profile", "exchange", "signs for"], rows)


def configuration_page() -> str:
    from tui.config import profiles
    from tui.config.key_help import NOTICE_HELP, PROFILE_HELP, TOP_HELP
    from tui.config.values import NOTICE_KINDS

    none = profiles.parse_config("", Path("config.toml"))  # an empty file: every top-level default
    top = _rows(profiles.TOP_KEYS, TOP_HELP, {"default_profile": none.default_profile, "log_level": none.log_level})
    notices = _rows(profiles.NOTICE_KEYS, NOTICE_HELP, {"bell": none.bell})
    profile = _rows(profiles.PROFILE_KEYS, PROFILE_HELP, _defaults())
    return page(
        "Configuration reference",
        "Every key config.toml may hold, checked as xtui starts: a key not listed here, or a bad value, is an error "
        "naming its line. How to write the file: [the configuration guide](../configuration.md).",
        [
            "## Top level\n\n" + table(["key", "value", "default"], top),
            "## [notices]\n\n"
            + f"Kinds of account event: {', '.join(code(k) for k in NOTICE_KINDS)}.\n\n"
            + table(["key", "value", "default"], notices),
            "## [profiles.NAME]\n\n"
            + "Decimals may be written as strings or numbers; they are read exactly. At most one key source "
            + "(`keystore`, `key_env`, `agent_keystore`, `agent_key_env`); none is watch-only. Each key but "
            + "`keymap` can also be set by its environment variable ([environment.md](environment.md)).\n\n"
            + table(["key", "value", "default"], profile),
            f"xtui's own themes: {_themes()}.",
            _builtin_profiles(),
        ],
    )
