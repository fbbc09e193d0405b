"""xtui: a keyboard-driven terminal trading dashboard, with a local exchange built in."""

__version__ = "0.1.0"
