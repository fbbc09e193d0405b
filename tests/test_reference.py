"""The references in docs/reference/ are what the code renders now (``python -m tui.reference`` writes them), and
each covers its whole table: every binding of the key table, every key of the config's schema, every ``XTUI_`` name
the code reads, every flag of every parser, the sim's rate limits. A new binding, key, variable or flag shows up (or,
for a config key with no words, stops the generator naming it)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from textual.binding import Binding

from tui.reference import render
from tui.reference.__main__ import main
from tui.reference.markdown import COMMAND

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "reference"
XTUI_NAME = re.compile(r"\bXTUI_[A-Z][A-Z0-9_]*\b")
PLACEHOLDERS = {"XTUI_VAR"}  # tui/config/errors.py's docstring: where a message names the variable


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return render()


def _section(page: str, heading: str) -> str:
    """The text under ``## heading`` up to the next ``## ``."""
    start = page.index(f"\n## {heading}\n")
    end = page.find("\n## ", start + 1)
    return page[start : end if end > 0 else None]


def _committed(name: str) -> str | None:
    return (OUT / name).read_text(encoding="utf-8") if (OUT / name).is_file() else None


def test_every_committed_page_is_what_the_code_renders(pages: dict[str, str]) -> None:
    stale = [name for name, text in pages.items() if _committed(name) != text]
    assert not stale, f"docs/reference/{', '.join(stale)} differ from the code: run `{COMMAND}` and commit them"


def test_no_page_is_left_over_and_each_says_it_is_generated(pages: dict[str, str]) -> None:
    assert sorted(p.name for p in OUT.glob("*.md")) == sorted(pages), f"run `{COMMAND}`; remove pages it does not write"
    for name, text in pages.items():
        assert text.splitlines()[2] == (
            f"> Generated from the code by `{COMMAND}`: change the code, then run it again (do not edit this page)."
        ), name


