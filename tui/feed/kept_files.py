"""The files a profile keeps (price alerts, the watchlist): each written whole or not at all, and one that
cannot be read moved aside, never lost."""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

__all__ = ["set_aside", "write_json"]


def set_aside(path: Path, exc: Exception) -> str:
    """Move an unreadable ``path`` aside (``NAME.bad-<time>``); the words that tell the trader so."""
    aside = path.with_name(f"{path.name}.bad-{int(time.time())}")
    with contextlib.suppress(OSError):
        path.replace(aside)
    return f"{path} could not be read ({exc}); it was kept as {aside.name}"


def write_json(path: Path, data: Any) -> None:
    """``data`` as JSON in ``path``, through a temporary file renamed over it (a crash leaves the old one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
