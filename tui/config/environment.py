"""Every environment variable xtui reads by name, in one place: what each sets, in words.

The code that reads a variable names it where it reads it (``tui.paths``, ``tui.config.profiles``,
``tui.config.launch``, ``tui.ui.render``, ``tui.bench``); this table is what the environment reference
(docs/reference/environment.md, ``python -m tui.reference``) is written from, and a test holds every ``XTUI_``
name in the code to it. The ``XTUI_<FIELD>`` overrides of a profile's keys are ``ENV_OVERRIDES``, one per key of
``PROFILE_FIELDS``. A variable holding a key or a password has the name the user gives it (``key_env``,
``--key-env``, ``--password-env``): it is no name of xtui's.
"""

from __future__ import annotations

from tui.config.values import PROFILE_FIELDS

__all__ = ["ENV_OVERRIDES", "KNOBS", "SETTINGS"]

# name -> what it sets: the settings a user may give
SETTINGS: dict[str, str] = {
    "XTUI_CONFIG": "the config file's path (default: config.toml in the platform's user config directory; "
    "`xtui config path` prints it)",
    "XTUI_PROFILE": "the profile to start with when `--profile` is not given (before the config's default_profile)",
    "XTUI_LOG_LEVEL": "the log file's level (debug, info, warning, error) when `--log-level` is not given",
    "XTUI_DATA_DIR": "the data directory: keystores (keys/), your themes (themes/), and per profile the event log, "
    "layouts, alerts, watchlist, tools' state and chart indicators (default: the platform's user data directory)",
    "XTUI_LOG_DIR": "where xtui.log is written (default: the platform's user log directory)",
    "XTUI_CACHE_DIR": "what can be made again (parsed styles), kept to start faster (default: the platform's user "
    "cache directory)",
}
# name -> what it does: knobs for measuring, not settings
KNOBS: dict[str, str] = {
    "XTUI_PLAIN": "render patches to leave out, comma-separated (`xtui bench --only render` sets it)",
    "XTUI_BENCH_KEY": "the variable `xtui bench` hands its demo key to the dashboard it measures in",
}
# XTUI_<FIELD> -> the profile key it sets, over the selected profile
ENV_OVERRIDES: dict[str, str] = {f"XTUI_{name.upper()}": name for name in PROFILE_FIELDS}
