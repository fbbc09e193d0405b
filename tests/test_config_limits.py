"""config.toml within limits: deep nesting, huge dotted keys, huge files and absurd numbers are one-line config
errors naming the file (and the line), never a RecursionError traceback, a crash or a minute of parsing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui.config.errors import ConfigError
from tui.config.profiles import load_config, parse_config

CFG = Path("config.toml")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("x = " + "[" * 100_000 + "]" * 100_000, "config.toml line 1: nested more than 32 deep"),
        ("[profiles.a]\nkeymap = {buy = " + "[" * 40 + "]" * 40 + "}", "config.toml line 2: nested more than 32 deep"),
        ("a" + ".a" * 100_000 + " = 1", "config.toml line 1: more than 2,000 dotted names"),
        ("[profiles.a.keymap]\n" + "b" + ".b" * 40 + ' = "x"', "config.toml: nested more than 32 deep"),
        ("[profiles.a]\nconfirm_notional = 1e999999999", "line 2: confirm_notional: expected a number between 0 and"),
        ("[profiles.a]\nconfirm_notional = 1e-999999999", "line 2: confirm_notional: at most 18 decimal places"),
        ("[profiles.a]\nconfirm_notional = 1" + "_1" * 4400, "config.toml: not valid TOML: Exceeds the limit"),
    ],
    ids=["arrays-100k", "inline-40", "dotted-100k", "dotted-41", "1e999999999", "1e-999999999", "4401-digits"],
)
def test_a_config_over_a_limit_is_a_config_error(text: str, said: str) -> None:
    """Tried: arrays nested 100,000 deep (before: a RecursionError traceback; 11 of 1,500 fuzzed files), an inline
    table nesting arrays 40 deep, a dotted key of 100,001 names (before: tomllib's memory grows with its square:
    ~0.4 GB at 10,000), one of 41, a notional of 1e999999999 or 1e-999999999, an integer of 4,401 digits."""
    with pytest.raises(ConfigError) as caught:
        parse_config(text, CFG)
    assert said in str(caught.value) and str(caught.value).count("\n") == 0


def test_a_config_larger_than_1_mib_is_refused_unread(tmp_path: Path) -> None:
    """Tried: a 3 MB config.toml. It is refused naming its size, read no further than the cap."""
    path = tmp_path / "config.toml"
    path.write_text("# " + "x" * 3_000_000 + "\n")
    with pytest.raises(ConfigError, match=r"config.toml: it is 3.0 MB, more than the 1.0 MB it may be"):
        load_config(path)


def test_xtui_says_one_line_for_a_deeply_nested_config(tmp_path: Path) -> None:
    """Tried: ``xtui config show`` (and so every start) on a config of arrays nested 100,000 deep, as a real process
    whose recursion limit is 100,000 (as once py_ecc is imported). Before: a RecursionError traceback (or worse)."""
    path = tmp_path / "config.toml"
    path.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    code = "import sys; sys.setrecursionlimit(100_000); from tui.cli.main import main; sys.exit(main())"
    env = {**os.environ, "XTUI_CONFIG": str(path), "XTUI_LOG_DIR": str(tmp_path / "log")}
    done = subprocess.run(
        [sys.executable, "-c", code, "config", "show"], capture_output=True, text=True, env=env, timeout=60
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"xtui: {path} line 1: nested more than 32 deep\n"
