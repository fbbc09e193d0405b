"""The documentation holds: every relative link in the README and docs/ reaches a file (and its heading, when it names
one), the README is a front page (short; its first lines give the two commands a new user needs and lead to the
getting-started guide and the keys reference), the keys reference names every key of the dashboard and the order
form, and the changelog's top entry is the version xtui prints."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

import tui

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = sorted([README, ROOT / "CHANGELOG.md", ROOT / "tests" / "README.md", *(ROOT / "docs").glob("*.md")])
MAX_README_LINES = 160
FIRST_SCREEN = 50  # lines: what a new reader sees before scrolling
CI_HEAD = 8  # .ci/run reads the test command from the README's first 8 lines: the first line naming pytest

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def prose(text: str) -> str:
    """The text without its code: fenced blocks (a shell comment is no heading) and inline code."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (letters, digits, -, _ and spaces kept),
    spaces to hyphens."""
    text = heading.strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor of a page's headings, with GitHub's -1, -2 for a repeated one."""
    seen: dict[str, int] = {}
    out = set()
    for match in HEADING.finditer(FENCE.sub("", page.read_text(encoding="utf-8"))):
        base = slug(INLINE_CODE.sub(lambda m: m.group(0).strip("`"), match.group(1)))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def relative_links(page: Path) -> list[str]:
    return [t for t in LINK.findall(prose(page.read_text(encoding="utf-8"))) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


def test_the_pages_exist() -> None:
    for name in ("getting-started", "keys", "trading", "views", "configuration", "ssh", "bots", "performance"):
        assert (ROOT / "docs" / f"{name}.md").is_file(), name


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading #{anchor} in {file.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_slug_is_githubs() -> None:
    assert slug("The price ladder: D") == "the-price-ladder-d"
    assert slug("2. Testnet with your own key") == "2-testnet-with-your-own-key"
    assert slug("The queue model (--fills queue, the default)") == "the-queue-model---fills-queue-the-default"


def test_the_readme_is_a_front_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines (at most {MAX_README_LINES})"
    first = lines[:FIRST_SCREEN]
    start = [line for line in first if "pip install" in line and line.rstrip().endswith("bin/xtui")]
    assert start, "the README's first lines give no command that installs and starts xtui"
    head = "\n".join(first)
    assert "(docs/getting-started.md)" in head, "the first screen does not lead to docs/getting-started.md"
    assert "(docs/keys.md)" in head, "the first screen does not lead to the keys reference, docs/keys.md"


def test_the_test_command_is_where_ci_reads_it() -> None:
    """.ci/run runs ``head -n 8 README.md | grep -m1 pytest``: that line must install the test tools and run pytest,
    and tests/README.md gives the same line."""
    head = README.read_text(encoding="utf-8").splitlines()[:CI_HEAD]
    found = [line for line in head if "pytest" in line]
    assert found, "no test command in the README's first 8 lines"
    command = found[0]
    assert "pip install" in command and "[dev]" in command and "bin/pytest" in command, command
    assert command in (ROOT / "tests" / "README.md").read_text(encoding="utf-8").splitlines()


def test_the_keys_reference_names_every_dashboard_and_form_key() -> None:
    from textual.binding import Binding

    from tui.ui.bindings import APP_BINDINGS
    from tui.ui.screens.main_keys import MAIN_BINDINGS
    from tui.ui.screens.order_form_keys import ORDER_FORM_KEYS

    names = {"question_mark": "?", "at": "@", "exclamation_mark": "!", "slash": "/", "right_square_bracket": "]",
             "left_square_bracket": "[", "plus": "+", "equals_sign": "=", "minus": "-", "f12": "F12",
             "escape": "Escape", "enter": "Enter"}  # fmt: skip
    text = (ROOT / "docs" / "keys.md").read_text(encoding="utf-8")
    missing = []
    for b in [*APP_BINDINGS, *MAIN_BINDINGS, *ORDER_FORM_KEYS]:
        assert isinstance(b, Binding)
        for key in b.key.split(","):
            shown = names.get(key.strip(), key.strip())
            if f"`{shown}`" not in text:
                missing.append(f"{shown} ({b.id})")
    assert not missing, "docs/keys.md does not name: " + ", ".join(missing)


def test_the_changelog_tops_with_this_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[?v?(\d[^\]\s]*)", text, re.M)
    assert versions, "CHANGELOG.md has no version heading (## X.Y.Z)"
    assert versions[0] == tui.__version__, f"CHANGELOG.md's top entry is {versions[0]}, xtui is {tui.__version__}"
