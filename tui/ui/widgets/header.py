"""The header: the "trading as" banner (the profile in a colour of its own, MAINNET always in the error colour,
the account, its signer and the network signed for), then the connection.

Whoever signs is always on show: "account 0x… · signer agent 0x…" when an agent trades for the account,
"own key" when the account signs for itself, and a READ-ONLY or watch-only mark when nothing can sign.
The number of event log entries not yet seen, when there are any ("✉ 3 new events").
PAPER when the exchange is a mirror of another (``xtui sim --mirror``, the paper profile): fake money at the
source's prices, and, while the source does not answer, how long its prices have been frozen and why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.content import Content

from tui.api.paper import PaperStatus
from tui.feed.state import FeedState

from .display import short_address
from .pane import FeedLine
from .profile_colour import profile_colour

__all__ = ["CONNECTION_STYLES", "ProfileHeader"]

CONNECTION_STYLES = {
    "live": ("●", "$up"),
    "stale": ("◔", "$warning"),  # connected, but nothing heard for seconds
    "reconnecting": ("◌", "$warning"),
    "polling": ("◐", "$warning"),
    "connecting": ("○", "$stale"),
    "closed": ("○", "$error"),
}


class ProfileHeader(FeedLine):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"status", "markets", "account", "events"})

    DEFAULT_CSS = """
    ProfileHeader {
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    """

    def __init__(
        self,
        state: FeedState,
        *,
        profile: str,
        signer: str | None,
        demo_key: bool,
        mainnet: bool = False,
        network: str = "testnet",
        read_only: bool = False,
        note: Callable[[], str | None] = lambda: None,
        id: str | None = None,
    ) -> None:
        super().__init__(state, id=id)
        self.profile = profile
        self.signer = signer
        self.demo_key = demo_key
        self.mainnet = mainnet
        self.network = network  # what signatures are for: another network's account is another account
        self.read_only = read_only
        self.note = note  # the guards' word (loss limit reached): after the profile, kept when narrow

    def on_resize(self) -> None:
        self.refit()  # more or less room: the banner says it in more or fewer words

    def _signer(self, account: str | None) -> Content:
        if self.read_only:
            return Content.styled(" READ-ONLY ", "bold reverse $warning")
        if self.signer is None:
            return Content.styled("watch-only", "bold $warning")
        if self.signer == account:
            return Content("demo key" if self.demo_key else "own key")
        return Content.assemble("signer agent ", (short_address(self.signer), "bold"))

    def _paper(self, paper: PaperStatus | None) -> Content:
        if paper is None:
            return Content("")
        # the paper profile's own name already says it
        badge = Content("") if self.profile == "PAPER" else Content.styled(" PAPER ", "bold reverse $accent")
        if paper.live and paper.stale:  # the source answers, but not sanely for these: their prices are held
            held = f" ⚠ held: {paper.reason or ', '.join(paper.stale)}"
            return Content.assemble("  ", badge, (held, "bold $warning"))
        if paper.live:
            return Content.assemble("  ", badge)
        frozen = f" ⚠ source down {paper.age_ms // 1000}s"  # prices frozen where it last was
        return Content.assemble("  ", badge, (frozen, "bold $error"))

    def refresh_state(self) -> None:
        status = self.state.status
        account = self.state.account.address
        # each profile its own colour, so that a switch of account is seen at a glance; red only for mainnet
        profile_style = "bold reverse $error" if self.mainnet else f"bold #ffffff on {profile_colour(self.profile)}"
        network_style = "bold $error" if self.network == "mainnet" else ""
        dot, colour = CONNECTION_STYLES.get(status.connection, ("?", "$stale"))
        note = self.note()
        room = self.content_region.width or 1 << 16  # not laid out yet: the whole line (a resize redraws it)
        for brand, words in (("xtui ", "  trading as "), ("xtui ", "  "), ("", " ")):  # the first that fits
            line = Content.assemble(
                (brand, "bold"),
                (f" {self.profile} ", profile_style),
                *((("  ", ""), (f" {note} ", "bold reverse $warning")) if note else ()),  # first
                self._paper(status.paper),
                words,
                (short_address(account), "bold"),
                " · ",
                self._signer(account),
                " · ",
                (self.network, network_style),
                "  ",
                (f"{dot} {status.connection}", colour),
                "  ",
                (self.state.market.selected, "bold $accent"),
                self._unread(),
            )
            if line.cell_length <= room:
                break
        self.show(line)  # at the narrowest, the market's name is what goes (the book's title says it too)

    def _unread(self) -> Content:
        """How many entries of the event log are not yet seen (N opens it); nothing when none."""
        unread = self.state.account.events.book.unread
        if not unread:
            return Content("")
        plural = "s" if unread != 1 else ""
        return Content.assemble("  ", (f"✉ {unread} new event{plural}", "bold $accent"))
