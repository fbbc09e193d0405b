"""The wallet screen: balances per collateral, the vaults and this account's shares, and the money moves.

o withdraw (out) · t transfer to another address · i internal transfer (spot <-> derivatives) · d deposit into the
selected vault · v redeem from it. Each is a form checked by ``WalletView``, then a confirmation that says
what will move (default No); the result and its transaction hash stay on the result line.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Label

from tui.api.models import Collateral, Vault
from tui.ui.widgets.display import short_address
from tui.ui.widgets.record_format import fmt_amount, fmt_balance, yes_no
from tui.ui.widgets.record_table import Facts, RecordTable

from .data_screen import ActionPlan, DataScreen, ScreenContext
from .form import FormField, FormScreen
from .wallet_plans import WalletView

__all__ = ["WalletScreen"]

BALANCES = [
    ("symbol", "Collateral"), ("decimals", "Decimals"), ("deriv", "Derivatives"), ("deriv_free", "Withdrawable"),
    ("spot", "Spot"), ("spot_free", "Withdrawable"), ("fee", "Withdrawal fee"), ("chains", "Chains"),
]  # fmt: skip
VAULTS = [
    ("name", "Vault"), ("symbol", "Symbol"), ("address", "Address"), ("cap", "Deposit cap"), ("lock", "Lock-in"),
    ("commission", "Commission"), ("open", "Deposits"), ("amount", "My amount"), ("shares", "My shares"),
    ("free", "Withdrawable shares"),
]  # fmt: skip


class WalletScreen(DataScreen):
    SCREEN_TITLE = "Wallet"
    SIGNED_ACTIONS = frozenset({"withdraw", "transfer", "internal", "deposit", "redeem"})

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "withdraw", "Withdraw", id="wallet.withdraw", tooltip="Withdraw collateral to a chain (out)"),
        Binding("t", "transfer", "Transfer", id="wallet.transfer", tooltip="Send collateral to another address"),
        Binding("i", "internal", "Spot<->Perp", id="wallet.internal",
                tooltip="Move collateral between the spot and derivatives balances"),
        Binding("d", "deposit", "Vault deposit", id="wallet.deposit", tooltip="Deposit into the selected vault"),
        Binding("v", "redeem", "Vault redeem", id="wallet.redeem", tooltip="Redeem shares of the selected vault"),
    ]  # fmt: skip

    DEFAULT_CSS = """
    WalletScreen #balances {
        height: auto;
        max-height: 12;
    }
    """

    def __init__(self, ctx: ScreenContext) -> None:
        super().__init__(ctx)
        self.view: WalletView | None = None
        self._collateral: dict[str, Collateral] = {}

    def compose_body(self) -> ComposeResult:
        yield Facts(columns=3, id="wallet-facts")
        yield Label("Balances per collateral", classes="section")
        yield RecordTable(BALANCES, id="balances")
        yield Label("Vaults", classes="section")
        yield RecordTable(VAULTS, id="vault-list")

    def action_reload(self) -> None:
        self._collateral = {}
        self.reload()

    async def fetch(self) -> None:
        account = self.account
        if account is None:
            self.query_one("#wallet-facts", Facts).show([("Account", "none: start with a key or --address")])
            return
        c = self.ctx.client
        if not self._collateral:
            self._collateral = {x.symbol: x for x in await c.supported_collateral()}
        summary, vaults = await asyncio.gather(c.account_summary(account), c.vaults())
        self.view = WalletView(c, account, summary, self._collateral,
                               {v.vault_address.lower(): v for v in vaults.vaults})  # fmt: skip
        self._show()

    def _show(self) -> None:
        view = self.view
        if view is None:
            return
        s = view.summary
        self.query_one("#wallet-facts", Facts).show([
            ("Available (derivatives)", fmt_amount(s.available_balance, 2)),
            ("Transfer margin req.", fmt_amount(s.transfer_margin_req, 2)),
            ("Total equity", fmt_amount(s.total_account_equity, 2)),
        ])  # fmt: skip
        symbols = list(view.collateral) + [k for k in {**s.collateral, **s.spot_collateral} if k not in view.collateral]
        rows = []
        for symbol in symbols:
            info = view.collateral.get(symbol)
            d, sp = view.derivatives(symbol), view.spot(symbol)
            chains = ", ".join(str(b.bridge_chain_id) for b in info.bridge_by_chain if b.enabled) if info else "-"
            rows.append((symbol, [
                symbol, str(info.decimals) if info else "-", fmt_balance(d.balance, symbol),
                fmt_balance(d.withdrawable_balance, symbol), fmt_balance(sp.balance, symbol),
                fmt_balance(sp.withdrawable_balance, symbol),
                fmt_amount(info.withdrawal_fee) if info else "-", chains,
            ]))  # fmt: skip
        self.query_one("#balances", RecordTable).show(rows)
        holdings = {a.lower(): h for a, h in s.vault_balances.items()}
        vault_rows = []
        for key, v in view.vaults.items():
            h = holdings.get(key)
            vault_rows.append((key, [
                v.name, v.symbol, short_address(v.vault_address), fmt_amount(v.deposit_cap),
                f"{v.lock_in_period // 3_600_000} h", f"{fmt_amount(v.commission * 100)}%",
                "closed" if v.is_closed else yes_no(v.allow_deposits), fmt_amount(h.amount, 2) if h else "-",
                fmt_amount(h.total_shares) if h else "-", fmt_amount(h.withdrawable_shares) if h else "-",
            ]))  # fmt: skip
        self.query_one("#vault-list", RecordTable).show(vault_rows)

    # ---- the forms ------------------------------------------------------------------------------

    def _ready(self, what: str) -> WalletView | None:
        if self.view is None:
            self.notify(f"{what}: the balances are not loaded yet.", severity="warning")
        return self.view

    def _symbol(self) -> str:
        selected = self.query_one("#balances", RecordTable).selected_key()
        return selected or "USDC"

    def _vault(self) -> Vault | None:
        view = self.view
        key = self.query_one("#vault-list", RecordTable).selected_key()
        return view.vaults.get(key) if view and key else None

    def _form(self, what: str, title: str, fields: list[FormField], check: Any, notes: list[str]) -> None:
        self.propose(what, FormScreen[ActionPlan](title, fields, check, notes=notes))

    def action_withdraw(self) -> None:
        if (view := self._ready("Withdraw")) is None:
            return
        symbol = self._symbol()
        info = view.collateral.get(symbol)
        chains = [str(b.bridge_chain_id) for b in info.bridge_by_chain if b.enabled] if info else []
        free = view.derivatives(symbol).withdrawable_balance
        self._form("Withdraw", "Withdraw from the derivatives balance", [
            FormField("collateral", "Collateral", symbol),
            FormField("amount", "Amount", placeholder=f"up to {fmt_amount(free)} less the fee"),
            FormField("chain", "Chain id", chains[0] if chains else "", placeholder=" ".join(chains)),
        ], view.withdraw, [f"Chains for {symbol}: {', '.join(chains) or 'none'}"])  # fmt: skip

    def action_transfer(self) -> None:
        if (view := self._ready("Transfer")) is None:
            return
        symbol = self._symbol()
        free = view.derivatives(symbol).withdrawable_balance
        self._form("Transfer", "Send from the derivatives balance to another address", [
            FormField("collateral", "Collateral", symbol),
            FormField("amount", "Amount", placeholder=f"up to {fmt_amount(free)}"),
            FormField("destination", "To address", placeholder="0x… (EIP-55 checksum)"),
        ], view.transfer, [])  # fmt: skip

    def action_internal(self) -> None:
        if (view := self._ready("Internal transfer")) is None:
            return
        symbol = self._symbol()
        self._form("Internal transfer", "Move between the spot and derivatives balances", [
            FormField("collateral", "Collateral", symbol),
            FormField("to", "To balance", "derivatives", placeholder="derivatives or spot"),
            FormField("amount", "Amount"),
        ], view.internal, [
            f"{symbol}: spot {fmt_amount(view.spot(symbol).withdrawable_balance)} withdrawable, derivatives "
            f"{fmt_amount(view.derivatives(symbol).withdrawable_balance)} withdrawable",
        ])  # fmt: skip

    def action_deposit(self) -> None:
        if (view := self._ready("Vault deposit")) is None:
            return
        vault = self._vault()
        fields = [
            FormField("vault", "Vault address", vault.vault_address if vault else ""),
            FormField("amount", "Amount"),
        ]
        note = f"{vault.name}: deposits {'open' if vault.allow_deposits else 'closed'}" if vault else ""
        self._form("Vault deposit", "Deposit into a vault", fields, view.deposit, [note])

    def action_redeem(self) -> None:
        if (view := self._ready("Vault redeem")) is None:
            return
        vault = self._vault()
        fields = [
            FormField("vault", "Vault address", vault.vault_address if vault else ""),
            FormField("shares", "Shares"),
        ]
        note = f"{vault.name} ({vault.symbol})" if vault else "Pick a vault in the list first, or type its address"
        self._form("Vault redeem", "Redeem vault shares", fields, view.redeem, [note])
