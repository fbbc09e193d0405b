"""How the local exchange's command lines (``xtui sim``, its faults, ``xtui sim faucet``) read a value: argparse
types that say what is wrong with it (an argparse error, exit 2)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

from tui.logs import redact

from .grammar import int_text

__all__ = ["checked", "quoted", "whole"]

T = TypeVar("T")


def checked(parse: Callable[[str], T]) -> Callable[[str], T]:
    """``parse`` as an argparse type: its ValueError said as the argument's error."""

    def read(text: str) -> T:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    read.__name__ = parse.__name__.removeprefix("parse_")  # argparse names the type in its messages
    return read


def quoted(text: str) -> str:
    """A bad value as an error quotes it: a key pasted by mistake redacted before it is cut to 40 characters."""
    return repr(redact(text)[:40])


def whole(text: str) -> int:
    """A whole number in the one integer grammar: ASCII digits only (``int()`` also reads "٣" and " 3")."""
    n = int_text(text)
    if n is None:
        raise argparse.ArgumentTypeError(f"not a whole number (ASCII digits only): {quoted(text)}")
    return n
