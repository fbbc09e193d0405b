"""The semantic trading colours of the current theme, for text the panes build themselves.

CSS uses ``$bid``/``$ask``/``$up``/``$down``/``$stale`` directly. Cells of a DataTable are Rich text, so
they take the same colours from the theme's variables here; panes rebuild them when the theme changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import App

__all__ = ["Palette"]


@dataclass(frozen=True, slots=True)
class Palette:
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
        return cls(
            bid=v.get("bid", "green"),
            ask=v.get("ask", "red"),
            up=v.get("up", "green"),
            down=v.get("down", "red"),
            stale=v.get("stale", "grey50"),
            error=v.get("error", "red"),
            warning=v.get("warning", "yellow"),
            accent=v.get("accent", "yellow"),
            muted=v.get("foreground-muted", v.get("stale", "grey50")),
        )

    def side(self, buy: bool) -> str:
        return self.bid if buy else self.ask

    def move(self, up: bool) -> str:
        return self.up if up else self.down
