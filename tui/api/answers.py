"""What an answer from the exchange means: its JSON, exact (``parse``), or the ``tui.api.errors`` type its status and
body say (``check``: 429 rate limited, 418 banned, ``{"type":"error"}`` even on 200, any other failure, a body that
is not JSON), as the exchange's SDKs read the same answers (protocol-notes 6)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import msgspec

from .errors import ApiError, Banned, RateLimited
from .h1_answer import Answer
from .limits import Governor

__all__ = ["check", "encode", "parse"]

_json_decode = msgspec.json.Decoder(float_hook=Decimal).decode  # numbers stay exact
encode = msgspec.json.Encoder().encode
_BAN_SECONDS = re.compile(r"(\d+(?:\.\d+)?)\s*(?:s\b|sec|second)", re.IGNORECASE)
_ANY_NUMBER = re.compile(r"(\d+(?:\.\d+)?)")


class _ErrorProbe(msgspec.Struct):
    type: Any = None
    message: Any = None
    error: Any = None
    code: Any = None


_probe = msgspec.json.Decoder(_ErrorProbe).decode


def parse(endpoint: str, content: bytes) -> Any:
    """The JSON of an answer from ``endpoint``; numbers with a fraction as ``Decimal``, exactly."""
    try:
        return _json_decode(content)
    except msgspec.DecodeError:
        raise ApiError(200, f"{endpoint}: the answer is not valid JSON") from None


def check(endpoint: str, answer: Answer, governor: Governor) -> None:
    """Raise what ``answer`` says went wrong (the governor told of a 429's pause or a 418's ban); None when it is a
    successful JSON answer."""
    content = answer.content
    probe = _ErrorProbe()
    if content[:1] == b"{":
        try:
            probe = _probe(content)
        except msgspec.DecodeError:
            if answer.is_success:
                raise ApiError(answer.status_code, f"{endpoint}: the answer is not valid JSON") from None
    status = answer.status_code
    message = str(probe.message or probe.error or "") if status >= 400 or probe.type == "error" else ""
    if status == 429:
        retry = _retry_after(answer.headers)
        governor.rate_limited(retry)
        raise RateLimited(message or "rate limit exceeded", retry)
    if status == 418:
        seconds = _ban_seconds(message, answer.headers)
        governor.banned(seconds)
        raise Banned(message or f"banned for {seconds:.0f} s", seconds)
    if probe.type == "error":
        raise ApiError(status, message or "error")
    if not answer.is_success:
        raise ApiError(status, message or answer.text[:200] or answer.reason_phrase)
    ctype = answer.headers.get("content-type") or ""
    if "json" not in ctype:
        raise ApiError(status, f"{endpoint}: the answer is {ctype[:80] or 'untyped'}, not JSON")


def _ban_seconds(message: str, headers: Mapping[str, str]) -> float:
    m = _BAN_SECONDS.search(message) or _ANY_NUMBER.search(message)
    if m:
        return float(m.group(1))
    retry = headers.get("retry-after", "")
    try:
        return float(retry)
    except ValueError:
        return 300.0  # the first ban step of the interface


def _retry_after(headers: Mapping[str, str]) -> float:
    try:
        seconds = float(headers.get("retry-after", "1"))
    except ValueError:
        return 1.0
    return min(max(0.0, seconds), 3600.0) if seconds == seconds else 1.0  # NaN, inf: not a pause to keep
