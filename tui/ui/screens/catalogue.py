"""The data screens by name, the keys that open them and how the app opens them.

The screens themselves are imported on first use (``screen_classes``): none of them is on the first frame, and
together they cost ~90 ms of start-up (the account screen's chart brings plotext).

Each key opens its screen over the dashboard (another data screen on top is closed first); Escape goes
back. The bindings are the app's, so the command palette and the help list them.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from textual.app import App
from textual.binding import Binding

from .data_screen import DataScreen, ScreenContext

__all__ = ["SCREEN_BINDINGS", "open_screen", "screen_classes"]


@cache
def screen_classes() -> dict[str, type[DataScreen]]:
    """Every data screen class by name, imported the first time any is asked for."""
    from .account import AccountScreen
    from .agents import AgentsScreen
    from .alerts import AlertsScreen
    from .brokers import BrokersScreen
    from .chase import ChaseScreen
    from .events import EventLogScreen
    from .explorer import ExplorerScreen
    from .history import HistoryScreen
    from .journal import JournalScreen
    from .reference import ReferenceScreen
    from .referrals import ReferralsScreen
    from .twap import TwapScreen
    from .wallet import WalletScreen
    from .watchlist import WatchlistScreen

    return {
        "account": AccountScreen,
        "wallet": WalletScreen,
        "history": HistoryScreen,
        "explorer": ExplorerScreen,
        "reference": ReferenceScreen,
        "referrals": ReferralsScreen,
        "brokers": BrokersScreen,
        "agents": AgentsScreen,
        "journal": JournalScreen,
        "alerts": AlertsScreen,
        "twap": TwapScreen,
        "chase": ChaseScreen,
        "watchlist": WatchlistScreen,
        "events": EventLogScreen,
    }


# key, screen, title, tooltip: each key opens its screen (id "screen_<screen>"), listed in the help and the palette
_SCREEN_KEYS: tuple[tuple[str, str, str, str], ...] = (
    ("A", "account", "Account", "Account: balances, positions, margin, info and rewards, value chart, leverage, fees"),
    ("W", "wallet", "Wallet", "Wallet: withdraw, transfer, spot/derivatives transfer, vault deposit and redeem"),
    ("H", "history", "History", "History: fills, orders, funding and transfers, by page and instrument"),
    ("E", "explorer", "Explorer", "Explorer: the latest blocks, block and transaction look-ups, recent transactions"),
    ("M", "reference", "Markets reference",
     "Markets reference: instruments, margin tiers, collateral, mids, oracle and BBO of everything"),
    ("R", "referrals", "Referrals",
     "Referrals: referrer, codes, referred users, rewards; create a code, set a referrer, claim"),
    ("B", "brokers", "Brokers", "Brokers: approved brokers and their max fee rates; approve one"),
    ("G", "agents", "Agents", "Agents: keys approved to trade for this account; add one (new encrypted key) or revoke"),
    ("J", "journal", "Journal",
     "Trade journal: realized PnL, fees and funding per day and per instrument, with a chart"),
    ("L", "alerts", "Alerts", "Price alerts: above, below or a % move, on last, mark or index; add, edit, delete"),
    ("V", "twap", "TWAP",
     "TWAP: a size in slices over time, each a bounded market order; start, pause, resume, cancel"),
    ("O", "chase", "Chase & OCO",
     "Chase (an order kept at the best bid or ask) and OCO (a take-profit and a stop, one cancels the other); "
     "both run only while xtui runs"),
    ("w", "watchlist", "Watchlist",
     "Watchlist: your instruments with last, 24h change, funding and a sparkline; Enter shows one"),
    ("N", "events", "Event log",
     "Event log: fills (one line per order), triggers, funding, alerts, TWAP steps, refusals, disconnects, with "
     "their time; kept per profile in the data directory"),
)  # fmt: skip

SCREEN_BINDINGS = [
    Binding(key, f"open_screen('{name}')", title, id=f"screen_{name}", show=False, tooltip=tooltip)
    for key, name, title, tooltip in _SCREEN_KEYS
]


def open_screen(app: App[Any], name: str, ctx: ScreenContext, **options: Any) -> DataScreen | None:
    """Open screen ``name`` over the dashboard; None (nothing done) while a dialog is open."""
    top = app.screen
    if not (top.id == "main" or isinstance(top, DataScreen)):
        return None  # a form or a confirmation is open: keys belong to it
    kind = screen_classes()[name]
    if type(top) is kind and not options:
        return top
    for _ in [s for s in app.screen_stack if isinstance(s, DataScreen)]:
        app.pop_screen()
    screen = kind(ctx, **options)
    app.push_screen(screen)
    return screen
