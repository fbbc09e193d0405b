"""The header: the profile (MAINNET always in the error colour), the account, the signer, the connection."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.content import Content

from .display import short_address
from .pane import FeedLine

__all__ = ["CONNECTION_STYLES", "ProfileHeader"]

CONNECTION_STYLES = {
    "live": ("●", "$up"),
    "reconnecting": ("◌", "$warning"),
    "polling": ("◐", "$warning"),
    "connecting": ("○", "$stale"),
    "closed": ("○", "$error"),
}


class ProfileHeader(FeedLine):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"status", "markets"})

    DEFAULT_CSS = """
    ProfileHeader {
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    """

    def __init__(self, state: Any, *, profile: str, signer: str | None, demo_key: bool, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.profile = profile
        self.signer = signer
        self.demo_key = demo_key

    def refresh_state(self) -> None:
        status = self.state.status
        account = self.state.account.address
        mainnet = self.profile == "MAINNET"
        profile_style = "bold reverse $error" if mainnet else "bold reverse $primary"
        if self.signer is None:
            signer = Content.styled("watch-only", "bold $warning")
        elif self.signer == account:
            signer = Content(("demo key " if self.demo_key else "key ") + short_address(self.signer))
        else:
            signer = Content(f"agent {short_address(self.signer)}")
        dot, colour = CONNECTION_STYLES.get(status.connection, ("?", "$stale"))
        self.update(
            Content.assemble(
                ("xtui ", "bold"),
                (f" {self.profile} ", profile_style),
                "  account ",
                (short_address(account), "bold"),
                "  ",
                signer,
                "  ",
                (f"{dot} {status.connection}", colour),
                "  ",
                (self.state.market.selected, "bold $accent"),
            )
        )
