"""The references generated from the code: docs/reference/*.md, written by ``python -m tui.reference``.

Each page is rendered from the table the code itself runs on: the keys from the one key table (``tui.ui.bindings``),
the configuration from the config's schema (``tui.config``), the environment variables from
``tui.config.environment``, the command line from the parsers (``tui.cli.main.build_parser``), the sim's rules from
the local exchange's own constants. tests/test_reference.py fails when a committed page differs from what the code
renders now. Nothing else of xtui imports this package.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["render"]


def _pages() -> dict[str, Callable[[], str]]:
    from tui.reference.command_line import command_line_page
    from tui.reference.configuration import configuration_page
    from tui.reference.environment import environment_page
    from tui.reference.keys import keys_page
    from tui.reference.sim_rules import sim_rules_page

    return {
        "keys.md": keys_page,
        "configuration.md": configuration_page,
        "environment.md": environment_page,
        "command-line.md": command_line_page,
        "sim-rules.md": sim_rules_page,
    }


def render() -> dict[str, str]:
    """Every page's file name (in docs/reference/) and its text, as the code says now."""
    return {name: write() for name, write in _pages().items()}
