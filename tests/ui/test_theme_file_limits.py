"""A user's theme file within limits: nested 100,000 deep, or larger than 256 KiB, it is a one-line theme error
naming the file (as any bad theme file is), never a RecursionError traceback or a crash."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tui.ui.themes import ThemeError, load_theme


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("deep.json", '{"name": "x", "primary": ' + "[" * 100_000 + "]" * 100_000 + "}", "line 1: nested more than 32"),
        ("big.toml", 'name = "x"\n' + "#" * 300_000, "it is 300.0 KB, more than the 262.1 KB it may be"),
        ("deep2.json", '{"name": "x", "primary": ' + "[" * 50_000 + "]" * 50_000 + "}", "line 1: nested more than 32"),
        ("deep.toml", 'name = "x"\nprimary = ' + "[" * 50_000 + "]" * 50_000, "line 2: nested more than 32 deep"),
        ("nan.json", '{"name": "x", "primary": NaN}', "NaN is not a number"),
    ],
    ids=["json-100k", "big", "json-50k", "toml-50k", "nan"],
)
def test_a_hostile_theme_file_is_a_theme_error(tmp_path: Path, name: str, text: str, said: str) -> None:
    """Tried: theme files nested 100,000 and 50,000 deep (JSON and TOML) with the recursion limit at 100,000 (as
    once py_ecc is imported; before, json.loads overflowed the C stack and tomllib raised RecursionError), and
    NaN: each is a ThemeError naming the file."""
    limit = sys.getrecursionlimit()
    path = tmp_path / name
    path.write_text(text)
    try:
        sys.setrecursionlimit(100_000)
        with pytest.raises(ThemeError) as caught:
            load_theme(path)
    finally:
        sys.setrecursionlimit(limit)
    assert str(caught.value).startswith(f"{name}: ") and said in str(caught.value)
