"""The Markdown every generated page is written in: a title, the line that says the page is generated, tables."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["COMMAND", "code", "page", "table"]

COMMAND = "python -m tui.reference"


def code(text: str) -> str:
    """``text`` as inline code (a backtick inside takes a longer fence)."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|") or " "


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table; a ``|`` in a cell is escaped and line breaks become spaces."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def page(title: str, intro: str, sections: Iterable[str]) -> str:
    """A whole page: its title, the generated-page line, an introduction, then its sections, one blank line apart."""
    said = f"Generated from the code by `{COMMAND}`: change the code, then run it again (do not edit this page)."
    parts = [f"# {title}", f"> {said}", intro.strip(), *(s.strip() for s in sections)]
    return "\n\n".join(p for p in parts if p) + "\n"
