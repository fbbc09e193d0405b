"""The files xtui reads, parsed within limits: a size read no further than its cap, a nesting depth checked on the
raw text before any parser recurses, numbers that are numbers.

json, msgspec and tomllib recurse once per level of nesting. Under the default recursion limit a file nested
100,000 deep raises RecursionError (a traceback); once a dependency raises the limit (py_ecc, imported with
eth-keyfile, sets 100,000) the same file overflows the C stack and the process dies. So nothing here relies on the
limit: the text is scanned first, strings and comments skipped, and counting its brackets tells the depth
without recursing. tomllib builds a dotted key's tables in time and memory that grow with the square of its parts,
so a TOML file's dots outside strings are counted too; what it gives is walked (without recursing) for its depth.

Every refusal is a ``FileLimitError`` (a ValueError) whose message says what is over which limit, and where. A file
is opened by ``tui.edges.regular_files``: a FIFO, a device or a directory in its place is refused (``NotRegularFile``,
an OSError) before anything is read.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from tui.edges.regular_files import FileLimitError, NotRegularFile, open_to_read

__all__ = [
    "MAX_DEPTH",
    "MAX_TOML_DOTS",
    "FileLimitError",
    "NotRegularFile",
    "check_depth",
    "decimal_places",
    "depth_of",
    "parse_json",
    "parse_toml",
    "read_capped",
    "size_text",
]

MAX_DEPTH = 32  # no file xtui reads nests deeper than 4; the parsers are safe far beyond 32
MAX_TOML_DOTS = 2_000  # tomllib's cost per dotted key grows with its parts squared: 2,000 dots cost ~16 MB at most
MAX_NUMBER_DIGITS = 40  # a JSON number longer than this is no price, size or count xtui keeps

_JSON = r'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+"|[\[\]{}]'
_JSON_TOKENS = re.compile(_JSON)
_JSON_BYTES = re.compile(_JSON.encode())
_TOML_TOKENS = re.compile(
    r'"""(?:[^"\\]|\\[\s\S]|"(?!""))*+"""(?:""?)?'  # multi-line basic: up to two more quotes end it
    r"|'''(?:[^']|'(?!''))*+'''(?:''?)?"  # multi-line literal
    r'|"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"'  # basic
    r"|'[^'\n]*+'"  # literal
    r"|#[^\n]*+"  # comment
    r"|[\[\]{}.]"
)


def size_text(n: int) -> str:
    """A byte count for a message: 812 bytes, 41.2 KB, 3.1 MB."""
    if n < 1_000:
        return f"{n} bytes"
    if n < 1_000_000:
        return f"{n / 1_000:.1f} KB"
    return f"{n / 1_000_000:.1f} MB"


def read_capped(path: Path, max_bytes: int, *, follow: bool = True) -> bytes:
    """The bytes of ``path``; FileLimitError when it holds more than ``max_bytes`` (read no further than that),
    NotRegularFile when it is not a regular file (or, unless ``follow``, a symbolic link)."""
    with open_to_read(path, follow=follow) as f:
        size = os.fstat(f.fileno()).st_size
        data = b"" if size > max_bytes else f.read(max_bytes + 1)
        if size > max_bytes or len(data) > max_bytes:
            size = max(size, os.fstat(f.fileno()).st_size, len(data))
            raise FileLimitError(f"it is {size_text(size)}, more than the {size_text(max_bytes)} it may be")
    return data


def _line_of(text: str | bytes, pos: int) -> int:
    if isinstance(text, bytes):
        return text.count(b"\n", 0, pos) + 1
    return text.count("\n", 0, pos) + 1


def check_depth(text: str | bytes, max_depth: int = MAX_DEPTH, *, toml: bool = False) -> None:
    """FileLimitError when ``text`` (JSON, or TOML with ``toml``) nests arrays or objects deeper than
    ``max_depth``, or (TOML) has more dots outside strings than ``MAX_TOML_DOTS``. Strings and comments are
    skipped; the count errs only towards refusing, and only in text the parser would refuse anyway."""
    depth = dots = 0
    if isinstance(text, bytes):
        marks = (m for m in _JSON_BYTES.finditer(text) if m.end() - m.start() == 1)
        tokens = ((m.start(), chr(text[m.start()])) for m in marks)
    else:
        found = (_TOML_TOKENS if toml else _JSON_TOKENS).finditer(text)
        tokens = ((m.start(), m.group()) for m in found if m.end() - m.start() == 1)  # not a string or a comment
    for at, mark in tokens:
        if mark in "[{":
            depth += 1
            if depth > max_depth:
                where = _line_of(text, at)
                raise FileLimitError(f"line {where}: nested more than {max_depth} deep")
        elif mark in "]}":
            depth = max(0, depth - 1)
        else:
            dots += 1
            if dots > MAX_TOML_DOTS:
                where = _line_of(text, at)
                raise FileLimitError(f"line {where}: more than {MAX_TOML_DOTS:,} dotted names and decimal points")


def depth_of(value: Any, max_depth: int = MAX_DEPTH) -> int:
    """How deep lists and dicts nest in ``value`` (a scalar is 0), walked without recursing; FileLimitError past
    ``max_depth``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        depth += 1
        if depth > max_depth:
            raise FileLimitError(f"nested more than {max_depth} deep")
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children)
    return deepest


def decimal_places(value: Decimal) -> int:
    """The places after the point ``value`` needs (0 for 1.500e3), read from its digits: ``normalize`` would
    round a tiny value to 0 in the default context."""
    _, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        raise ValueError(f"{value} is not a finite number")
    trailing = len(digits) - len(bytes(digits).rstrip(b"\0")) if any(digits) else len(digits) - 1
    return max(0, -(exponent + trailing))


def _refuse_constant(name: str) -> Any:
    raise FileLimitError(f"{name} is not a number")


def _number(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    def parsed(text: str) -> Any:
        if len(text) > MAX_NUMBER_DIGITS:
            raise FileLimitError(f"a number of {len(text):,} characters")
        return parse(text)

    return parsed


_INT = _number(int)


def parse_json(data: str | bytes, max_depth: int = MAX_DEPTH, parse_float: Callable[[str], Any] = Decimal) -> Any:
    """JSON within the limits: nesting checked first, numbers of at most 40 characters (decimals as ``Decimal``
    unless ``parse_float`` says otherwise), no NaN or Infinity. ValueError (FileLimitError, json.JSONDecodeError,
    UnicodeDecodeError) when bad."""
    check_depth(data, max_depth)
    return json.loads(data, parse_float=_number(parse_float), parse_int=_INT, parse_constant=_refuse_constant)


def parse_toml(text: str, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """TOML within the limits (floats as ``Decimal``): nesting and dots checked first, the result's depth after
    (dotted keys nest without brackets). tomllib.TOMLDecodeError for bad syntax, FileLimitError over a limit, and
    ValueError for an integer too long for Python to read."""
    check_depth(text, max_depth, toml=True)
    data = tomllib.loads(text, parse_float=Decimal)
    depth_of(data, max_depth)
    return data
