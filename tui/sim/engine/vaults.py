"""Vault records: a vault is an ordinary trading account (its address is the vault address) plus shares.

A deposit of ``amount`` USDC mints ``amount * total_shares / equity`` shares (rounded down to 1e-6), where
``equity`` is the vault account's derivatives equity; a redemption of ``s`` shares pays
``s * equity / total_shares`` (rounded down to 1e-6). Shares minted by a deposit unlock after the vault's
``lock_in_ms``. The manager's commission is published in the vault list but not charged (the simulator
has no performance periods).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from .accounts import Account
from .instruments import VaultSpec
from .values import ZERO

SHARE_Q = Decimal("0.000001")


@dataclass(slots=True)
class Holding:
    """One depositor's shares in one vault: (unlock ms, shares) lots, oldest first."""

    lots: list[tuple[int, Decimal]] = field(default_factory=list)
    updated_ms: int = 0

    @property
    def total(self) -> Decimal:
        return sum((s for _, s in self.lots), ZERO)

    def unlocked(self, now_ms: int) -> Decimal:
        return sum((s for t, s in self.lots if t <= now_ms), ZERO)

    def take(self, shares: Decimal) -> None:
        """Remove ``shares`` from the oldest lots (the caller checked they are unlocked)."""
        left = shares
        kept: list[tuple[int, Decimal]] = []
        for t, s in self.lots:
            if left >= s:
                left -= s
            else:
                kept.append((t, s - left))
                left = ZERO
        self.lots = kept


@dataclass(slots=True)
class SubVault:
    address: str  # EIP-55
    manager: str
    created_ms: int


@dataclass(slots=True)
class Vault:
    spec: VaultSpec
    account: Account  # the vault's own trading account
    manager: Account
    created_ms: int
    updated_ms: int
    total_shares: Decimal = ZERO
    holdings: dict[str, Holding] = field(default_factory=dict)  # depositor addr (lower) -> holding
    sub_vaults: list[SubVault] = field(default_factory=list)
    is_closed: bool = False

    @property
    def address(self) -> str:
        return self.account.display
