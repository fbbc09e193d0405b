"""The account bar: equity (split into derivatives, spot and vault holdings), available balance, uPnL, total PnL, the
margin in use (isolated margin included) and utilisation. What does not fit the width gives way, least
wanted first: the split, then the utilisation, then the full figures (short forms instead: ``M 4.0k``), then
whole parts from the right. A figure is never cut."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import ClassVar

from textual.content import Content

from tui.feed.risk import margin_in_use

from .display import fmt_money, fmt_money_short, fmt_pct
from .pane import FeedLine, TablePane

__all__ = ["AccountBar"]


def _pnl(value: Decimal, money: Callable[[Decimal], str]) -> tuple[str, str]:
    return money(value), "$up" if value >= 0 else "$down"


class AccountBar(FeedLine):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"account", "positions"})
    # at most once a second while figures keep moving (a change after a quiet spell is drawn at once): with a
    # position open its equity and uPnL move with every mark, and each redraw writes the whole line (~500
    # bytes); the positions pane keeps the same pace, and the two are drawn from one summary (``one_summary``)
    PACE_S: ClassVar[float | None] = 1.0

    DEFAULT_CSS = """
    AccountBar {
        height: 1;
        background: $boost;
        padding: 0 1;
    }
    """

    def on_resize(self) -> None:
        self.refit()  # what fits changed

    def feed_changed(self, topics: frozenset[str]) -> None:
        """News that leaves the line as it is does not wait for a redraw (a poll repeating the summary)."""
        if topics & self.TOPICS and not self.dirty and self.shows(self.line()):
            return
        super().feed_changed(topics)

    summary_drawn: object = None  # the account summary the line was last drawn from

    def refresh_state(self) -> None:
        self.summary_drawn = self.state.account.summary
        self.show(self.line())

    def line(self) -> Content:
        """The bar as the state and the width have it now."""
        account = self.state.account
        s = account.summary
        if account.address is None:
            return Content.styled("no account", "$stale")
        if s is None:
            return Content.styled("account loading…", "$stale")
        sep = ("  │ ", "$foreground-muted")
        muted = "$foreground-muted"
        vaults = sum((v.amount for v in s.vault_balances.values()), Decimal(0))
        split = Content.assemble(
            (" = perps ", muted),
            fmt_money(s.derivative_account_equity),
            (" + spot ", muted),
            fmt_money(s.spot_account_equity),
            *(((" + vaults ", muted), fmt_money(vaults)) if vaults else ()),
        )
        utilisation = Content.assemble(
            sep,
            "IM ",
            fmt_pct(s.initial_margin_utilization, signed=False),
            " MM ",
            fmt_pct(s.maintenance_margin_utilization, signed=False),
        )
        margin = margin_in_use(s, account.positions)

        def parts(with_split: bool, with_utilisation: bool, short: bool) -> list[Content]:
            money = fmt_money_short if short else fmt_money
            return [
                Content.assemble(
                    "Eq " if short else "Equity ",
                    (money(s.total_account_equity), "bold"),
                    split if with_split else "",
                ),
                Content.assemble(sep, "Avail ", (money(s.available_balance), "bold")),
                Content.assemble(sep, "uPnL ", _pnl(s.upnl, money)),
                Content.assemble(sep, "PnL ", _pnl(s.total_pnl, money)),
                Content.assemble(sep, "M " if short else "Margin ", money(margin)),
                *([utilisation] if with_utilisation else []),
            ]

        room = self.size.width  # the content area: the padding is outside it
        choices = ((True, True, False), (False, True, False), (False, False, False), (False, True, True))
        for choice in (*choices, (False, False, True)):
            shown = parts(*choice)
            if room <= 0 or sum(part.cell_length for part in shown) <= room:
                break
        while len(shown) > 1 and sum(part.cell_length for part in shown) > room > 0:
            shown.pop()  # the last whole part goes rather than a figure cut at the edge
        return Content.assemble(*shown)


def one_summary(*widgets: AccountBar | TablePane) -> None:
    """The account bar's uPnL and the positions' come from one account summary at any moment: when one was drawn
    from a newer summary than another shown beside it, that one is drawn now (their paces would keep them apart
    for up to a second, the bar's uPnL a few USDC off the rows' sum)."""
    shown = [w for w in widgets if w.display and w.is_mounted]
    if len({id(getattr(w, "summary_drawn", None)) for w in shown}) > 1:
        for w in shown:
            if getattr(w, "summary_drawn", None) is not w.state.account.summary:
                w.refit()
