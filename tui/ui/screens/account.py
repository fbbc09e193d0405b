"""The account screen: the whole account summary, account info and rewards, the account value over time,
leverage per instrument (changeable) and the fee rates.

Everything is polled; leverage (one request per perp) only on the first load, on ``r`` and after a change.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, TabbedContent, TabPane

from tui.api.errors import ClientError
from tui.api.models import (
    AccountHistoryPoint,
    AccountInfo,
    AccountSummary,
    LeverageSetting,
    PerpInstrument,
    UserFees,
)
from tui.trading.grammar import FieldError, parse_whole
from tui.ui.widgets.display import fmt_pct, fmt_price, short_address
from tui.ui.widgets.record_format import fmt_amount, fmt_balance, fmt_ms, fmt_seconds, yes_no
from tui.ui.widgets.record_table import Facts, RecordTable

from .account_chart import draw_history, plot_class
from .data_screen import ActionPlan, DataScreen, ScreenContext
from .form import FormField, FormScreen

__all__ = ["AccountScreen"]

COLLATERAL = [("symbol", "Collateral"), ("where", "Account"), ("balance", "Balance"), ("free", "Withdrawable")]
VAULTS = [("vault", "Vault"), ("amount", "Amount"), ("shares", "Total shares"), ("free", "Withdrawable shares")]
LEGS = [
    ("instrument", "Instrument"), ("type", "Type"), ("side", "Side"), ("size", "Size"), ("entry", "Entry"),
    ("leverage", "Leverage"), ("value", "Value"), ("liq", "Liq. price"), ("im", "IM"), ("mm", "MM"),
    ("upnl", "uPnL"),
]  # fmt: skip
REWARDS = [
    ("kind", "Reward"), ("source", "Source"), ("collateral", "Collateral"), ("market", "Market"),
    ("amount", "Amount"), ("claim", "Claim amount"), ("created", "Created"),
]  # fmt: skip
LEVERAGE = [
    ("instrument", "Instrument"), ("margin", "Margin type"), ("leverage", "Leverage"), ("max", "Max leverage"),
    ("isolated", "Isolated only"), ("updated", "Updated"),
]  # fmt: skip
TABS = ("summary", "info", "chart", "leverage")


def margin_facts(s: AccountSummary) -> list[tuple[str, str]]:
    """Every figure of the account summary, labelled."""
    pairs = [
        ("Total equity", fmt_amount(s.total_account_equity, 2)),
        ("Derivatives equity", fmt_amount(s.derivative_account_equity, 2)),
        ("Spot equity", fmt_amount(s.spot_account_equity, 2)),
        ("Margin balance", fmt_amount(s.margin_balance, 2)),
        ("Available", fmt_amount(s.available_balance, 2)),
        ("Transfer margin req.", fmt_amount(s.transfer_margin_req, 2)),
        ("Initial margin", fmt_amount(s.initial_margin, 2)),
        ("Maintenance margin", fmt_amount(s.maintenance_margin, 2)),
        ("uPnL", fmt_amount(s.upnl, 2)),
        ("IM utilisation", fmt_pct(s.initial_margin_utilization, signed=False)),
        ("MM utilisation", fmt_pct(s.maintenance_margin_utilization, signed=False)),
        ("Total PnL", fmt_amount(s.total_pnl, 2)),
        ("Max drawdown", fmt_amount(s.max_drawdown, 2)),
        ("Staked collateral", fmt_amount(s.staked_collateral, 2)),
        ("Total volume", fmt_amount(s.total_volume, 2)),
        ("Spot volume", fmt_amount(s.spot_volume, 2)),
        ("Margin mode", s.margin_mode),
        ("Multi-asset / hedge", f"{yes_no(s.multi_asset_mode)} / {yes_no(s.hedge_mode)}"),
    ]
    if s.perp_volume is not None:
        pairs.append(("Perp volume", fmt_amount(s.perp_volume, 2)))
    if s.withdrawable_balance_notional is not None:
        pairs.append(("Withdrawable notional", fmt_amount(s.withdrawable_balance_notional, 2)))
    return pairs


def info_facts(info: AccountInfo) -> list[tuple[str, str]]:
    a = info.account
    return [
        ("Address", a.address),
        ("Role", str(a.role)),
        ("Margin mode", a.margin_mode),
        ("Multi-asset mode", yes_no(a.multi_asset_mode)),
        ("Hedge mode", yes_no(a.hedge_mode)),
        ("Referrer", a.referrer or "-"),
        ("Referral codes", ", ".join(a.referral_codes) or "-"),
        ("Referred at", fmt_ms(a.referral_timestamp)),
        ("Created", fmt_ms(a.created_at_block_timestamp)),
    ]


def fee_facts(f: UserFees) -> list[tuple[str, str]]:
    def rate(maker: Decimal, taker: Decimal) -> str:
        return f"{fmt_pct(maker, 4)} / {fmt_pct(taker, 4)}"

    return [
        ("Perp maker/taker", rate(f.perp_maker_fee_rate, f.perp_taker_fee_rate)),
        ("Spot maker/taker", rate(f.spot_maker_fee_rate, f.spot_taker_fee_rate)),
        ("Stable spot maker/taker", rate(f.stable_spot_maker_fee_rate, f.stable_spot_taker_fee_rate)),
        ("Option maker/taker", rate(f.option_maker_fee_rate, f.option_taker_fee_rate)),
        ("Perp volume 14d/30d", f"{fmt_amount(f.perp_volume_14d, 2)} / {fmt_amount(f.perp_volume_30d, 2)}"),
        ("Spot volume 14d/30d", f"{fmt_amount(f.spot_volume_14d, 2)} / {fmt_amount(f.spot_volume_30d, 2)}"),
        ("Stable volume 14d/30d",
         f"{fmt_amount(f.stable_spot_volume_14d, 2)} / {fmt_amount(f.stable_spot_volume_30d, 2)}"),
        ("Option volume 14d/30d", f"{fmt_amount(f.option_volume_14d, 2)} / {fmt_amount(f.option_volume_30d, 2)}"),
        ("Volume threshold", fmt_amount(f.total_volume_threshold, 2)),
    ]  # fmt: skip


class AccountScreen(DataScreen):
    SCREEN_TITLE = "Account"
    SIGNED_ACTIONS = frozenset({"set_leverage"})

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "tab('summary')", "Summary", id="account.summary", show=False,
                tooltip="Balances, positions, margin"),
        Binding("2", "tab('info')", "Info", id="account.info", show=False, tooltip="Account info and rewards"),
        Binding("3", "tab('chart')", "Chart", id="account.chart", show=False,
                tooltip="Account value and PnL over time"),
        Binding("4", "tab('leverage')", "Leverage", id="account.leverage", show=False,
                tooltip="Leverage per instrument, fees"),
        Binding("l", "set_leverage", "Set leverage", id="account.set_leverage",
                tooltip="Change the leverage of the selected instrument"),
        Binding("y", "copy_address", "Copy address", id="account.copy_address",
                tooltip="Copy the account's full address (through the terminal's clipboard)"),
    ]  # fmt: skip

    DEFAULT_CSS = """
    AccountScreen TabbedContent, AccountScreen TabPane {
        height: 1fr;
    }
    AccountScreen #summary-tables {
        height: 1fr;
    }
    AccountScreen #summary-tables > Vertical {
        width: 1fr;
    }
    AccountScreen #account-plot {
        height: 1fr;
    }
    """

    def __init__(self, ctx: ScreenContext) -> None:
        super().__init__(ctx)
        self._leverage_stale = True
        self._symbols: dict[int, str] = {}  # collateral id -> symbol
        self._instruments: list[PerpInstrument] = []
        self._history_drawn: tuple[Any, ...] | None = None
        self._points: list[AccountHistoryPoint] = []
        self.leverage: dict[str, LeverageSetting] = {}

    def compose_body(self) -> ComposeResult:
        with TabbedContent(initial="summary", id="account-tabs"):
            with TabPane("1 Summary", id="summary"):
                yield Label("", id="account-address", markup=False)  # whole, on its own line: `xtui export` needs it
                yield Facts(columns=3, id="margin")
                with Horizontal(id="summary-tables"):
                    with Vertical():
                        yield Label("Collateral", classes="section")
                        yield RecordTable(COLLATERAL, id="collateral")
                    with Vertical():
                        yield Label("Vault balances", classes="section")
                        yield RecordTable(VAULTS, id="vaults")
                yield Label("Perp positions (one row per leg)", classes="section")
                yield RecordTable(LEGS, id="legs")
            with TabPane("2 Info & rewards", id="info"):
                yield Facts(columns=2, id="account-info")
                yield Label("Rewards to claim, then reward history", classes="section")
                yield RecordTable(REWARDS, id="rewards")
            with TabPane("3 Value & PnL", id="chart"):
                yield plot_class()(id="account-plot")
            with TabPane("4 Leverage & fees", id="leverage"):
                yield Label("Leverage per instrument (l: change the selected one)", classes="section")
                yield RecordTable(LEVERAGE, id="leverage-table")
                yield Label("Fees", classes="section")
                yield Facts(columns=2, id="fees")

    def action_copy_address(self) -> None:
        """The full address to the terminal's clipboard (OSC 52: a terminal or tmux that ignores it copies nothing),
        and shown whole in the notice, to select by hand if so."""
        if self.account is None:
            self.notify("No account to copy.", severity="warning")
            return
        self.app.copy_to_clipboard(self.account)
        self.notify(f"{self.account} copied (if your terminal takes OSC 52)", title="Address", timeout=8, markup=False)

    def action_tab(self, tab: str) -> None:
        if tab in TABS:
            self.query_one(TabbedContent).active = tab

    def action_reload(self) -> None:
        self._leverage_stale = True
        self.reload()

    # ---- loading --------------------------------------------------------------------------------

    def _perps(self) -> list[PerpInstrument]:
        return [p for p in self._instruments if not p.delisted]

    async def fetch(self) -> None:
        account = self.account
        if account is None:
            self.query_one("#margin", Facts).show([("Account", "none: start with a key or --address")])
            return
        c = self.ctx.client
        if not self._symbols:
            collateral, instruments = await asyncio.gather(c.supported_collateral(), c.instruments())
            self._symbols = {x.id: x.symbol for x in collateral}
            self._instruments = instruments.perps
        summary, info, history = await asyncio.gather(
            c.account_summary(account), c.account_info(account, include_history=True), c.account_history(account)
        )
        try:
            fees: UserFees | str = await c.user_fees(account)
        except ClientError as exc:  # an SDK-only method: the exchange may not answer it
            fees = str(exc)
        perps = self._perps()
        if self._leverage_stale and perps:
            settings = await asyncio.gather(*(c.instrument_leverage(account, p.name) for p in perps))
            self.leverage = {s.instrument: s for s in settings}
            self._leverage_stale = False
        self._show_summary(summary)
        self._show_info(info)
        self._show_history(history)
        self._show_leverage(perps, fees)

    def _show_summary(self, s: AccountSummary) -> None:
        self.query_one("#account-address", Label).update(f"Account {self.account or '-'}  (y copies it)")
        self.query_one("#margin", Facts).show(margin_facts(s))
        rows = []
        for where, balances in (("derivatives", s.collateral), ("spot", s.spot_collateral)):
            for symbol, b in balances.items():
                cells = [symbol, where, fmt_balance(b.balance, symbol), fmt_balance(b.withdrawable_balance, symbol)]
                rows.append((f"{where}:{symbol}", cells))
        self.query_one("#collateral", RecordTable).show(rows)
        vaults = [
            (addr, [short_address(addr), fmt_amount(v.amount, 2), fmt_amount(v.total_shares),
                    fmt_amount(v.withdrawable_shares)])
            for addr, v in s.vault_balances.items()
        ]  # fmt: skip
        self.query_one("#vaults", RecordTable).show(vaults)
        legs = []
        instruments = self.ctx.feed.state.market.instruments
        for name, p in s.perp_positions.items():
            info = instruments.get(name)
            tick = info.tick_size if info is not None else None  # the entry and liquidation prices at the tick
            for i, leg in enumerate(p.legs):
                cells = [
                    leg.instrument_name or name, p.position_type, leg.side, fmt_amount(leg.size),
                    fmt_price(leg.entry_price, tick), f"{leg.leverage.type} {fmt_amount(leg.leverage.value)}x",
                    fmt_amount(leg.position_value, 2),
                    fmt_price(p.liquidation_price, tick) if p.liquidation_price else "-", fmt_amount(p.im, 2),
                    fmt_amount(p.mm, 2), fmt_amount(p.upnl, 2),
                ]  # fmt: skip
                legs.append((f"{name}:{i}", cells))
        self.query_one("#legs", RecordTable).show(legs)

    def _show_info(self, info: AccountInfo) -> None:
        self.query_one("#account-info", Facts).show(info_facts(info))
        rows = []
        for kind, rewards in (("to claim", info.rewards), ("history", info.history)):
            for i, r in enumerate(rewards):
                symbol = self._symbols.get(r.CollateralID, str(r.CollateralID))
                market = "spot" if r.IsSpot else "perp"
                cells = [kind, r.Source, symbol, market, fmt_amount(r.Amount), fmt_amount(r.ClaimAmount),
                         fmt_ms(r.CreatedAt)]  # fmt: skip
                rows.append((f"{kind}:{i}", cells))
        self.query_one("#rewards", RecordTable).show(rows)

    def _show_history(self, history: list[AccountHistoryPoint]) -> None:
        points = sorted(history, key=lambda p: p.created_at)
        key = tuple((p.created_at, p.account_value, p.total_pnl) for p in points)
        if key == self._history_drawn:
            return
        self._history_drawn = key
        self._points = points
        draw_history(self.query_one("#account-plot", plot_class()), points, self.app)

    def on_mount(self) -> None:  # after DataScreen.on_mount (Textual calls both)
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, _theme: object) -> None:
        if self._history_drawn is not None:  # the chart's colours are the theme's
            draw_history(self.query_one("#account-plot", plot_class()), self._points, self.app)

    def _show_leverage(self, perps: list[PerpInstrument], fees: UserFees | str) -> None:
        rows = []
        for p in perps:
            s = self.leverage.get(p.name)
            cells = [
                p.name, s.margin_type if s else "-", f"{fmt_amount(s.leverage)}x" if s else "-", f"{p.max_leverage}x",
                yes_no(p.only_isolated), fmt_seconds(s.updated_at) if s else "-",
            ]  # fmt: skip
            rows.append((p.name, cells))
        self.query_one("#leverage-table", RecordTable).show(rows)
        facts = self.query_one("#fees", Facts)
        facts.show(fee_facts(fees) if isinstance(fees, UserFees) else [("User fees", f"not available: {fees}")])

    # ---- leverage -------------------------------------------------------------------------------

    def action_set_leverage(self) -> None:
        perps = {p.name: p for p in self._perps()}
        if not perps:
            self.notify("No instruments loaded yet.", severity="warning")
            return
        self.action_tab("leverage")
        selected = self.query_one("#leverage-table", RecordTable).selected_key()
        name = selected if selected in perps else next(iter(perps))
        current = self.leverage.get(name)

        def check(values: dict[str, str]) -> ActionPlan:
            symbol = values["instrument"].strip().upper()
            info = perps.get(symbol)
            if info is None:
                raise FieldError("instrument", f"not a perp: one of {', '.join(perps)}")
            lev = parse_whole("leverage", values["leverage"], lo=1, hi=info.max_leverage, what="leverage")
            now = self.leverage.get(symbol)
            lines = [
                f"Instrument      {symbol} (max {info.max_leverage}x)",
                f"Leverage        {fmt_amount(now.leverage) + 'x' if now else '?'} -> {lev}x",
                "The exchange refuses it if a position or orders need more margin than it allows.",
            ]

            async def send() -> Any:
                resp = await self.ctx.client.set_leverage(info.id, lev)
                self._leverage_stale = True
                return resp

            return ActionPlan("Leverage", f"Set {symbol} leverage to {lev}x?", lines, send,
                              outcome=lambda _: f"{symbol} set to {lev}x")  # fmt: skip

        fields = [
            FormField("instrument", "Instrument", name),
            FormField("leverage", "Leverage (x)", "", placeholder=f"1 to {perps[name].max_leverage}"),
        ]
        notes = [f"Now {fmt_amount(current.leverage)}x ({current.margin_type})." if current else ""]
        self.propose("Leverage", FormScreen(f"Leverage on {name}", fields, check, notes=notes))
