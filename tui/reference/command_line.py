"""The command-line reference: every command's parser (``tui.cli.main.build_parser``), walked as ``--help`` writes
it: usage, description, each group of flags with what each does and its default, the epilog, then each sub-command.

The parsers are read through their formatter (a ``HelpFormatter`` is handed each group's arguments in turn), so
nothing here reaches into argparse's private state; the usage is written at a fixed width, not the terminal's.
"""

from __future__ import annotations

import argparse
from typing import Any

from tui.cli.parser import DefaultsFormatter
from tui.reference.markdown import code, page, table

__all__ = ["command_line_page", "commands"]

WIDTH = 100  # characters of a usage block: the page reads the same whatever the terminal's width
Event = tuple[str, Any]


def _recorder(events: list[Event]) -> type[DefaultsFormatter]:
    """A formatter class that notes, in ``events``, what ``format_help`` hands it: texts, sections, arguments."""

    class Recorder(DefaultsFormatter):
        def __init__(self, prog: str) -> None:
            super().__init__(prog, width=WIDTH)

        def add_text(self, text: str | None) -> None:
            if text and text is not argparse.SUPPRESS:
                events.append(("text", text))
            super().add_text(text)

        def start_section(self, heading: str | None) -> None:
            events.append(("section", heading))
            super().start_section(heading)

        def add_arguments(self, actions: Any) -> None:
            rows: list[tuple[str, str, dict[str, argparse.ArgumentParser]]] = []
            for action in actions:
                if action.help is argparse.SUPPRESS or "--help" in action.option_strings:
                    continue  # hidden, or -h/--help, which every command takes
                if isinstance(action.choices, dict):  # the sub-commands: one row each, then their own pages
                    for sub in self._iter_indented_subactions(action):
                        rows.append((sub.dest, self._expand_help(sub) if sub.help else "", {}))
                    rows.append(("", "", dict(action.choices)))
                else:
                    what = self._expand_help(action) if action.help else ""
                    rows.append((self._format_action_invocation(action), what, {}))
            events.append(("args", rows))
            super().add_arguments(actions)

    return Recorder


def _read(parser: argparse.ArgumentParser) -> tuple[str, list[Event]]:
    """(usage, what ``--help`` says in order) of one parser."""
    events: list[Event] = []
    parser.formatter_class = _recorder(events)
    usage = parser.format_usage().strip()
    events.clear()
    parser.format_help()
    return usage, events


def commands(parser: argparse.ArgumentParser | None = None) -> list[tuple[str, argparse.ArgumentParser]]:
    """Every command line, ``xtui`` first, each sub-command after its parent, as (prog, parser)."""
    from tui.cli.main import build_parser

    parser = parser or build_parser()
    out = [(parser.prog, parser)]
    for _kind, value in _read(parser)[1]:
        if _kind == "args":
            for _flag, _what, subs in value:
                for sub in subs.values():
                    out += commands(sub)
    return out


def _text(text: str) -> str:
    """A description or an epilog: prose as it is, or as a block when its lines are laid out (a table, a list)."""
    lines = text.strip("\n").split("\n")
    if len(lines) > 1 and any(line.startswith(" ") for line in lines):
        return "```text\n" + "\n".join(lines) + "\n```"
    return " ".join(line.strip() for line in lines)


def _section(prog: str, parser: argparse.ArgumentParser) -> str:
    usage, events = _read(parser)
    parts = [f"## {prog}", "```text\n" + usage + "\n```"]
    rows: list[list[str]] = []
    heading: list[str] = []  # the section's title, until something of the section is written under it

    def title() -> None:
        if heading:
            parts.append(f"**{heading.pop()}**")

    def flush() -> None:
        if rows:
            title()
            parts.append(table(["argument", "what it does"], rows))
            rows.clear()

    for kind, value in events:
        if kind == "section":
            flush()
            heading[:] = [value] if value else []
        elif kind == "text":
            flush()
            title()
            parts.append(_text(value))
        else:
            rows += [[code(flag.strip()), what] for flag, what, _ in value if flag]
    flush()
    return "\n\n".join(parts)


def command_line_page(parser: argparse.ArgumentParser | None = None) -> str:
    """The page, of ``xtui``'s parser (or ``parser``)."""
    return page(
        "Command-line reference",
        "Every command and flag, as `--help` gives them (`xtui`, then each sub-command; each takes `-h`). A usage "
        "mistake is one line on standard error and exit code 2. `python -m tui.sim` takes the flags of `xtui sim` (and "
        "`--log-level`). What the commands are for: [getting started](../getting-started.md).",
        [_section(prog, p) for prog, p in commands(parser)],
    )
