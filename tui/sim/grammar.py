"""The one integer grammar of the local exchange's edges (its requests, its flags): ASCII digits only.

``str.isdigit`` also takes "²" and "٣" (and ``int("²")`` raises, ``int("٣")`` is 3), and ``int()`` takes " 3",
"+3" and "3_000": nothing at an edge asks either. No sign, spaces or separators; 30 digits at most. Decimals
have theirs in ``tui.api.decimals``. A module of its own, so that reading a flag does not import the engine.
"""

from __future__ import annotations

import re

__all__ = ["INT_TEXT", "int_text"]

INT_TEXT = re.compile(r"[0-9]{1,30}")


def int_text(text: str) -> int | None:
    """``text`` as an integer when it is ASCII digits only, else None."""
    return int(text) if INT_TEXT.fullmatch(text) else None