def test_the_command_writes_the_pages_and_check_names_a_stale_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["--check", "--out", str(tmp_path)]) == 1
    assert "keys.md: differs from the code" in capsys.readouterr().out
    assert main(["--out", str(tmp_path)]) == 0
    assert (tmp_path / "sim-rules.md").read_text(encoding="utf-8") == render()["sim-rules.md"]
    (tmp_path / "keys.md").write_text("edited by hand\n")
    assert main(["--check", "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == f"{tmp_path / 'keys.md'}: differs from the code"
    assert main(["--out", str(tmp_path)]) == 0
    assert main(["--check", "--out", str(tmp_path)]) == 0


def test_every_binding_of_the_key_table_is_on_the_keys_page(pages: dict[str, str]) -> None:
    from tui.reference.keys import key_names, key_scopes

    page = pages["keys.md"]
    missing = []
    for scope, items in key_scopes():
        for b in items:
            assert isinstance(b, Binding)
            rows = [line for line in _section(page, scope).splitlines() if b.id and f"| `{b.id}` |" in line]
            if b.id and not rows:
                missing.append(f"{scope}: {b.id}")
            for key in key_names(b.key):
                if f"`{key}`" not in "".join(rows) and b.id:
                    missing.append(f"{scope}: {b.id} {key}")
    assert not missing, "the keys page leaves out: " + ", ".join(missing)


def test_a_new_binding_shows_up(monkeypatch: pytest.MonkeyPatch) -> None:
    from tui.reference.keys import keys_page
    from tui.ui import bindings

    new = Binding("ctrl+k", "brand_new", "New", id="brand_new", tooltip="A key nobody has pressed yet")
    monkeypatch.setattr(bindings, "APP_BINDINGS", [*bindings.APP_BINDINGS, new])
    assert "| `ctrl+k` | `brand_new` | A key nobody has pressed yet |" in _section(keys_page(), "global")


def test_key_names_read_as_a_reader_presses_them() -> None:
    from tui.reference.keys import key_names

    assert key_names("escape,question_mark,q") == ["Escape", "?", "q"]
    assert key_names("enter") == ["Enter"]
    assert key_names("shift+up,ctrl+r,f12,plus,space") == ["shift+↑", "ctrl+r", "F12", "+", "Space"]


def test_every_key_of_the_config_schema_is_on_the_configuration_page(pages: dict[str, str]) -> None:
    from tui.config.key_help import NOTICE_HELP, PROFILE_HELP, TOP_HELP
    from tui.config.profiles import NOTICE_KEYS, PROFILE_KEYS, TOP_KEYS

    assert (set(TOP_HELP), set(NOTICE_HELP), set(PROFILE_HELP)) == (set(TOP_KEYS), set(NOTICE_KEYS), set(PROFILE_KEYS))
    page = pages["configuration.md"]
    for heading, keys in (("Top level", TOP_KEYS), ("[notices]", NOTICE_KEYS), ("[profiles.NAME]", PROFILE_KEYS)):
        section = _section(page, heading)
        assert not [k for k in keys if f"\n| `{k}` |" not in section], heading
    assert "| `confirm_notional` | USDC: ask before sending an order larger than this | `50,000` |" in page


def test_a_new_config_key_shows_up_or_stops_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    from tui.config import key_help, profiles
    from tui.reference.configuration import configuration_page

    monkeypatch.setattr(profiles, "PROFILE_KEYS", (*profiles.PROFILE_KEYS, "brand_new"))
    with pytest.raises(LookupError, match=r"config key 'brand_new' has no words in tui/config/key_help\.py"):
        configuration_page()
    monkeypatch.setitem(key_help.PROFILE_HELP, "brand_new", ("what a new key sets", "off"))
    assert "| `brand_new` | what a new key sets | off |" in _section(configuration_page(), "[profiles.NAME]")


def test_every_variable_the_code_names_is_in_the_one_table_and_on_its_page(pages: dict[str, str]) -> None:
    from tui.config.environment import ENV_OVERRIDES, KNOBS, SETTINGS

    listed = {*SETTINGS, *KNOBS, *ENV_OVERRIDES}
    named: dict[str, str] = {}
    for path in sorted((ROOT / "tui").rglob("*.py")):
        for name in XTUI_NAME.findall(path.read_text(encoding="utf-8")):
            named.setdefault(name, str(path.relative_to(ROOT)))
    unlisted = [f"{name} ({where})" for name, where in named.items() if name not in listed | PLACEHOLDERS]
    assert not unlisted, "tui/config/environment.py does not list: " + ", ".join(unlisted)
    here = Path("tui/config/environment.py")
    unread = [n for n in (*SETTINGS, *KNOBS) if not any(Path(w) != here for w in _where(n))]
    assert not unread, f"tui/config/environment.py lists, but nothing else in tui/ names: {unread}"
    assert not [n for n in listed if f"| `{n}` |" not in pages["environment.md"]]


def _where(name: str) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in (ROOT / "tui").rglob("*.py") if name in p.read_text(encoding="utf-8")]


def test_a_new_profile_key_brings_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from tui.config import environment
    from tui.reference.environment import environment_page

    monkeypatch.setitem(environment.ENV_OVERRIDES, "XTUI_BRAND_NEW", "brand_new")
    assert "| `XTUI_BRAND_NEW` | profile key [`brand_new`]" in environment_page()


def test_every_flag_of_every_parser_is_on_the_command_line_page(pages: dict[str, str]) -> None:
    from tui.reference.command_line import commands

    page = pages["command-line.md"]
    missing = []
    for prog, parser in commands():
        section = _section(page, prog)
        for flag in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", parser.format_usage()):
            if f"| `{flag}" not in section and f", {flag}" not in section:
                missing.append(f"{prog} {flag}")
    assert not missing, "the command-line page leaves out: " + ", ".join(missing)
    assert [prog for prog, _ in commands()][:2] == ["xtui", "xtui info"]
    assert "## xtui sim faucet" in page and "## xtui keys remove" in page


def test_a_new_flag_shows_up_with_its_default() -> None:
    from tui.cli.main import build_parser
    from tui.reference.command_line import command_line_page, commands

    parser = build_parser()
    screenshot = dict(commands(parser))["xtui screenshot"]
    screenshot.add_argument("--brand-new", metavar="N", default=3, help="a flag nobody has given yet")
    section = _section(command_line_page(parser), "xtui screenshot")
    assert "| `--brand-new N` | a flag nobody has given yet (default: 3) |" in section
    assert "[--brand-new N]" in section


def test_the_usage_is_as_wide_whatever_the_terminal(monkeypatch: pytest.MonkeyPatch, pages: dict[str, str]) -> None:
    from tui.reference.command_line import command_line_page

    monkeypatch.setenv("COLUMNS", "40")
    assert command_line_page() == pages["command-line.md"]


def test_the_sim_rules_page_gives_each_rate_limit_and_rule(pages: dict[str, str], monkeypatch: pytest.MonkeyPatch):
    from tui.reference.sim_rules import sim_rules_page
    from tui.sim.server import ratelimit
    from tui.sim.server.local_exchange import SimConfig

    page = pages["sim-rules.md"]
    limits = _section(page, "Rate limits")
    for name, value in vars(ratelimit.Limits()).items():
        flag = "--" + name.replace("_", "-")
        assert f"| {value:,} | `{flag}` |" in limits, flag
    for flag in ("--faucet", "--sorted-keys", "--batch", "--duplicate-cloid", "--network"):
        assert f"| `{flag}` |" in _section(page, "Switchable rules"), flag
    assert SimConfig().rules_in_force() == []  # the defaults the page gives are the ones that say nothing at start

    class Tighter(ratelimit.Limits):
        def __init__(self) -> None:
            super().__init__(exchange_per_minute=1_234)

    monkeypatch.setattr(ratelimit, "Limits", Tighter)
    assert "| POST /exchange requests a minute | 1,234 | `--exchange-per-minute` |" in sim_rules_page()


def test_every_generated_page_is_linked_from_a_guide() -> None:
    guides = "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
    unlinked = [name for name in render() if f"reference/{name}" not in guides]
    assert not unlinked, f"no guide links to docs/reference/{', '.join(unlinked)}"


def test_argparse_namespace_is_untouched_by_reading() -> None:
    """Reading a parser for the page leaves it parsing as before (the formatter is swapped, nothing else)."""
    from tui.cli.main import build_parser
    from tui.reference.command_line import commands

    parser = build_parser()
    commands(parser)
    args = parser.parse_args(["sim", "--port", "9"])
    assert isinstance(args, argparse.Namespace) and args.port == 9
