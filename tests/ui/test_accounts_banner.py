"""Each profile's colour in the header's "trading as" banner: stable for a name, never red (red is kept for
mainnet and armed mode), and MAINNET drawn in the error colour whatever its name."""

from __future__ import annotations

import colorsys

from hypothesis import given
from hypothesis import strategies as st
from textual.content import Content

from tui.ui.widgets.profile_colour import PROFILE_COLOURS, profile_colour

NAMES = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}", fullmatch=True)


def hue_degrees(colour: str) -> float:
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hsv(r, g, b)[0] * 360


def test_no_colour_of_the_palette_is_near_red_and_each_reads_under_white() -> None:
    """Every hue at least 40 degrees from red's (0/360); every colour dark enough for white bold text."""
    for colour in PROFILE_COLOURS:
        hue = hue_degrees(colour)
        assert 40 <= hue <= 320, (colour, hue)
        r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
        assert 0.2126 * r + 0.7152 * g + 0.0722 * b < 140, colour  # luminance: white stays legible on it


@given(NAMES)
def test_a_profile_name_always_gets_the_same_colour_of_the_palette(name: str) -> None:
    colour = profile_colour(name)
    assert colour in PROFILE_COLOURS and profile_colour(name) == colour
    Content.styled(" x ", f"bold #ffffff on {colour}")  # a style Textual reads


def test_two_common_profile_names_get_different_colours() -> None:
    """The names of the issue's example config (own key, agent, watch-only) are told apart by colour."""
    assert len({profile_colour(n) for n in ("alice", "bob-watch", "carol")}) == 3
