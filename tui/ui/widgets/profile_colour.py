"""Each profile's own colour, for the header's "trading as" banner: derived from the profile's name, so the same
profile is the same colour every run and two profiles side by side rarely share one. No red among them: red is
kept for mainnet and armed mode, whatever the profile is called."""

from __future__ import annotations

import zlib

__all__ = ["PROFILE_COLOURS", "profile_colour"]

# Dark enough under white bold text, and none within 40 degrees of red's hue (tests/ui/test_accounts_banner.py).
PROFILE_COLOURS = (
    "#1f5fbf",  # blue
    "#0e7a70",  # teal
    "#3b7f2c",  # green
    "#6a4fb3",  # violet
    "#866a0c",  # ochre
    "#26708f",  # steel
    "#5d7a1e",  # olive
    "#44598f",  # slate
)


def profile_colour(name: str) -> str:
    """The colour of profile ``name`` (a hex RGB string): the same name, the same colour."""
    return PROFILE_COLOURS[zlib.crc32(name.encode()) % len(PROFILE_COLOURS)]
