"""Hostile values for every parameter of the local exchange, and a way to put the ones JSON cannot spell from
Python (``1e999999999``, ``NaN``) into a request body as the raw tokens a hostile client sends."""

from __future__ import annotations

import json
from typing import Any


class Raw:
    """A JSON token written as is: ``Raw("1e999999999")`` is the number, not the string."""

    def __init__(self, token: str) -> None:
        self.token = token

    def __repr__(self) -> str:
        return f"Raw({self.token})"


ABSENT = object()  # the parameter left out of the request
# (what was tried, the value): each is wrong for every parameter of every method, whatever its type
HOSTILE: list[tuple[str, Any]] = [
    ("a superscript two", "²"),
    ("an Arabic-Indic three", "٣"),
    ("a full-width one", "１"),
    ("1e999999999 as text", "1e999999999"),
    ("1e999999999 as a JSON number", Raw("1e999999999")),
    ("NaN as text", "NaN"),
    ("NaN as a JSON token", Raw("NaN")),
    ("minus one", -1),
    ("minus one as text", "-1"),
    ("2**64", 2**64),
    ("a 400-digit integer", 10**400),
    ("a 5,000-digit integer token", Raw("9" * 5000)),
    ("a float", 1.5),
    ("a list", [1]),
    ("an object", {"a": 1}),
    ("true", True),
    ("10,000 characters", "7" * 10_000),
]
# null is the parameter left out (protocol-notes 9.2, the SDKs send unset fields as null): an error only where
# the parameter is required
NULL = ("null", None)


def encode(body: Any) -> bytes:
    """``body`` as JSON, ``Raw`` values written as their tokens."""
    raws: list[str] = []

    def mark(value: Any) -> Any:
        if isinstance(value, Raw):
            raws.append(value.token)
            return f"\x00raw{len(raws) - 1}\x00"
        if isinstance(value, dict):
            return {k: mark(v) for k, v in value.items()}
        if isinstance(value, list):
            return [mark(v) for v in value]
        return value

    text = json.dumps(mark(body))
    for i, token in enumerate(raws):
        text = text.replace(json.dumps(f"\x00raw{i}\x00"), token)
    return text.encode()


def with_value(params: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``params`` with ``path`` (``a`` or ``a.b`` or ``a[0].b``) set to ``value`` (or left out)."""
    out = json.loads(json.dumps(params))
    parts = path.replace("[", ".[").split(".")
    node: Any = out
    for part in parts[:-1]:
        node = node[int(part[1:-1])] if part.startswith("[") else node[part]
    last = parts[-1]
    if value is ABSENT:
        node.pop(last, None)
    else:
        node[last] = value
    return out
