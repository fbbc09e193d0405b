"""Issue 47, "one line per failure": each row of the issue run as a real ``xtui`` process. A usage error is one line
on stderr (no usage block, no traceback) and exit 2; a failure one line and exit 1; each help gives the defaults
and the lists a user needs (the methods, the actions, the environment variables)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

TIMEOUT_S = 30.0


def closed_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"  # nothing listens there once the socket is closed


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XTUI_DATA_DIR": str(tmp_path), "XTUI_LOG_DIR": str(tmp_path),
            "XTUI_CACHE_DIR": str(tmp_path / "cache"), "XTUI_CONFIG": str(tmp_path / "config.toml")}  # fmt: skip


def run(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "tui", *args],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=TIMEOUT_S,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and err.endswith("\n") and "usage:" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--nosuch",), "xtui: error: unrecognized arguments: --nosuch (xtui --help)\n"),
        (
            ("sim", "--speed", "x"),
            "xtui sim: error: --speed: not a plain decimal (ASCII digits and at most one point): 'x' "
            "(xtui sim --help)\n",
        ),
        (
            ("--theme", "nosuch"),
            "xtui: error: --theme: unknown theme 'nosuch' (xtui's: xtui, xtui-colorblind, xtui-light, xtui-mono) "
            "(xtui --help)\n",
        ),
        (("export", "trades"), "xtui export: error: kind: invalid choice: 'trades'"),
        (("info", "ticker"), "xtui info: error: no exchange given"),
        (("config", "show", "--nosuch"), "xtui config: error: unrecognized arguments: --nosuch (xtui config --help)\n"),
        (("doctor", "--nosuch"), "xtui doctor: error: unrecognized arguments: --nosuch (xtui doctor --help)\n"),
        (("config",), "xtui config: error: a command is needed: path, show or init (xtui config --help)\n"),
        (("nosuch",), "xtui: error: unknown command 'nosuch' (choose from 'info', 'explorer', "),
        (("keys", "nosuch"), "xtui keys: error: unknown command 'nosuch' (choose from 'new', "),
        (("info",), "xtui info: error: the following arguments are required: method (xtui info --help)\n"),
    ],
    ids=[
        "unknown-flag",
        "sim-speed",
        "theme",
        "export-kind",
        "info-no-exchange",
        "config-flag",
        "doctor-flag",
        "config",
        "command",
        "keys-command",
        "info",
    ],
)
def test_a_usage_error_is_one_line_and_exit_2(env: dict[str, str], args: tuple[str, ...], said: str) -> None:
    code, out, err = run(env, *args)
    assert code == 2 and out == "" and one_line(err) and err.startswith(said), err


KEYISH = "ab" * 32  # a private key's shape, pasted where a number goes


@pytest.mark.parametrize(
    ("command", "args", "said"),
    [
        (("-m", "tui.sim"), ("--nosuch",), "python -m tui.sim: error: unrecognized arguments: --nosuch "
                                           "(python -m tui.sim --help)\n"),
        (("-m", "tui.sim"), ("--port", "abc"), "python -m tui.sim: error: --port: not a whole number"),
        (("-m", "tui.sim"), ("--seed", KEYISH), "python -m tui.sim: error: --seed: not a whole number (ASCII digits "
                                               "only): '[redacted]' (python -m tui.sim --help)\n"),
        (("-m", "tui"), ("sim", "--speed", KEYISH), "xtui sim: error: --speed: not a plain decimal (ASCII digits and "
                                                    "at most one point): '[redacted]' (xtui sim --help)\n"),
        (("-m", "tui"), ("sim", "--faucet", KEYISH), "xtui sim: error: --faucet: must be auto, explicit or an amount "
                                                     "of USDC: '[redacted]' (xtui sim --help)\n"),
    ],
    ids=["sim-alone-flag", "sim-alone-port", "sim-alone-key-seed", "sim-key-speed", "sim-key-faucet"],
)  # fmt: skip
def test_the_exchange_alone_and_a_pasted_key_are_one_line_too(
    env: dict[str, str], command: tuple[str, ...], args: tuple[str, ...], said: str
) -> None:
    """``python -m tui.sim`` (what the dashboard starts) reads its flags as ``xtui sim`` does; a value shaped like a
    key is never quoted back, not even its first 40 characters."""
    done = subprocess.run([sys.executable, *command, *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, env=env, timeout=TIMEOUT_S)  # fmt: skip
    assert done.returncode == 2 and done.stdout == "" and one_line(done.stderr), done.stderr
    assert done.stderr.startswith(said) and "abab" not in done.stderr, done.stderr


def test_doctor_on_nothing_says_so_in_words_and_exits_1(env: dict[str, str]) -> None:
    url = closed_url()
    code, out, err = run(env, "doctor", "--url", url, "--timeout", "2")
    assert code == 1 and err == "", err
    assert f"nothing answers at {url} (connection refused)" in out and "Errno" not in out, out
    lines = {line.split("  ")[0]: line for line in out.splitlines()[2:-1]}
    assert "NOT RUN" in lines["rate limits"] and "NOT RUN" in lines["clock"] and " OK " not in lines["rate limits"]


def test_paper_offline_is_one_line_naming_the_way_out(env: dict[str, str]) -> None:
    """``xtui --profile paper`` with its source unreachable: exit 1 with one line that says what to do instead."""
    source = closed_url()
    code, out, err = run({**env, "XTUI_MIRROR": source}, "--profile", "paper")
    assert code == 1 and out == "" and one_line(err) and err.startswith("xtui: ") and source in err, err
    assert "mirror" in err and "XTUI_MIRROR" in err and "--profile local" in err, err


def test_each_help_gives_the_defaults_and_the_lists(env: dict[str, str]) -> None:
    helps = {}
    for command in ("", "sim", "export", "info", "explorer", "exchange", "doctor"):
        code, out, err = run(env, *command.split(), "--help")
        assert code == 0 and err == "", err
        helps[command] = " ".join(out.split())  # the words, however argparse wrapped them
    top = helps[""]
    for var in ("XTUI_CONFIG", "XTUI_DATA_DIR", "XTUI_LOG_DIR", "XTUI_CACHE_DIR", "XTUI_MIRROR", "XTUI_PROFILE"):
        assert var in top, var
    assert "paper" in top and "--log-level {debug,info,warning,error} log file level (default: info)" in top
    sim = helps["sim"]
    assert "block interval in ms (default: 500)" in sim and "(default: 1, real time)" in sim
    for flag, default in (("--exchange-per-minute N", 20000), ("--ws-messages-per-minute N", 2000)):
        after = sim.split(flag)[-1]
        assert f"(default: {default})" in after.split("--")[0], flag
    assert "(default: 0)" in sim.split("--port PORT")[-1]
    export = helps["export"]
    assert "check" not in export and "export this profile's account" in export
    assert "read the history from the exchange at this base URL" in export
    for method in ("account_summary user=ADDR", "orderbook symbol=BTC-PERP [depth=50]", "vaults"):
        assert method in helps["info"], method
    assert "blocks [offset=0] [limit=20]" in helps["explorer"]
    for action in ("placeOrder 1301 orders=", "cancelByCloid 1312", "depositToVault 1401 vaultAddress= amount="):
        assert action in helps["exchange"], action
    assert "seconds each check may take (default: 5)" in helps["doctor"]


def test_every_flag_with_a_value_by_default_says_it() -> None:
    """Each flag of every command whose default is a value (not off, not "not given") names it in its help."""
    import argparse

    from tui.cli.main import build_parser
    from tui.cli.parser import DefaultsFormatter

    def actions(p: argparse.ArgumentParser) -> list[argparse.Action]:
        return p._actions  # private: argparse lists a parser's arguments nowhere public

    def parsers(p: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
        found = [p]
        for action in actions(p):
            if isinstance(action.choices, dict):  # the subcommands: their parsers by name
                for sub in dict.fromkeys(action.choices.values()):
                    sub.format_help()  # a lazy parser's flags are added here
                    found += parsers(sub)
        return found

    for p in parsers(build_parser()):
        formatter = DefaultsFormatter(p.prog)
        for action in actions(p):
            if not action.option_strings or action.help == argparse.SUPPRESS:
                continue
            # private: the help of one flag as the formatter writes it, not wrapped into the whole parser's
            shown = formatter._expand_help(action) if action.help else ""
            if isinstance(action.default, bool) or action.default in (None, [], argparse.SUPPRESS):
                continue
            assert action.help and "default" in shown, f"{p.prog} {action.option_strings[0]}"


def test_the_light_theme_names_are_the_dashboards() -> None:
    """``--theme``'s names, read without Textual, are the themes the dashboard loads (``tui.ui.themes``)."""
    from tui.cli.theme_names import shipped_theme_dir, theme_names
    from tui.ui.themes import THEME_DIR, xtui_themes

    assert shipped_theme_dir() == THEME_DIR
    names = theme_names()
    assert names[0] == "xtui" and sorted(names) == sorted(t.name for t in xtui_themes())  # the house theme first


def test_the_methods_listed_are_those_the_local_exchange_answers() -> None:
    from tui.cli.methods import EXPLORER_METHODS, INFO_METHODS
    from tui.sim.server.dispatch import EXPLORER, INFO

    assert set(INFO_METHODS) == set(INFO) and set(EXPLORER_METHODS) == set(EXPLORER)
