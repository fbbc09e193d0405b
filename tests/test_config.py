"""config.toml: strict validation with errors naming their line, environment overrides, `xtui config`."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from decimal import Decimal
from pathlib import Path

import pytest

from tui.api.endpoints import TESTNET
from tui.api.signing import Signer
from tui.cli.admin import render
from tui.config.launch import Flags, apply_flags
from tui.config.profiles import (
    BUILTIN_PROFILES,
    DEFAULT_TEXT,
    ConfigError,
    KeySource,
    load_config,
    parse_config,
    resolve,
)
from tui.config.text import KeyLines
from tui.config.values import DEFAULT_BELL

KEY = "0x" + "7d" * 32
ADDRESS = Signer(KEY).address  # EIP-55 mixed case
BAD_CHECKSUM = ADDRESS[:2] + ADDRESS[2:].swapcase()[:1] + ADDRESS[3:]


def config_at(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def error_of(tmp_path: Path, text: str) -> str:
    path = config_at(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith(str(path) + " line "), message
    return message.removeprefix(str(path) + " ")


def test_the_init_file_is_the_built_in_profiles() -> None:
    config = parse_config(DEFAULT_TEXT, Path("config.toml"))
    assert config.profiles == BUILTIN_PROFILES and config.default_profile == "local"
    assert list(config.profiles) == ["local", "testnet", "mainnet", "sim", "paper"]


def test_no_file_means_the_local_profile(tmp_path: Path) -> None:
    settings = resolve(env={"XTUI_CONFIG": str(tmp_path / "absent.toml")})
    assert settings.profile.name == "local" and settings.profile.builtin_exchange
    assert settings.selected_by == "built-in default" and settings.warnings == ()
    assert settings.profile.watch_only and not settings.profile.read_only


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('default_profile = "local"\ncolour = "red"\n', "line 2: unknown key 'colour'"),
        ('[profiles.local]\ntheme = "xtui"\nthemes = "x"\n', "line 3: unknown key 'themes' in profile local"),
        ("[profiles.local]\nread_only = 1\n", "line 2: read_only: expected true or false, not a number"),
        ('[profiles.local]\nread_only = "yes"\n', "line 2: read_only: expected true or false, not a string"),
        ('\n[profiles.x]\nurl = "ftp://host"\n', "line 3: url: 'ftp://host' is not an http(s) URL"),
        ('[profiles.x]\nurl = "https://user:pw@host"\n', "line 2: url: a URL must not carry a user name or password"),
        ('[profiles.x]\nurl = "https://h"\nws_url = "https://h/ws"\n', "line 3: ws_url: 'https://h/ws' is not a ws"),
        (
            f'[profiles.testnet]\n\naccount = "{BAD_CHECKSUM}"\n',
            "line 3: account: " + BAD_CHECKSUM + " fails its EIP-55",
        ),
        ('[profiles.testnet]\naccount = "0x1234"\n', "line 2: account: '0x1234' is not an account address"),
        ('[profiles.local]\ndialect = "json"\n', 'line 2: dialect: expected "seed" or "sdk", not \'json\''),
        (
            "[profiles.local]\nconfirm_through_book_pct = 101\n",
            "line 2: confirm_through_book_pct: expected a number between 0 and 100",
        ),
        ('[profiles.local]\nconfirm_notional = "lots"\n', "line 2: confirm_notional: 'lots' is not a plain decimal"),
        ('[profiles.local]\nconfirm_notional = "1e5"\n', "line 2: confirm_notional: '1e5' is not a plain decimal"),
        ('[profiles.local]\nmax_slippage_pct = " 1"\n', "line 2: max_slippage_pct: ' 1' is not a plain decimal"),
        ("[profiles.local]\nmax_slippage_pct = 60\n", "line 2: max_slippage_pct: expected a number between 0 and 50"),
        ('[profiles.local]\nlow_bandwidth = "yes"\n', "line 2: low_bandwidth: expected true or false"),
        ('[profiles.local]\nkeystore = "a"\nkey_env = "B"\n', "line 3: keystore and key_env: choose one key source"),
        ('[profiles.t]\nurl = "https://h"\nagent_keystore = "a"\n', "line 3: an agent key trades for an account"),
        ('[profiles.local]\nexplorer_url = "https://h"\n', "line 2: explorer_url needs url too"),
        ('[profiles.local]\nkey_env = "1X"\n', "line 2: key_env: '1X' is not an environment variable name"),
        (
            'default_profile = "nope"\n',
            "line 1: default_profile 'nope' is not a profile (local, testnet, mainnet, sim, paper)",
        ),
        ('log_level = "loud"\n', "line 1: log_level: log level must be one of debug, info, warning, error"),
        ('[profiles."with space"]\n', "line 1: 'with space' is not a profile name"),
        ("profiles = 3\n", "line 1: profiles must be a table of profiles, not a number"),
        ('[profiles.local.keymap]\nbuy = "b"\nsell = ""\n', "line 3: keymap.sell: expected key names"),
        ('[profiles.local]\nkeymap = { buy = "b", sell = 3 }\n', "line 2: keymap.sell: expected key names"),
        ('[profiles.local]\nkeymap = "b"\n', "line 2: keymap must be a table"),
        ('name = """\n[profiles.local]\n"""\nbad = 1\n', "line 1: unknown key 'name'"),
        ("profiles.local.theme = 3\n", "line 1: theme: expected a string in quotes, not a number"),
        (
            '[notices]\nbell = "fill"\n',
            'line 2: bell: expected an array of event kinds like ["fill", "trigger"], not a',
        ),
        ('[notices]\nbell = ["fill", "fils"]\n', "line 2: bell: 'fils' is not a kind of event (fill, trigger, cancel,"),
        ("[notices]\nbell = [1]\n", "line 2: bell: a number is not a kind of event"),
        ('[notices]\nbeep = ["fill"]\n', "line 2: unknown key 'beep' in notices (expected bell)"),
        ("notices = 3\n", "line 1: notices must be a table, not a number"),
        ('[profiles.local]\ntheme = "xtui"\nsymbol = \n', "line 3: not valid TOML: Invalid value (column 10)"),
        ('[profiles.local]\ntheme = "xtui', "line 2: not valid TOML: Unterminated string (at the end of the file)"),
    ],
)
def test_errors_name_their_line(tmp_path: Path, text: str, expected: str) -> None:
    assert error_of(tmp_path, text).startswith(expected)


@pytest.mark.parametrize(
    "text",
    [
        f'[profiles.local]\ntheme = "xtui"\nkey_env = "{KEY}"\n',
        f'[profiles.local]\ntheme = "xtui"\nsymbol = "x{KEY[2:]}y"\n',
        f'[profiles.local]\ntheme = "xtui"\n# key = {KEY}\n',
        f'[profiles.local]\ntheme = "xtui"\nkeystore = "{KEY}\n',  # refused before the syntax error
    ],
)
def test_a_private_key_in_the_config_is_refused(tmp_path: Path, text: str) -> None:
    message = error_of(tmp_path, text)
    assert message == (
        "line 3: a private key must not be stored in the config; use a keystore (xtui keys import) or key_env"
    )


def test_key_lines_skip_multi_line_strings_and_arrays() -> None:
    text = 'a = """\n[profiles.x]\nread_only = 1\n"""\nb = [\n  [1],\n]\n[profiles."y.z"]\ntheme = 3\n'
    lines = KeyLines(text)
    assert (
        lines.line(("profiles", "y.z", "theme")) == 9 and lines.line(("profiles", "x")) == 8
    )  # its parent: the string is no table
    assert lines.line(("profiles", "y.z", "keymap", "buy")) == 8 and lines.line(("b",)) == 5


FULL = f"""
default_profile = "desk"
[profiles.desk]
url = "https://desk.example.com:8443/"
dialect = "sdk"
account = "{ADDRESS.lower()}"
agent_keystore = "desk-agent"
read_only = true
confirm_notional = 2500.50
confirm_through_book_pct = "0.5"
theme = "xtui-mono"
symbol = "ETH-PERP"
keymap = {{ buy = "b", sell = "ctrl+s, f2", "panel.next" = "n" }}
"""


@pytest.mark.parametrize(
    ("text", "bell"),
    [
        ("", DEFAULT_BELL),
        ("[notices]\n", DEFAULT_BELL),
        ("[notices]\nbell = []\n", frozenset()),
        ('[notices]\nbell = ["funding", " cancel "]\n', frozenset({"funding", "cancel"})),
    ],
)
def test_which_events_ring_the_bell(tmp_path: Path, text: str, bell: frozenset[str]) -> None:
    settings = resolve(env={"XTUI_CONFIG": str(config_at(tmp_path, text))})
    assert settings.config.bell == bell
    options = apply_flags(settings, Flags()).options  # what the dashboard is given
    assert options.bell == bell and options.slippage_pct == 1  # market orders: 1% beyond the best price


def test_a_full_profile(tmp_path: Path) -> None:
    path = config_at(tmp_path, FULL)
    settings = resolve(env={"XTUI_CONFIG": str(path)})
    p = settings.profile
    assert (settings.selected_by, p.name, p.url) == ("default_profile", "desk", "https://desk.example.com:8443")
    assert (p.explorer_url, p.ws_url) == ("https://desk.example.com:8443", "wss://desk.example.com:8443/ws/")
    assert p.account == ADDRESS and p.key == KeySource("keystore", "desk-agent", agent=True)
    assert p.confirm_notional == Decimal("2500.50") and p.confirm_through_book_pct == Decimal("0.5")
    assert p.read_only and p.dialect == "sdk" and p.keymap == {"buy": "b", "sell": "ctrl+s, f2", "panel.next": "n"}
    assert settings.where("keymap.sell") == f"{path} line 13" and settings.where("theme") == f"{path} line 11"
    assert str(settings.error("theme", "no theme named xtui-mono")) == f"{path} line 11: no theme named xtui-mono"


def test_show_reads_back_as_the_same_profiles(tmp_path: Path) -> None:
    settings = resolve(env={"XTUI_CONFIG": str(config_at(tmp_path, FULL))})
    again = parse_config(render(settings), tmp_path / "shown.toml")
    assert again.profiles == settings.config.profiles and again.default_profile == "desk"


def test_mainnet_only_when_named_and_then_a_warning(tmp_path: Path) -> None:
    plain = {"XTUI_CONFIG": str(tmp_path / "absent.toml")}
    assert not resolve(env=plain).profile.is_mainnet
    named = resolve("mainnet", env=plain)
    assert named.profile.is_mainnet and named.warnings == (
        "warning: profile mainnet (chosen by --profile) is the production exchange: real money",
    )
    path = config_at(tmp_path, 'default_profile = "mainnet"\n')
    by_file = resolve(env={"XTUI_CONFIG": str(path)})
    assert by_file.profile.name == "mainnet" and "chosen by default_profile" in by_file.warnings[0]
    by_env = resolve(env={**plain, "XTUI_PROFILE": "mainnet"})
    assert "chosen by XTUI_PROFILE" in by_env.warnings[0]
    with pytest.raises(ConfigError, match="XTUI_URL: the production exchange is used only when a profile is named"):
        resolve(env={**plain, "XTUI_URL": "https://api.hotstuff.trade"})
    local = resolve("local", env={**plain, "XTUI_URL": "https://api.hotstuff.trade"})
    assert local.profile.is_mainnet and "profile local (chosen by --profile)" in local.warnings[0]


def test_environment_overrides(tmp_path: Path) -> None:
    path = config_at(tmp_path, '[profiles.testnet]\ntheme = "xtui-light"\nkeystore = "main"\n')
    env = {
        "XTUI_CONFIG": str(path),
        "XTUI_PROFILE": "testnet",
        "XTUI_THEME": "xtui-mono",
        "XTUI_READ_ONLY": "yes",
        "XTUI_DIALECT": "sdk",
        "XTUI_ACCOUNT": ADDRESS.lower(),
        "XTUI_KEY_ENV": "TRADER_KEY",
        "XTUI_LOG_LEVEL": "DEBUG",
        "XTUI_SYMBOL": "",  # empty is unset
    }
    settings = resolve(env=env)
    p = settings.profile
    assert (p.name, p.theme, p.read_only, p.dialect, p.account) == ("testnet", "xtui-mono", True, "sdk", ADDRESS)
    assert p.key == KeySource("env", "TRADER_KEY") and p.symbol == "BTC-PERP" and settings.log_level == "debug"
    assert settings.where("theme") == "XTUI_THEME" and settings.where("keymap.buy") == f"{path} line 1"
    local = resolve(env={"XTUI_CONFIG": str(path), "XTUI_URL": TESTNET.api + "/"})
    assert local.profile.testnet and local.profile.endpoints() == TESTNET


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"XTUI_READ_ONLY": "maybe"}, "XTUI_READ_ONLY: expected true or false"),
        ({"XTUI_DIALECT": "json"}, 'XTUI_DIALECT: expected "seed" or "sdk"'),
        ({"XTUI_URL": "ftp://x"}, "XTUI_URL: 'ftp://x' is not an http(s) URL"),
        ({"XTUI_ACCOUNT": BAD_CHECKSUM}, f"XTUI_ACCOUNT: {BAD_CHECKSUM} fails its EIP-55 checksum"),
        ({"XTUI_ACCOUNT": KEY}, "XTUI_ACCOUNT: a private key must not be stored in the config"),
        ({"XTUI_PROFILE": KEY}, "XTUI_PROFILE: a private key must not be stored"),
        ({"XTUI_CONFIRM_NOTIONAL": "-1"}, "XTUI_CONFIRM_NOTIONAL: '-1' is not a plain decimal"),
        ({"XTUI_KEYSTORE": "a", "XTUI_KEY_ENV": "B"}, "XTUI_KEYSTORE and XTUI_KEY_ENV: choose one key source"),
        ({"XTUI_AGENT_KEYSTORE": "a"}, "XTUI_AGENT_KEYSTORE: an agent key trades for an account"),
        ({"XTUI_PROFILE": "nope"}, "XTUI_PROFILE: no profile named 'nope' (known: local, testnet, mainnet, sim, paper"),
        ({"XTUI_LOG_LEVEL": "loud"}, "XTUI_LOG_LEVEL: log level must be one of"),
    ],
)
def test_environment_errors_name_the_variable(tmp_path: Path, env: dict[str, str], expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve(env={"XTUI_CONFIG": str(tmp_path / "absent.toml"), **env})
    assert str(caught.value).startswith(expected) and KEY[2:] not in str(caught.value)


def test_a_profile_flag_naming_nothing(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^--profile: no profile named 'prod'"):
        resolve("prod", env={"XTUI_CONFIG": str(tmp_path / "absent.toml")})


# ---- `xtui config` as a real process ------------------------------------------------------------------


def xtui(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "tui", *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
        env={**os.environ, **env}, timeout=60, check=False,
    )  # fmt: skip
    return proc.returncode, proc.stdout, proc.stderr


def test_config_path_init_show(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "config.toml"
    env = {"XTUI_CONFIG": str(path), "XTUI_LOG_DIR": str(tmp_path / "log"), "XTUI_DATA_DIR": str(tmp_path)}
    assert xtui("config", "path", env=env) == (0, f"{path}\n", "")
    assert xtui("config", "init", env=env) == (0, f"wrote {path}\n", "")
    assert path.read_text() == DEFAULT_TEXT
    path.write_text(DEFAULT_TEXT + '\n[profiles.mine]\nurl = "http://10.0.0.2:9000"\n')
    assert xtui("config", "init", env=env) == (1, "", f"xtui: {path} exists; pass --force to replace it\n")
    assert "profiles.mine" in path.read_text()
    assert xtui("config", "init", "--force", env=env)[0] == 0 and path.read_text() == DEFAULT_TEXT

    rc, out, err = xtui("config", "show", "--profile", "testnet", env={**env, "XTUI_THEME": "xtui-mono"})
    assert rc == 0 and err == ""
    assert "[profiles.testnet]  # selected" in out and 'theme = "xtui-mono"  # from XTUI_THEME' in out
    shown = tomllib.loads(out)  # the output is TOML that reads back
    assert shown["profiles"]["testnet"]["theme"] == "xtui-mono" and shown["profiles"]["local"]["theme"] == "xtui"
    assert parse_config(out, path).profiles["testnet"].theme == "xtui-mono"

    rc, out, _ = xtui("config", "show", env={**env, "XTUI_PROFILE": "mainnet"})
    assert rc == 0 and "# warning: profile mainnet (chosen by XTUI_PROFILE)" in out

    path.write_text('[profiles.local]\ntheme = "xtui"\ncolour = "red"\n')
    rc, out, err = xtui("config", "show", env=env)
    assert (rc, out) == (1, "") and err.startswith(f"xtui: {path} line 3: unknown key 'colour' in profile local")
    assert err.count("\n") == 1
    assert xtui("keys", "list", env=env)[0] == 0  # a broken config does not stop the other commands


@pytest.mark.parametrize(
    ("text", "flag", "low"),
    [("", False, False), ("", True, True), ("[profiles.local]\nlow_bandwidth = true\n", False, True)],
)
def test_low_bandwidth_from_the_profile_or_the_flag(tmp_path: Path, text: str, flag: bool, low: bool) -> None:
    settings = resolve(env={"XTUI_CONFIG": str(config_at(tmp_path, text))})
    assert apply_flags(settings, Flags(low_bandwidth=flag)).options.low_bandwidth is low
