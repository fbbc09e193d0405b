"""The semantic trading colours of the current theme, for text the panes build themselves.

CSS uses ``$bid``/``$ask``/``$up``/``$down``/``$stale`` directly. Cells of a DataTable are Rich text, so
they take the same colours from the theme's variables here; panes rebuild them when the theme changes.
Rich has no alpha, so a translucent variable (``$foreground-muted`` is the foreground at 60%) is laid
over the theme's surface here, into the solid colour it shows as.
"""

from __future__ import annotations

import msgspec
from textual.app import App
from textual.color import Color, ColorParseError

__all__ = ["Palette"]


class Palette(msgspec.Struct, frozen=True):
    bid: str
    ask: str
    up: str
    down: str
    stale: str
    error: str
    warning: str
    accent: str
    muted: str

    @classmethod
    def of(cls, app: App[object]) -> Palette:
        v = app.theme_variables
        surface = v.get("surface", "#000000")

        def solid(name: str, default: str) -> str:
            return _solid(v.get(name, default), surface)

        return cls(
            bid=solid("bid", "green"),
            ask=solid("ask", "red"),
            up=solid("up", "green"),
            down=solid("down", "red"),
            stale=solid("stale", "grey50"),
            error=solid("error", "red"),
            warning=solid("warning", "yellow"),
            accent=solid("accent", "yellow"),
            muted=solid("foreground-muted", v.get("stale", "grey50")),
        )

    def side(self, buy: bool) -> str:
        return self.bid if buy else self.ask

    def move(self, up: bool) -> str:
        return self.up if up else self.down


def _solid(value: str, surface: str) -> str:
    """``value`` as a solid colour (Rich ignores alpha): laid over ``surface`` when translucent."""
    try:
        color = Color.parse(value)
    except ColorParseError:
        return value  # a Rich colour name Textual does not know ("grey50"): Rich takes it as it is
    if color.a >= 1:
        return value
    try:
        under = Color.parse(surface)
    except ColorParseError:
        under = Color(0, 0, 0)
    return (under + color).hex
