"""The documentation holds: every relative link in the README and docs/ reaches a file (and its heading, when it names
one), the README is a front page (short; its first lines give the two commands a new user needs and lead to the
getting-started guide and the keys guide), each guide leads to the references generated from the code (which
tests/test_reference.py holds to the code), and the changelog's top entry is the version xtui prints."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

import tui

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = sorted([README, ROOT / "CHANGELOG.md", ROOT / "tests" / "README.md", *DOCS.glob("*.md"), *DOCS.glob("*/*.md")])
# guide -> the generated references it leads to for the full tables
REFERENCES = {
    "keys.md": ["reference/keys.md"],
    "configuration.md": ["reference/configuration.md", "reference/environment.md"],
    "sim-rules.md": ["reference/sim-rules.md"],
}
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
        assert (DOCS / f"{name}.md").is_file(), name
    for name in ("keys", "configuration", "environment", "command-line", "sim-rules"):
        assert (DOCS / "reference" / f"{name}.md").is_file(), f"reference/{name}.md: run `python -m tui.reference`"


@pytest.mark.parametrize("guide", sorted(REFERENCES))
def test_each_guide_leads_to_its_references_and_repeats_no_table_of_them(guide: str) -> None:
    text = (DOCS / guide).read_text(encoding="utf-8")
    links = relative_links(DOCS / guide)
    assert not [r for r in REFERENCES[guide] if r not in links], f"docs/{guide} does not link {REFERENCES[guide]}"
    tables = re.findall(r"^\| (?:key|variable|rule|limit) \|.*\|$", prose(text), re.M)
    generated = [t for t in tables if t.startswith(("| key | what it does", "| key | value", "| variable |"))]
    assert not generated, f"docs/{guide} keeps a table the generated reference gives: {generated[0]}"


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


def test_the_changelog_tops_with_this_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[?v?(\d[^\]\s]*)", text, re.M)
    assert versions, "CHANGELOG.md has no version heading (## X.Y.Z)"
    assert versions[0] == tui.__version__, f"CHANGELOG.md's top entry is {versions[0]}, xtui is {tui.__version__}"
