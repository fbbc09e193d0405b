"""Where xtui keeps its files: each directory from its ``XTUI_*`` variable when set, else the platform's own."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

__all__ = ["cache_dir", "config_path", "data_dir", "log_dir", "profile_file"]


def _dir(env: Mapping[str, str] | None, variable: str, kind: str) -> Path:
    env = os.environ if env is None else env
    if env.get(variable):
        return Path(env[variable]).expanduser()
    import platformdirs

    if kind == "data":
        return Path(platformdirs.user_data_dir("xtui", appauthor=False))
    if kind == "log":
        return Path(platformdirs.user_log_dir("xtui", appauthor=False))
    if kind == "cache":
        return Path(platformdirs.user_cache_dir("xtui", appauthor=False))
    return Path(platformdirs.user_config_dir("xtui", appauthor=False))


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XTUI_DATA_DIR``, else the user data directory: keystores in ``keys/``, the user's themes in ``themes/``."""
    return _dir(env, "XTUI_DATA_DIR", "data")


def log_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XTUI_LOG_DIR`` if set, else the platform's user log directory for xtui."""
    return _dir(env, "XTUI_LOG_DIR", "log")


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XTUI_CACHE_DIR`` if set, else the platform's user cache directory for xtui: what can be made again
    (Textual's parsed CSS), kept to start faster."""
    return _dir(env, "XTUI_CACHE_DIR", "cache")


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """``$XTUI_CONFIG`` if set, else ``config.toml`` in the platform's user config directory for xtui."""
    env = os.environ if env is None else env
    if env.get("XTUI_CONFIG"):
        return Path(env["XTUI_CONFIG"]).expanduser()
    return _dir({}, "", "config") / "config.toml"


def profile_file(directory: Path, kind: str, profile: str) -> Path:
    """A profile's own file of ``kind`` (alerts, watchlist): ``<directory>/<kind>-<profile>.json``, the name made
    file-safe."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", profile.lower()) or "default"
    return directory / f"{kind}-{safe}.json"
