"""Shared by the driver scripts, which run inside the SDK's own virtual environment (not the project's).

A driver records every call it makes (its value, or the exception it raised) and what it then observed,
and prints one JSON object; the tests in this folder assert on it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

DEADLINE_S = 5.0  # how long a driver waits for something to show up on loopback


def point_sdk_at(base_url: str) -> None:
    """The SDK reads its server addresses from this table when a transport is made: point both networks here."""
    from hotstuff.utils import endpoints

    ws = base_url.replace("http://", "ws://", 1) + "/ws/"
    for net in ("mainnet", "testnet"):
        endpoints.ENDPOINTS_URLS[net].update(api=base_url + "/", rpc=base_url + "/", ws=ws)


def new_key() -> str:
    return "0x" + os.urandom(32).hex()


def now_ms() -> int:
    return int(time.time() * 1000)


def wait_for(condition: Callable[[], bool], timeout: float = DEADLINE_S) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


class Record:
    """Every call's outcome, by name: {"ok": true, "value": ...} or {"ok": false, "error": "Type: message"}."""

    def __init__(self) -> None:
        self.results: dict[str, dict[str, Any]] = {}

    def call(self, name: str, fn: Callable[[], Any]) -> Any:
        """Run ``fn``; keep its value (returned) or its exception (None returned)."""
        try:
            value = fn()
        except Exception as exc:
            self.results[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            return None
        self.results[name] = {"ok": True, "value": value}
        return value

    def note(self, name: str, value: Any) -> None:
        """An observation that is not a call (an effect seen, an address)."""
        self.results[name] = {"ok": True, "value": value}

    def dump(self) -> None:
        print(json.dumps(self.results, default=str))
