"""The chart's indicator periods, ``chart_ma_periods`` (the SMA and EMA lines) and ``chart_rsi_period``: [20, 50] and
14 by default, read from a profile or ``XTUI_CHART_MA_PERIODS`` ("9,21,50") / ``XTUI_CHART_RSI_PERIOD`` into the
dashboard's options; every bad value refused in one line naming its line or variable. Tried: none, four periods, 0,
1, 501, a float, a string that is no number, true, a table, a negative, a period given twice (kept once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.config.launch import Flags, apply_flags
from tui.config.profiles import BUILTIN_PROFILES, ConfigError, parse_config, resolve
from tui.config.text import DEFAULT_TEXT


def test_the_defaults_and_a_profile_and_the_environment(tmp_path: Path) -> None:
    assert all(p.chart_ma_periods == (20, 50) and p.chart_rsi_period == 14 for p in BUILTIN_PROFILES.values())
    assert "chart_ma_periods = [20, 50]" in DEFAULT_TEXT  # documented where the file is written
    path = tmp_path / "config.toml"
    path.write_text("[profiles.local]\nchart_ma_periods = [50, 9, 21]\nchart_rsi_period = 7\n")
    options = apply_flags(resolve(env={}, path=path), Flags()).options
    assert (options.chart_ma_periods, options.chart_rsi_period) == ((9, 21, 50), 7)  # in rising order
    env = resolve(env={"XTUI_CHART_MA_PERIODS": "10, 30", "XTUI_CHART_RSI_PERIOD": "21"}, path=path)
    assert (env.profile.chart_ma_periods, env.profile.chart_rsi_period) == ((10, 30), 21)
    assert env.overrides["chart_ma_periods"] == "XTUI_CHART_MA_PERIODS"


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("chart_ma_periods = []", "expected 1 to 3 periods like [20, 50] (each 2 to 500 candles), not 0 of them"),
        ("chart_ma_periods = [5, 10, 20, 50]", "not 4 of them"),
        ("chart_ma_periods = [0, 20]", "expected a whole number from 2 to 500, not 0"),
        ("chart_ma_periods = [1]", "expected a whole number from 2 to 500, not 1"),
        ("chart_ma_periods = [501]", "expected a whole number from 2 to 500, not 501"),
        ("chart_ma_periods = [20.5]", "expected a whole number from 2 to 500, not a number"),
        ('chart_ma_periods = ["x"]', "expected a whole number from 2 to 500, not a string"),
        ("chart_ma_periods = true", "expected 1 to 3 periods like [20, 50] (each 2 to 500 candles), not true/false"),
        ("chart_ma_periods = {a = 1}", "not a table"),
        ("chart_rsi_period = -3", "expected a whole number from 2 to 100, not -3"),
        ("chart_rsi_period = 101", "expected a whole number from 2 to 100, not 101"),
        ("chart_rsi_period = [14]", "expected a whole number from 2 to 100, not an array"),
    ],
)
def test_bad_values_are_one_line_errors_naming_the_line(line: str, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(f'[profiles.local]\ntheme = "xtui"\n{line}\n', Path("config.toml"))
    message = str(caught.value)
    key = line.split(" = ")[0]
    assert message.startswith(f"config.toml line 3: {key}: ") and said in message, message
    assert "\n" not in message


def test_a_period_given_twice_is_kept_once() -> None:
    config = parse_config("[profiles.local]\nchart_ma_periods = [20, 20, 50]\n", Path("config.toml"))
    assert config.profiles["local"].chart_ma_periods == (20, 50)


@pytest.mark.parametrize(("var", "text"), [("XTUI_CHART_MA_PERIODS", "20,x"), ("XTUI_CHART_RSI_PERIOD", "1")])
def test_a_bad_environment_value_names_the_variable(tmp_path: Path, var: str, text: str) -> None:
    with pytest.raises(ConfigError, match=rf"^{var}: expected a whole number from 2 to "):
        resolve(env={var: text}, path=tmp_path / "none.toml")
