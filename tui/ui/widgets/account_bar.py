"""The account bar: equity (split into derivatives, spot and vault holdings), available balance, uPnL, total PnL, the
margin in use (isolated margin included) and utilisation. Parts that do not fit the width are left out,
least wanted first: the split, then the utilisation."""

from __future__ import annotations

from decimal import Decimal
from typing import ClassVar

from textual.content import Content

from tui.feed.risk import margin_in_use

from .display import fmt_money, fmt_pct
from .pane import FeedLine

__all__ = ["AccountBar"]


def _pnl(value: Decimal) -> tuple[str, str]:
    return fmt_money(value), "$up" if value >= 0 else "$down"


class AccountBar(FeedLine):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"account", "positions"})

    DEFAULT_CSS = """
    AccountBar {
        height: 1;
        background: $boost;
        padding: 0 1;
    }
    """

    def on_resize(self) -> None:
        self.dirty = True  # what fits changed

    def refresh_state(self) -> None:
        account = self.state.account
        s = account.summary
        if account.address is None:
            self.show(Content.styled("no account", "$stale"))
            return
        if s is None:
            self.show(Content.styled("account loading…", "$stale"))
            return
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

        def line(with_split: bool, with_utilisation: bool) -> Content:
            return Content.assemble(
                "Equity ",
                (fmt_money(s.total_account_equity), "bold"),
                split if with_split else "",
                sep,
                "Avail ",
                (fmt_money(s.available_balance), "bold"),
                sep,
                "uPnL ",
                _pnl(s.upnl),
                sep,
                "PnL ",
                _pnl(s.total_pnl),
                sep,
                "Margin ",
                fmt_money(margin),
                utilisation if with_utilisation else "",
            )

        room = self.size.width - 2  # the padding
        for choice in ((True, True), (False, True), (False, False)):
            content = line(*choice)
            if room <= 0 or content.cell_length <= room:
                break
        self.show(content)
