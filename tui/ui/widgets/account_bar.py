"""The account bar: equity, available balance, margin used and utilisation, uPnL, total PnL."""

from __future__ import annotations

from decimal import Decimal
from typing import ClassVar

from textual.content import Content

from .display import fmt_money, fmt_pct
from .pane import FeedLine

__all__ = ["AccountBar"]


def _pnl(value: Decimal) -> tuple[str, str]:
    return fmt_money(value), "$up" if value >= 0 else "$down"


class AccountBar(FeedLine):
    TOPICS: ClassVar[frozenset[str]] = frozenset({"account"})

    DEFAULT_CSS = """
    AccountBar {
        height: 1;
        background: $boost;
        padding: 0 1;
    }
    """

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
        self.show(
            Content.assemble(
                "Equity ",
                (fmt_money(s.total_account_equity), "bold"),
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
                fmt_money(s.initial_margin),
                sep,
                "IM ",
                fmt_pct(s.initial_margin_utilization, signed=False),
                " MM ",
                fmt_pct(s.maintenance_margin_utilization, signed=False),
            )
        )
