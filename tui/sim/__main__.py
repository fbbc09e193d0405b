"""``python -m tui.sim``: the local exchange alone, as the dashboard starts it (``tui.sim.process``).

The same flags as ``xtui sim``, without the rest of ``xtui``'s command line (its profiles, its other
commands) to import first: the dashboard waits for this process, so it starts with as little as it can.
Its log level is the dashboard's, passed down (``--log-level``), not read again from the config.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from tui.edges.safe_text import printable
from tui.logs import LEVELS, redact, setup_logging
from tui.sim.uvicorn_cli import load_uvicorn_without_its_command_line

PROG = "python -m tui.sim"


class _Parser(argparse.ArgumentParser):
    """A usage error in one line and exit code 2, as ``xtui``'s own parser says it (``tui.cli.parser``, a layer
    above the sim: not imported here)."""

    def error(self, message: str) -> NoReturn:
        said = printable(redact(message.removeprefix("argument ")), 400)  # it may quote what was typed
        self.exit(2, f"{PROG}: error: {said} ({PROG} --help)\n")


def main() -> int:
    load_uvicorn_without_its_command_line()  # before anything imports it
    from tui.sim.options import add_sim_arguments, run_from_args

    parser = _Parser(prog=PROG, description="the local exchange alone")
    add_sim_arguments(parser)
    parser.add_argument("--log-level", choices=LEVELS, default="info", help="of the log file (default info)")
    args = parser.parse_args()
    setup_logging(args.log_level)
    return run_from_args(args)


if __name__ == "__main__":
    sys.exit(main())
