"""Vault records (SDK only): the vaults list, sub-vaults, a vault balance."""

from __future__ import annotations

from decimal import Decimal

from .base import Record

__all__ = ["SubVault", "Vault", "VaultBalance", "VaultList"]


class Vault(Record, frozen=True):
    """A vaults item."""

    vault_address: str
    vault_manager: str
    name: str
    symbol: str
    deposit_cap: Decimal
    role: int
    underlying_asset_id: int
    lock_in_period: int
    commission: Decimal
    min_share_of_vm: Decimal
    created_at: int
    allow_deposits: bool
    always_close_on_withdraw: bool
    is_closed: bool
    updated_at: int


class VaultList(Record, frozen=True):
    """The vaults result."""

    vaults: list[Vault]


class SubVault(Record, frozen=True):
    """A sub_vaults item."""

    vault_address: str
    sub_vault_address: str
    manager: str
    created_at: int


class VaultBalance(Record, frozen=True):
    """A vault_balance result (one with ``user``, else a list: decode ``list[VaultBalance]``)."""

    vault_address: str
    account: str
    amount: Decimal
    shares: Decimal
    updated_at: int
