"""The armed banner: a red line across the dashboard while armed mode skips the order confirmations."""

from __future__ import annotations

from textual.widgets import Static

__all__ = ["ARMED_TEXT", "ArmedBanner"]

ARMED_TEXT = (
    "ARMED: orders go without confirmation · guards still hold · protective cancels, reversals and PANIC still ask"
    " · ! disarms"
)


class ArmedBanner(Static):
    """Shown only while armed; red, the colour kept for danger (mainnet, armed)."""

    DEFAULT_CSS = """
    ArmedBanner {
        height: 1;
        width: 1fr;
        background: $error;
        color: $text;
        text-style: bold;
        content-align: center middle;
        display: none;
    }
    ArmedBanner.-armed {
        display: block;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(ARMED_TEXT, id=id, markup=False)

    def arm(self, armed: bool) -> None:
        self.set_class(armed, "-armed")
