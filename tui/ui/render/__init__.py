"""Every use of Textual's private API, and nothing else: what each module relies on is named in
``tests/ui/test_render_contract.py``, so a Textual upgrade that moves it fails there, by name.

Each patch that is there for speed or bytes (not for correctness) can be left out for a run, so that it is measured
against Textual as it is (``xtui bench --only render``): ``XTUI_PLAIN`` names them, comma-separated."""

from __future__ import annotations

import os

__all__ = ["PATCHES", "plain"]

# the patches that earn their place by a figure, and what they do
PATCHES = {
    "sgr": "colour changes written as differences (lean_output.compress_sgr)",
    "whole_frame": "what the terminal already shows is not written again (whole_frame.TerminalLines)",
    "first_row": "a key's answer: its first row written at once, the rest 8 ms later (lean_app)",
    "cell_table": "a table cell updated repaints that cell only (cell_table.CellTable)",
    "lean_screen": "a change behind a dialog drawn as its own lines; no restyle on first show (screens.LeanScreen)",
}


def plain(patch: str) -> bool:
    """Whether ``patch`` is left out for this run (``XTUI_PLAIN``: a bench knob, not a setting)."""
    return patch in os.environ.get("XTUI_PLAIN", "").split(",")
