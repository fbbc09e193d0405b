"""The paper profile: the built-in exchange mirroring another exchange's market (``mirror`` in a profile)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_config import error_of
from tui.api.endpoints import MAINNET
from tui.config.launch import Flags, apply_flags
from tui.config.profiles import resolve


def test_the_paper_profile_mirrors_the_real_market_on_the_built_in_exchange(tmp_path: Path) -> None:
    settings = resolve("paper", env={"XTUI_CONFIG": str(tmp_path / "absent.toml")})
    profile = settings.profile
    assert profile.mirror == MAINNET.api and profile.builtin_exchange
    assert not profile.is_mainnet and profile.network == "testnet" and settings.warnings == ()
    assert apply_flags(settings, Flags()).label == "PAPER"


def test_a_profile_of_ones_own_can_mirror_any_exchange(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[profiles.practice]\nmirror = "http://127.0.0.1:8801/"\nsymbol = "ETH-PERP"\n')
    settings = resolve("practice", env={"XTUI_CONFIG": str(path)})
    assert settings.profile.mirror == "http://127.0.0.1:8801" and settings.profile.builtin_exchange
    moved = resolve("local", env={"XTUI_CONFIG": str(path), "XTUI_MIRROR": "https://testnet-api.hotstuff.trade"})
    assert moved.profile.mirror == "https://testnet-api.hotstuff.trade" and moved.overrides["mirror"] == "XTUI_MIRROR"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[profiles.p]\nmirror = "ftp://h"\n', "line 2: mirror: 'ftp://h' is not an http(s) URL with a host"),
        ("[profiles.p]\nmirror = 8801\n", "line 2: mirror: expected a string"),
        (
            '[profiles.p]\nurl = "https://h"\nmirror = "https://s"\n',
            "line 3: mirror makes the built-in exchange a paper copy of another: a profile with url trades there",
        ),
    ],
)
def test_a_bad_mirror_is_an_error_naming_its_line(tmp_path: Path, text: str, expected: str) -> None:
    assert error_of(tmp_path, text).startswith(expected)


def test_the_bound_of_a_move_in_one_poll_is_a_profile_key_that_reaches_the_exchange(tmp_path: Path) -> None:
    """``mirror_max_move_pct = 5``: the built-in exchange is started with that bound; 20 when not set."""
    from decimal import Decimal

    from tui.ui.run import local_exchange

    path = tmp_path / "config.toml"
    path.write_text('[profiles.practice]\nmirror = "http://127.0.0.1:8801/"\nmirror_max_move_pct = 5\n')
    settings = resolve("practice", env={"XTUI_CONFIG": str(path)})
    assert settings.profile.mirror_max_move_pct == Decimal(5)
    exchange = local_exchange(apply_flags(settings, Flags()))
    assert exchange is not None and exchange.args[-2:] == ["--mirror-max-move-pct", "5"]
    assert resolve("paper", env={"XTUI_CONFIG": str(tmp_path / "absent.toml")}).profile.mirror_max_move_pct == 20


@pytest.mark.parametrize("value", ["0", '"²"', "-5", "5000", '"lots"'])
def test_a_bad_bound_is_an_error_naming_its_line(tmp_path: Path, value: str) -> None:
    said = error_of(tmp_path, f'[profiles.p]\nmirror = "https://s"\nmirror_max_move_pct = {value}\n')
    assert said.startswith("line 3: mirror_max_move_pct: "), said
