"""The bounded parsers: the depth found on the raw text is never less than the parser's, for JSON and TOML, with
strings, escapes and comments full of brackets; size and number limits say what is over which limit."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.edges.bounded_parse import FileLimitError, check_depth, depth_of, parse_json, parse_toml, read_capped

TRICKY = st.text(alphabet=string.printable + "\"'\\[]{}#é", max_size=12)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY, inner, max_size=3),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(value=VALUES)
def test_the_depth_of_json_text_is_the_depth_of_its_value(value: Any) -> None:
    """Property: for any JSON (strings full of brackets, quotes and escapes), the scan of the text finds exactly the
    depth of the parsed value: a limit one under it refuses, the depth itself passes."""
    text = json.dumps(value)
    depth = depth_of(value)
    check_depth(text, depth)
    check_depth(text.encode(), depth)
    if depth:
        with pytest.raises(FileLimitError, match=f"nested more than {depth - 1} deep"):
            check_depth(text, depth - 1)


def _toml_value(value: Any) -> str:
    """``value`` written as TOML (None as a literal string, strings alternately basic and multi-line)."""
    if value is None:
        return "'#[{'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value) if len(value) % 2 else '"""' + json.dumps(value)[1:-1] + '"""'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "] # ]]\n"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"


@settings(max_examples=300, deadline=None)
@given(value=VALUES)
def test_the_depth_of_toml_text_is_never_less_than_its_value(value: Any) -> None:
    """Property: for TOML with brackets inside basic, multi-line and literal strings and comments, the scan finds
    the depth tomllib builds under ``x``, never less."""
    for text in ("x = " + _toml_value(value).replace("] # ]]\n", "]"), "x = " + _toml_value(value)):
        try:
            depth = depth_of(parse_toml(text + "\n")["x"])
        except ValueError:  # a control character or a newline in an inline table, which tomllib refuses
            continue
        check_depth(text, depth, toml=True)
        if depth:
            with pytest.raises(FileLimitError):
                check_depth(text, depth - 1, toml=True)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("x = " + "[" * 100_000 + "]" * 100_000, "line 1: nested more than 32 deep"),
        ("a = 1\nx = {" + "a = {" * 40 + "}" * 41, "line 2: nested more than 32 deep"),
        ("a" + ".a" * 100_000 + " = 1", "more than 2,000 dotted names"),
        ("[" + ".".join(["t"] * 40) + "]\nz = 1", "nested more than 32 deep"),
    ],
)
def test_toml_over_the_limits(text: str, said: str) -> None:
    """Tried: arrays 100,000 deep (before: RecursionError), inline tables 41 deep, a dotted key of 100,001 parts
    (before: tomllib took ~0.4 GB for 10,000), a table header 40 names deep (no bracket nests, the value does)."""
    with pytest.raises(FileLimitError, match=said):
        parse_toml(text)


def test_json_numbers_and_sizes(tmp_path: Path) -> None:
    """Tried: NaN, Infinity, a 5,000-digit integer, a file larger than its cap (read no further than the cap)."""
    for text, said in (("[NaN]", "NaN is not a number"), ("[-Infinity]", "-Infinity is not a number"),
                       ("[" + "7" * 5000 + "]", "a number of 5,000 characters")):  # fmt: skip
        with pytest.raises(FileLimitError, match=said):
            parse_json(text)
    assert str(parse_json('{"a": 1.10}')["a"]) == "1.10"  # exact decimals
    big = tmp_path / "big"
    big.write_bytes(b" " * 3_000_001)
    with pytest.raises(FileLimitError, match=r"it is 3.0 MB, more than the 1.0 MB it may be"):
        read_capped(big, 1 << 20)
    assert read_capped(big, 4_000_000) == b" " * 3_000_001
