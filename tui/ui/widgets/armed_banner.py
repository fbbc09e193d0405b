"""The armed banner: a red line across the dashboard while armed mode skips the order confirmations."""

from __future__ import annotations

from textual.widget import Widget

__all__ = ["ARMED_TEXTS", "ArmedBanner"]

# longest first: the first that fits the width is shown
ARMED_TEXTS = (
    "ARMED: orders go without confirmation · the guards still hold · stop removals, reversals and PANIC still ask"
    " · ! disarms",
    "ARMED: no order confirmations · guards hold · stop removals, reversals, PANIC still ask · ! disarms",
    "ARMED: no order confirmations · guards hold · ! disarms",
    "ARMED · ! disarms",
)


class ArmedBanner(Widget):
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

    def render(self) -> str:
        width = self.size.width
        return next((text for text in ARMED_TEXTS if len(text) <= width), ARMED_TEXTS[-1])

    def arm(self, armed: bool) -> None:
        self.set_class(armed, "-armed")
