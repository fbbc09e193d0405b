"""The argument parser every ``xtui`` command line is read with: a usage error is one line and exit code 2.

Argparse's own ``error`` prints the whole usage (20 lines for ``xtui``, more for ``xtui sim``) and the useful
line last; here it is that line alone, with where to read more:
``xtui sim: error: --speed: not a plain decimal ...: 'x' (xtui sim --help)``. And each flag's help says its
default (``DefaultsFormatter``). Argparse only: the parser is built on every start of ``xtui``.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any, NoReturn

from tui.edges.safe_text import printable
from tui.logs import redact

__all__ = ["USAGE_EXIT", "DefaultsFormatter", "Parser", "UsageError", "usage_line"]

_COMMAND_CHOICE = re.compile(r"^(?:command|\{[\w,-]+\}): invalid choice: ")
USAGE_EXIT = 2  # argparse's, and every Unix tool's, code for a command line it cannot read


class UsageError(Exception):
    """A mistake in the command line found after argparse: one line, as argparse's own, and exit code 2."""


class DefaultsFormatter(argparse.HelpFormatter):
    """Each flag's help ends with "(default: X)" when it has a value by default and does not say so itself (a
    switch, off by default, and a flag that is "not given" by default say nothing); a description's or an
    epilog's own line breaks, and its indented lines, are kept."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        help_, default = action.help, action.default
        if not help_ or not action.option_strings or "default" in help_.lower():
            return help_
        if default is None or default is argparse.SUPPRESS or isinstance(default, bool) or default == []:
            return help_
        return f"{help_} (default: %(default)s)"

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        fill = super()._fill_text  # a line that starts indented is a table's row: kept as it is
        return "\n".join(indent + line if line[:1] == " " else fill(line, width, indent) for line in text.split("\n"))


def usage_line(prog: str, message: str) -> str:
    """The one line of a usage error: what was wrong, and which help to read."""
    said = message.removeprefix("argument ")  # argparse's "argument --speed: ..." reads better without it
    said = _COMMAND_CHOICE.sub("unknown command ", said)  # "command: invalid choice: 'x'", "{path,show,init}: ..."
    # it may quote what was typed: no escape reaches the terminal, and nothing shaped like a key is repeated
    return f"{prog}: error: {printable(redact(said), 400)} ({prog} --help)\n"


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr (exit code 2) and whose help gives defaults.

    Sub-commands' parsers are of the same class (``add_subparsers`` makes its parsers of the parent's class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self._exit_with(self.prog, message)

    def parse_args(self, *args: Any, **kwargs: Any) -> Any:
        """As argparse's, but a flag the sub-command does not take names that sub-command's help
        (``xtui config: error: unrecognized arguments: --x (xtui config --help)``), where argparse names the top's."""
        parsed, extras = self.parse_known_args(*args, **kwargs)
        if extras:
            command = getattr(parsed, "command", None)
            prog = f"{self.prog} {command}" if isinstance(command, str) and command else self.prog
            self._exit_with(prog, f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    @staticmethod
    def _exit_with(prog: str, message: str) -> NoReturn:
        sys.stderr.write(usage_line(prog, message))
        sys.stderr.flush()
        raise SystemExit(USAGE_EXIT)
