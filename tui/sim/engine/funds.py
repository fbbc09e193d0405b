"""Money in and out: deposits, withdrawals, transfers between accounts and between spot and derivatives,
and vaults (deposit, redeem, and their queries; share arithmetic in ``vaults``).

Derivatives withdrawals and transfers may take at most the *withdrawable* amount of a token:
min(balance, free / (price * weight)) with free = margin_balance - initial_margin, rounded down to the
token's quantum, so no transfer can leave an account under its initial margin. A withdrawal also pays the
token's ``withdrawal_fee`` (whole tokens) to the fee account. Spot withdrawals and transfers may take the
spot balance not reserved by resting spot orders. Every movement leaves a transfer record with both parties.

Every balance is a whole number of its token's quantum (see ``money``) and amounts are refused with more
decimals than the token has, so a whole balance (less the withdrawal fee) can always be moved.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from .accounts import Account
from .chain import Tx
from .core import TX_DEPOSIT, ExchangeCore, derived_address
from .errors import Rejected
from .fills import Settlement
from .instruments import USDC_ID, Collateral
from .money import credit
from .requests import ActionResult
from .values import ONE, ZERO, decimals_of, dstr, iso_ms, parse_decimal, parse_int
from .vaults import SHARE_Q, Holding, SubVault, Vault


class Funds:
    """Deposits, withdrawals, transfers, vaults."""

    def __init__(self, core: ExchangeCore, settlement: Settlement) -> None:
        self.core = core
        self.settlement = settlement
        self.vaults: dict[str, Vault] = {}  # vault address (lower) -> vault
        now = core.genesis_ms
        for spec in core.config.vaults:
            acct = core.account(derived_address("vault:" + spec.symbol))
            manager = core.account(derived_address("vault-manager:" + spec.symbol))
            vault = Vault(spec, acct, manager, now, now)
            core.mint(acct, USDC_ID, spec.capital, spot=False)
            vault.holdings[manager.addr] = Holding([(now, spec.capital)], now)
            vault.total_shares = spec.capital
            for i in range(spec.sub_vaults):
                sub = core.account(derived_address(f"vault:{spec.symbol}:sub{i + 1}"))
                vault.sub_vaults.append(SubVault(sub.display, manager.display, now))
            self.vaults[acct.addr] = vault

    # ------------------------------------------------------------------ helpers
    def _amount(self, value: Any, c: Collateral, field: str = "amount") -> Decimal:
        amount = parse_decimal(value, field, positive=True)
        if decimals_of(amount) > c.decimals:
            raise Rejected(f"{field} {dstr(amount)} has more than {c.decimals} decimals for {c.symbol}")
        return amount

    def withdrawable(self, acct: Account, c: Collateral) -> Decimal:
        """Derivatives balance of ``c`` that may leave the account now (see the module docstring)."""
        core = self.core
        bal = acct.balances.get(c.id, ZERO)
        if bal <= 0:
            return ZERO
        return self.withdrawable_of(bal, acct.free_margin(core.collaterals, core.coll_prices), c)

    def withdrawable_of(self, bal: Decimal, free: Decimal, c: Collateral) -> Decimal:
        """min(bal, free / (price * weight)) rounded down to ``c``'s quantum, given the free margin."""
        if bal <= 0 or free <= 0:
            return ZERO
        per_unit = ONE if c.id == USDC_ID else self.core.coll_prices[c.id] * c.weight(bal)
        if free >= bal * per_unit:  # compared exactly: a division could land a hair below the balance
            return bal
        return credit(free / per_unit, self.settlement.quanta[c.id])

    def spot_free(self, acct: Account, c: Collateral) -> Decimal:
        """Spot balance of ``c`` not reserved by resting spot orders."""
        return credit(acct.spot.get(c.id, ZERO) - acct.spot_locked.get(c.id, ZERO), self.settlement.quanta[c.id])

    def _transfer_record(
        self, kind: str, src: Account, dst: Account, c: Collateral, amount: Decimal, tx: Tx, now: int
    ) -> None:
        core = self.core
        record = {
            "from": src.display,
            "from_address": src.display,  # the Python SDK's TransferHistory names it so
            "to": dst.display,
            "collateral_id": c.id,
            "amount": dstr(amount),
            "tx_hash": tx.hash,
            "type": kind,
            "timestamp": iso_ms(now),
        }
        src.transfers.append(record)
        if dst is not src:
            dst.transfers.append(record)
        core.dirty_accounts.add(src)
        core.dirty_accounts.add(dst)

    # ------------------------------------------------------------------ deposits and withdrawals
    def deposit(self, address: str, collateral_id: int, amount: Decimal | str, *, spot: bool = False) -> str:
        """Credit new money to an account (the simulator's bridge: tests, seeding, market makers)."""
        core = self.core
        acct = core.account(address)
        c = core.collateral(collateral_id)
        if not spot and not c.is_margin:
            raise Rejected(f"{c.symbol} is not derivatives collateral")
        value = self._amount(amount, c)
        now = core.clock.now_ms()
        tx = core.tx(acct, TX_DEPOSIT, now)
        core.mint(acct, c.id, value, spot=spot)
        self._transfer_record("deposit", acct, acct, c, value, tx, now)
        return tx.hash

    def withdraw_derivative(
        self,
        account: str,
        collateral_id: int,
        amount: Any,
        chain_id: int,
        *,
        nonce: int | None = None,
        tx_type: int = 1003,
    ) -> ActionResult:
        """Withdraw derivatives collateral to ``chain_id``; ``data`` = {nonce} when a nonce is given."""
        return self._withdraw(account, collateral_id, amount, chain_id, nonce, tx_type, spot=False)

    def withdraw_spot(
        self,
        account: str,
        collateral_id: int,
        amount: Any,
        chain_id: int,
        *,
        nonce: int | None = None,
        tx_type: int = 1002,
    ) -> ActionResult:
        """Withdraw a spot balance to ``chain_id``."""
        return self._withdraw(account, collateral_id, amount, chain_id, nonce, tx_type, spot=True)

    def _withdraw(
        self,
        account: str,
        collateral_id: Any,
        amount: Any,
        chain_id: Any,
        nonce: int | None,
        tx_type: int,
        *,
        spot: bool,
    ) -> ActionResult:
        core = self.core
        acct = core.account(account)
        c = core.collateral(parse_int(collateral_id, "collateralId"))
        value = self._amount(amount, c)
        chain = parse_int(chain_id, "chainId")
        if not any(b.chain_id == chain and b.enabled for b in c.bridges):
            raise Rejected(f"{c.symbol} cannot be withdrawn to chain {chain}")
        fee = Decimal(c.withdrawal_fee)
        if spot:
            avail = self.spot_free(acct, c)
        else:
            if not c.is_margin:
                raise Rejected(f"{c.symbol} is not derivatives collateral")
            avail = self.withdrawable(acct, c)
        if value + fee > avail:
            raise Rejected(
                f"insufficient withdrawable {c.symbol}: {dstr(value)} + fee {dstr(fee)} requested, "
                f"{dstr(avail)} available"
            )
        now = core.clock.now_ms()
        tx = core.tx(acct, tx_type, now)
        credit = core.credit_spot if spot else core.credit
        credit(acct, c.id, -(value + fee))
        credit(core.fee_account, c.id, fee)
        core.withdrawn[c.id] += value
        self._transfer_record("spot_withdraw" if spot else "derivative_withdraw", acct, acct, c, value, tx, now)
        return ActionResult(tx, tx_type, {"nonce": str(nonce)} if nonce is not None else {})

    # ------------------------------------------------------------------ transfers
    def transfer_derivative(
        self, account: str, collateral_id: int, amount: Any, destination: str, *, tx_type: int = 1052
    ) -> ActionResult:
        """Send derivatives collateral to another account (created, without faucet, if new)."""
        return self._transfer(account, collateral_id, amount, destination, tx_type, spot=False)

    def transfer_spot(
        self, account: str, collateral_id: int, amount: Any, destination: str, *, tx_type: int = 1051
    ) -> ActionResult:
        """Send a spot balance to another account."""
        return self._transfer(account, collateral_id, amount, destination, tx_type, spot=True)

    def _transfer(
        self, account: str, collateral_id: Any, amount: Any, destination: str, tx_type: int, *, spot: bool
    ) -> ActionResult:
        core = self.core
        acct = core.account(account)
        c = core.collateral(parse_int(collateral_id, "collateralId"))
        value = self._amount(amount, c)
        if not isinstance(destination, str) or destination.lower() == acct.addr:
            raise Rejected("destination must be another account's address")
        if not spot and not c.is_margin:
            raise Rejected(f"{c.symbol} is not derivatives collateral")
        avail = self.spot_free(acct, c) if spot else self.withdrawable(acct, c)
        if value > avail:
            raise Rejected(
                f"insufficient transferable {c.symbol}: {dstr(value)} requested, {dstr(max(avail, ZERO))} available"
            )
        dst = core.account(destination)
        now = core.clock.now_ms()
        tx = core.tx(acct, tx_type, now)
        credit = core.credit_spot if spot else core.credit
        credit(acct, c.id, -value)
        credit(dst, c.id, value)
        self._transfer_record(
            "spot_balance_transfer" if spot else "derivative_balance_transfer", acct, dst, c, value, tx, now
        )
        return ActionResult(tx, tx_type, {})

    def transfer_internal(
        self, account: str, collateral_id: int, amount: Any, to_derivatives: bool, *, tx_type: int = 1053
    ) -> ActionResult:
        """Move a margin token between the account's spot and derivatives balances."""
        core = self.core
        acct = core.account(account)
        c = core.collateral(parse_int(collateral_id, "collateralId"))
        value = self._amount(amount, c)
        if not isinstance(to_derivatives, bool):
            raise Rejected("toDerivativesAccount must be true or false")
        if not c.is_margin:
            raise Rejected(f"{c.symbol} is not derivatives collateral")
        avail = self.spot_free(acct, c) if to_derivatives else self.withdrawable(acct, c)
        if value > avail:
            where = "spot" if to_derivatives else "withdrawable derivatives"
            raise Rejected(
                f"insufficient {where} {c.symbol}: {dstr(value)} requested, {dstr(max(avail, ZERO))} available"
            )
        now = core.clock.now_ms()
        tx = core.tx(acct, tx_type, now)
        sign = ONE if to_derivatives else -ONE
        core.credit(acct, c.id, sign * value)
        core.credit_spot(acct, c.id, -sign * value)
        self._transfer_record("internal_balance_transfer", acct, acct, c, value, tx, now)
        return ActionResult(tx, tx_type, {})

    # ------------------------------------------------------------------ vaults
    def _vault(self, address: Any) -> Vault:
        v = self.vaults.get(address.lower()) if isinstance(address, str) else None
        if v is None:
            raise Rejected(f"unknown vault {address!r}")
        return v

    def vault_equity(self, v: Vault) -> Decimal:
        """The vault account's derivatives equity: balances at price plus upnl and isolated margins."""
        acct = v.account
        eq = ZERO
        for cid, bal in acct.balances.items():
            eq += bal * self.core.coll_prices[cid]
        for p in acct.positions.values():
            eq += p.iso_margin + p.upnl()
        return eq

    def vault_deposit(self, account: str, vault_address: str, amount: Any, *, tx_type: int = 1401) -> ActionResult:
        """Deposit USDC into a vault; ``data`` = {shares_minted}."""
        core = self.core
        acct = core.account(account)
        v = self._vault(vault_address)
        usdc = core.collaterals[USDC_ID]
        value = self._amount(amount, usdc)
        if v.is_closed or not v.spec.allow_deposits:
            raise Rejected(f"vault {v.spec.name} does not accept deposits")
        if acct is v.account:
            raise Rejected("a vault cannot deposit into itself")
        equity = self.vault_equity(v)
        if equity <= 0:
            raise Rejected(f"vault {v.spec.name} has no equity")
        if equity + value > v.spec.deposit_cap:
            raise Rejected(f"deposit would exceed the vault's cap of {dstr(v.spec.deposit_cap)} USDC")
        avail = self.withdrawable(acct, usdc)
        if value > avail:
            raise Rejected(f"insufficient withdrawable USDC: {dstr(value)} requested, {dstr(avail)} available")
        shares = credit(value * v.total_shares / equity, SHARE_Q)
        if not shares:
            raise Rejected("deposit too small to mint a share")
        now = core.clock.now_ms()
        tx = core.tx(acct, tx_type, now)
        core.credit(acct, USDC_ID, -value)
        core.credit(v.account, USDC_ID, value)
        holding = v.holdings.setdefault(acct.addr, Holding())
        holding.lots.append((now + v.spec.lock_in_ms, shares))
        holding.updated_ms = v.updated_ms = now
        v.total_shares += shares
        self._transfer_record("vault_deposit", acct, v.account, usdc, value, tx, now)
        return ActionResult(tx, tx_type, {"shares_minted": dstr(shares)})

    def vault_redeem(self, account: str, vault_address: str, shares: Any, *, tx_type: int = 1402) -> ActionResult:
        """Redeem unlocked vault shares for USDC at the current share value."""
        core = self.core
        acct = core.account(account)
        v = self._vault(vault_address)
        s = parse_decimal(shares, "shares", positive=True)
        holding = v.holdings.get(acct.addr)
        now = core.clock.now_ms()
        unlocked = holding.unlocked(now) if holding is not None else ZERO
        if s > unlocked:
            raise Rejected(f"only {dstr(unlocked)} shares are unlocked for redemption")
        assert holding is not None
        if acct is v.manager and v.total_shares > s:
            left = (holding.total - s) / (v.total_shares - s)
            if left < v.spec.min_share_of_vm:
                raise Rejected(f"the manager must keep at least {dstr(v.spec.min_share_of_vm)} of the shares")
        usdc = core.collaterals[USDC_ID]
        amount = credit(s * self.vault_equity(v) / v.total_shares, self.settlement.quanta[USDC_ID])
        if amount > self.withdrawable(v.account, usdc):
            raise Rejected("the vault does not have enough free margin for this redemption")
        tx = core.tx(acct, tx_type, now)
        core.credit(v.account, USDC_ID, -amount)
        core.credit(acct, USDC_ID, amount)
        holding.take(s)
        holding.updated_ms = v.updated_ms = now
        v.total_shares -= s
        if not holding.lots:
            del v.holdings[acct.addr]
        self._transfer_record("vault_withdraw", v.account, acct, usdc, amount, tx, now)
        return ActionResult(tx, tx_type, {})

    def vault_list(self) -> dict[str, Any]:
        """``vaults``: {vaults: [...]} (timestamps in ms, lock_in_period in ms)."""
        return {
            "vaults": [
                {
                    "vault_address": v.address,
                    "vault_manager": v.manager.display,
                    "name": v.spec.name,
                    "symbol": v.spec.symbol,
                    "deposit_cap": dstr(v.spec.deposit_cap),
                    "role": 1,
                    "underlying_asset_id": USDC_ID,
                    "lock_in_period": v.spec.lock_in_ms,
                    "commission": dstr(v.spec.commission),
                    "min_share_of_vm": dstr(v.spec.min_share_of_vm),
                    "created_at": v.created_ms,
                    "allow_deposits": v.spec.allow_deposits,
                    "always_close_on_withdraw": v.spec.always_close_on_withdraw,
                    "is_closed": v.is_closed,
                    "updated_at": v.updated_ms,
                }
                for v in self.vaults.values()
            ]
        }

    def sub_vaults(self, vault_address: str) -> list[dict[str, Any]]:
        v = self._vault(vault_address)
        return [
            {
                "vault_address": v.address,
                "sub_vault_address": s.address,
                "manager": s.manager,
                "created_at": s.created_ms,
            }
            for s in v.sub_vaults
        ]

    def vault_balance(self, vault_address: str, user: str | None = None) -> dict[str, Any] | list[dict[str, Any]]:
        """One depositor's balance when ``user`` is given, else every depositor's."""
        v = self._vault(vault_address)
        equity = self.vault_equity(v)

        def one(addr: str, h: Holding | None) -> dict[str, Any]:
            total = h.total if h is not None else ZERO
            amount = total * equity / v.total_shares if v.total_shares else ZERO
            return {
                "vault_address": v.address,
                "account": self.core.view(addr).display,
                "amount": dstr(credit(amount, self.settlement.quanta[USDC_ID])),
                "shares": dstr(total),
                "updated_at": h.updated_ms if h is not None else v.created_ms,
            }

        if user is not None:
            return one(user.lower(), v.holdings.get(user.lower()))
        return [one(addr, h) for addr, h in v.holdings.items()]
