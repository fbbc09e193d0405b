"""The guards' config keys: off unless set (the built-in demo profile has none), read from a profile or an
``XTUI_*`` variable, and every hostile value (negative, zero, junk, huge, the wrong type) a clear error naming its
line or variable."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tui.config.launch import Flags, apply_flags
from tui.config.profiles import BUILTIN_PROFILES, ConfigError, parse_config, resolve
from tui.trading.guards import Guards

GUARD_KEYS = ("max_order_notional", "daily_loss_limit", "liquidation_warn_pct")


def test_no_guard_is_on_by_default() -> None:
    """Every built-in profile, and the local demo's options, have every guard off."""
    for profile in BUILTIN_PROFILES.values():
        assert all(getattr(profile, key) is None for key in GUARD_KEYS), profile.name
    options = apply_flags(resolve(env={}, path=Path("/nonexistent/config.toml")), Flags()).options
    assert not Guards(options.max_order_notional, options.daily_loss_limit, options.liquidation_warn_pct).any


def test_guards_from_a_profile_and_from_the_environment(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    keys = 'max_order_notional = "25000"\ndaily_loss_limit = 1000\nliquidation_warn_pct = 5.5\n'
    path.write_text(f"[profiles.local]\n{keys}")
    settings = resolve(env={}, path=path)
    p = settings.profile
    assert (p.max_order_notional, p.daily_loss_limit, p.liquidation_warn_pct) == (
        Decimal(25000),
        Decimal(1000),
        Decimal("5.5"),
    )
    options = apply_flags(settings, Flags()).options
    assert (options.max_order_notional, options.daily_loss_limit, options.liquidation_warn_pct) == (
        Decimal(25000),
        Decimal(1000),
        Decimal("5.5"),
    )
    env = resolve(env={"XTUI_MAX_ORDER_NOTIONAL": "100"}, path=path)
    assert env.profile.max_order_notional == Decimal(100)
    assert env.overrides["max_order_notional"] == "XTUI_MAX_ORDER_NOTIONAL"


@pytest.mark.parametrize("key", GUARD_KEYS)
@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("-5", "expected a number between 0 and"),
        ("0", "expected a number above 0"),
        ('"lots"', "is not a plain decimal"),
        ('"1e400"', "is not a plain decimal"),
        ("1e999", "expected a number between 0 and"),
        ('"99999999999999999999"', "expected a number between 0 and"),
        ("true", "expected a number, not true/false"),
        ("[1]", "expected a number, not an array"),
        ('"0.0000000000000000001"', "at most 18 decimal places"),
    ],
)
def test_hostile_values_are_clear_errors_naming_the_line(key: str, value: str, said: str) -> None:
    text = f'[profiles.local]\ntheme = "xtui"\n{key} = {value}\n'
    with pytest.raises(ConfigError) as caught:
        parse_config(text, Path("config.toml"))
    assert str(caught.value).startswith(f"config.toml line 3: {key}: ")
    assert said in str(caught.value)


def test_a_percentage_over_100_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"liquidation_warn_pct: expected a number between 0 and 100"):
        parse_config("[profiles.local]\nliquidation_warn_pct = 150\n", Path("config.toml"))


@pytest.mark.parametrize(
    ("text", "said"), [("-1", "is not a plain decimal"), ("0", "above 0"), ("1e99", "plain decimal")]
)
def test_hostile_environment_values_name_the_variable(tmp_path: Path, text: str, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve(env={"XTUI_DAILY_LOSS_LIMIT": text}, path=tmp_path / "none.toml")
    assert str(caught.value).startswith("XTUI_DAILY_LOSS_LIMIT: ")
    assert said in str(caught.value)
