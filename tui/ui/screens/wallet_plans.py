"""The wallet's forms as checks: typed text in, a confirmed-ready ``ActionPlan`` out, or a ``FieldError``.

Every amount is checked against the collateral's decimals and what the source balance can give
(``withdrawable_balance``, or the vault's withdrawable shares), every address against its EIP-55
checksum, every chain against the collateral's enabled bridges. The plan's lines say what will move.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import msgspec

from tui.api.client import Client
from tui.api.models import AccountSummary, Balance, Collateral, ExchangeResponse, Vault
from tui.trading.grammar import FieldError, parse_address, parse_amount, parse_choice, parse_whole
from tui.ui.widgets.record_format import fmt_amount, fmt_balance

from .data_screen import ActionPlan, money_lines

__all__ = ["SHARE_DECIMALS", "WalletView"]

SHARE_DECIMALS = 18  # vault shares: the interface gives no precision; the exchange rounds
ZERO_BALANCE = Balance(balance=Decimal(0), withdrawable_balance=Decimal(0))


class WalletView(msgspec.Struct, frozen=True):
    """What the wallet's forms are checked against: the account's balances, the collateral, the vaults."""

    client: Client
    account: str
    summary: AccountSummary
    collateral: dict[str, Collateral]  # by symbol
    vaults: dict[str, Vault]  # by lower-case address

    # ---- pieces ---------------------------------------------------------------------------------

    def _collateral(self, text: str) -> Collateral:
        return self.collateral[parse_choice("collateral", text, self.collateral)]

    def derivatives(self, symbol: str) -> Balance:
        return self.summary.collateral.get(symbol, ZERO_BALANCE)

    def spot(self, symbol: str) -> Balance:
        return self.summary.spot_collateral.get(symbol, ZERO_BALANCE)

    def _amount(self, text: str, c: Collateral, available: Decimal, where: str) -> Decimal:
        return parse_amount("amount", text, decimals=c.decimals, maximum=available, unit=c.symbol,
                            limit_name=f"withdrawable from the {where} balance")  # fmt: skip

    def _vault(self, text: str) -> Vault:
        address = parse_address("vault", text)
        vault = self.vaults.get(address.lower())
        if vault is None:
            raise FieldError("vault", "not a vault of this exchange: pick one from the list")
        return vault

    def _symbol_of(self, collateral_id: int) -> Collateral:
        found = next((c for c in self.collateral.values() if c.id == collateral_id), None)
        if found is None:
            raise FieldError("amount", f"the vault's asset (collateral {collateral_id}) is not listed")
        return found

    # ---- the forms ------------------------------------------------------------------------------

    def withdraw(self, values: dict[str, str]) -> ActionPlan:
        c = self._collateral(values["collateral"])
        held = self.derivatives(c.symbol)
        fee = c.withdrawal_fee  # whole tokens, taken on top of the amount
        amount = parse_amount("amount", values["amount"], decimals=c.decimals, unit=c.symbol,
                              maximum=max(Decimal(0), held.withdrawable_balance - fee),
                              limit_name=f"withdrawable after the {fmt_amount(fee)} {c.symbol} fee")  # fmt: skip
        chains = {b.bridge_chain_id: b for b in c.bridge_by_chain if b.enabled}
        chain = parse_whole("chain", values["chain"], lo=0, hi=2**63, what="chain id")
        if chain not in chains:
            raise FieldError("chain", f"{c.symbol} goes out on chains {', '.join(map(str, chains)) or 'none'}")
        lines = money_lines([
            ("Amount", f"{amount:f} {c.symbol}"),
            ("From", f"the derivatives balance of {self.account}"),
            ("To", f"chain {chain}, bridge {chains[chain].bridge_contract_address}"),
            ("Withdrawal fee", f"{fmt_amount(fee)} {c.symbol}, on top of the amount"),
            ("Withdrawable after", f"{fmt_balance(held.withdrawable_balance - amount - fee, c.symbol)} {c.symbol}"),
        ])  # fmt: skip

        async def send() -> ExchangeResponse[Any]:
            return await self.client.withdraw(c.id, amount, chain)

        return ActionPlan("Withdraw", f"Withdraw {amount:f} {c.symbol} to chain {chain}?", lines, send,
                          outcome=lambda _: f"{amount:f} {c.symbol} withdrawn to chain {chain}")  # fmt: skip

    def transfer(self, values: dict[str, str]) -> ActionPlan:
        c = self._collateral(values["collateral"])
        held = self.derivatives(c.symbol)
        amount = self._amount(values["amount"], c, held.withdrawable_balance, "derivatives")
        destination = parse_address("destination", values["destination"])
        if destination.lower() == self.account.lower():
            raise FieldError("destination", "that is this account: use an internal transfer to move between balances")
        lines = money_lines([
            ("Amount", f"{amount:f} {c.symbol}"),
            ("From", f"the derivatives balance of {self.account} (this account)"),
            ("To", destination),
            ("Withdrawable after", f"{fmt_balance(held.withdrawable_balance - amount, c.symbol)} {c.symbol}"),
            ("", "A transfer to another address cannot be undone."),
        ])  # fmt: skip

        async def send() -> ExchangeResponse[Any]:
            return await self.client.transfer(c.id, amount, destination)

        return ActionPlan("Transfer", f"Send {amount:f} {c.symbol} to {destination[:10]}…?", lines, send,
                          outcome=lambda _: f"{amount:f} {c.symbol} sent to {destination}")  # fmt: skip

    def internal(self, values: dict[str, str]) -> ActionPlan:
        c = self._collateral(values["collateral"])
        to = parse_choice("to", values["to"], ("derivatives", "spot"))
        source = "spot" if to == "derivatives" else "derivatives"
        held = self.spot(c.symbol) if source == "spot" else self.derivatives(c.symbol)
        amount = self._amount(values["amount"], c, held.withdrawable_balance, source)
        left = fmt_balance(held.withdrawable_balance - amount, c.symbol)
        lines = money_lines([
            ("Amount", f"{amount:f} {c.symbol}"),
            ("From", f"the {source} balance"),
            ("To", f"the {to} balance (same account)"),
            (f"{source.capitalize()} after", f"{left} {c.symbol} free"),
        ])  # fmt: skip

        async def send() -> ExchangeResponse[Any]:
            return await self.client.internal_transfer(c.id, amount, to_derivatives=to == "derivatives")

        return ActionPlan("Internal transfer", f"Move {amount:f} {c.symbol} from {source} to {to}?", lines, send,
                          outcome=lambda _: f"{amount:f} {c.symbol} moved from {source} to {to}")  # fmt: skip

    def deposit(self, values: dict[str, str]) -> ActionPlan:
        vault = self._vault(values["vault"])
        if vault.is_closed or not vault.allow_deposits:
            raise FieldError("vault", f"{vault.name} does not take deposits now")
        c = self._symbol_of(vault.underlying_asset_id)
        held = self.derivatives(c.symbol)
        amount = self._amount(values["amount"], c, held.withdrawable_balance, "derivatives")
        lines = money_lines([
            ("Amount", f"{amount:f} {c.symbol} from the derivatives balance"),
            ("Vault", f"{vault.name} ({vault.symbol}) {vault.vault_address}"),
            ("Lock-in", f"{vault.lock_in_period // 3_600_000} h before shares can be redeemed"),
            ("Commission", f"{fmt_amount(vault.commission * 100)}% of profits to the manager"),
        ])  # fmt: skip

        async def send() -> ExchangeResponse[Any]:
            return await self.client.vault_deposit(vault.vault_address, amount)

        def outcome(resp: ExchangeResponse[Any]) -> str:
            minted = resp.data.get("shares_minted") if isinstance(resp.data, dict) else None
            return f"{amount:f} {c.symbol} into {vault.name}" + (f", {minted} shares minted" if minted else "")

        return ActionPlan("Vault deposit", f"Deposit {amount:f} {c.symbol} into {vault.name}?", lines, send, outcome)

    def redeem(self, values: dict[str, str]) -> ActionPlan:
        vault = self._vault(values["vault"])
        holding = next((h for a, h in self.summary.vault_balances.items() if a.lower() == vault.vault_address.lower()),
                       None)  # fmt: skip
        free = holding.withdrawable_shares if holding else Decimal(0)
        shares = parse_amount("shares", values["shares"], decimals=SHARE_DECIMALS, maximum=free, unit="shares",
                              limit_name=f"withdrawable in {vault.name}")  # fmt: skip
        value = holding.amount * shares / holding.total_shares if holding and holding.total_shares else None
        lines = money_lines([
            ("Shares", f"{shares:f} of {fmt_amount(holding.total_shares) if holding else 0} held"),
            ("Vault", f"{vault.name} ({vault.symbol}) {vault.vault_address}"),
            ("Worth about", f"{fmt_amount(value, 2)} now (the exchange prices it when it redeems)"),
        ])  # fmt: skip

        async def send() -> ExchangeResponse[Any]:
            return await self.client.vault_redeem(vault.vault_address, shares)

        return ActionPlan("Vault redeem", f"Redeem {shares:f} shares of {vault.name}?", lines, send,
                          outcome=lambda _: f"{shares:f} shares of {vault.name} redeemed")  # fmt: skip
