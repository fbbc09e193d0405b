"""The ladder's own size key, ``ladder_notional`` (USDC): unset by default, read from a profile or
``XTUI_LADDER_NOTIONAL`` into the dashboard's options, and every bad value refused in one line naming its line or
variable, as the other money keys are."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tui.config.launch import Flags, apply_flags
from tui.config.profiles import BUILTIN_PROFILES, ConfigError, parse_config, resolve
from tui.config.text import DEFAULT_TEXT


def test_unset_by_default_and_read_from_a_profile_or_the_environment(tmp_path: Path) -> None:
    assert all(p.ladder_notional is None for p in BUILTIN_PROFILES.values())
    assert "# ladder_notional = " in DEFAULT_TEXT  # documented where the file is written
    path = tmp_path / "config.toml"
    path.write_text('[profiles.local]\nladder_notional = "500"\n')
    settings = resolve(env={}, path=path)
    assert apply_flags(settings, Flags()).options.ladder_notional == Decimal(500)
    env = resolve(env={"XTUI_LADDER_NOTIONAL": "250.5"}, path=path)
    assert env.profile.ladder_notional == Decimal("250.5")
    assert env.overrides["ladder_notional"] == "XTUI_LADDER_NOTIONAL"


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("-5", "expected a number between 0 and"),
        ("0", "expected a number above 0"),
        ('"15 ETH"', "is not a plain decimal"),
        ("1e999", "expected a number between 0 and"),
        ("true", "expected a number, not true/false"),
        ("[500]", "expected a number, not an array"),
    ],
)
def test_bad_values_are_one_line_errors_naming_the_line(value: str, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(f'[profiles.local]\ntheme = "xtui"\nladder_notional = {value}\n', Path("config.toml"))
    message = str(caught.value)
    assert message.startswith("config.toml line 3: ladder_notional: ") and said in message
    assert "\n" not in message


def test_a_bad_environment_value_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^XTUI_LADDER_NOTIONAL: expected a number above 0"):
        resolve(env={"XTUI_LADDER_NOTIONAL": "0"}, path=tmp_path / "none.toml")
