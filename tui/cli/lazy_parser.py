"""A sub-command's parser whose arguments are added when that sub-command is used (or its help shown).

``xtui`` with no sub-command starts the dashboard, and the built-in exchange only once its flags are parsed: the
flags of ``xtui sim`` and ``xtui export`` brought their modules (the matching engine's rules, the CSV writer)
into every start, ~30-60 ms before the exchange was even spawned, and kept them in the dashboard's memory.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, overload

from tui.cli.parser import Parser

__all__ = ["LazyParser"]

_N = TypeVar("_N")


class LazyParser(Parser):
    """A ``Parser`` (one line per usage error) that calls ``fill(self)`` once, before it first parses or describes
    itself (its help is written from ``format_help`` and ``format_usage``)."""

    def __init__(self, *args: Any, fill: Callable[[argparse.ArgumentParser], None] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._fill = fill

    def _filled(self) -> None:
        fill, self._fill = self._fill, None
        if fill is not None:
            fill(self)

    # the overloads are ArgumentParser's own: with a namespace given, that namespace is what comes back
    @overload
    def parse_known_args(
        self, args: Iterable[str] | None = None, namespace: None = None
    ) -> tuple[argparse.Namespace, list[str]]: ...
    @overload
    def parse_known_args(self, args: Iterable[str] | None, namespace: _N) -> tuple[_N, list[str]]: ...
    @overload
    def parse_known_args(self, *, namespace: _N) -> tuple[_N, list[str]]: ...
    def parse_known_args(self, args: Iterable[str] | None = None, namespace: Any = None) -> tuple[Any, list[str]]:
        self._filled()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._filled()
        return super().format_usage()

    def format_help(self) -> str:
        self._filled()
        return super().format_help()
