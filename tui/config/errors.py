"""The one error type for everything that stops a start, and its kind for a bad configuration."""

from __future__ import annotations

__all__ = ["ConfigError", "StartupError"]


class StartupError(Exception):
    """What stops ``xtui`` before the dashboard opens: a bad profile or flag, a key that will not unlock, an
    exchange that did not start. The message is one line for stderr and never holds a secret."""


class ConfigError(StartupError):
    """Bad configuration; the message starts with where (``FILE line N`` or ``XTUI_VAR``) and holds no secret."""
