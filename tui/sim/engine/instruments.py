"""Market configuration: collateral tokens, perpetual and spot instruments, fees, and the seeded default.

Everything here is immutable data; the engine reads it and never changes it. ``default_config()`` is the
market the simulator ships with: four perps, three spot pairs, four tokens, two vaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from .rules import BatchRule, CloidRule

D = Decimal

# Decimal constants for dataclass defaults (Decimals are immutable, so sharing them is safe).
_D_100_000_000 = D(100_000_000)
_D_0_5 = D("0.5")
_D_0_0001 = D("0.0001")
_D_M0_0001 = D("-0.0001")
_D_0_0005 = D("0.0005")
_D_0 = D(0)
_D_0_0002 = D("0.0002")
_D_100_000 = D(100_000)
_D_0_05 = D("0.05")
_D_0_0000125 = D("0.0000125")
_FAUCET_SPOT = ((1, D(10_000)), (3, D("0.1")), (4, D(1)))

#: ``supported_collateral.type``: a stable token usable as derivatives margin and on spot.
COLLATERAL_STABLE = 1
#: ``supported_collateral.type``: a spot-only asset (base of a spot pair), never derivatives margin.
COLLATERAL_SPOT_ASSET = 2

USDC_ID = 1


@dataclass(frozen=True, slots=True)
class Bridge:
    """Where a token can be withdrawn to (``bridge_by_chain`` item)."""

    chain_type: int
    chain_id: int
    token_address: str
    contract_address: str
    enabled: bool = True


@dataclass(frozen=True, slots=True)
class WeightTier:
    """Collateral weight applied to a balance at or above ``amount`` (``coll_risk.weight_tiers`` item)."""

    amount: Decimal
    weight: Decimal


@dataclass(frozen=True, slots=True)
class Collateral:
    """A token: derivatives margin (type 1) or a spot asset (type 2)."""

    id: int
    symbol: str
    name: str
    decimals: int
    type: int
    default_weight: Decimal
    weight_tiers: tuple[WeightTier, ...]
    price_index: str
    bridges: tuple[Bridge, ...]
    max_margin_cap: Decimal = _D_100_000_000
    stale_price_guard_weight: Decimal = _D_0_5
    transfer_notional_fee: int = 0
    withdrawal_fee: int = 0  # whole tokens, charged on top of the amount withdrawn

    @property
    def is_margin(self) -> bool:
        """True if this token counts as derivatives collateral."""
        return self.type == COLLATERAL_STABLE

    @property
    def quantum(self) -> Decimal:
        """The smallest amount of this token that can be moved (``10**-decimals``)."""
        return D(1).scaleb(-self.decimals)

    def weight(self, balance: Decimal) -> Decimal:
        """The weight of the highest tier whose ``amount`` the balance reaches."""
        w = self.default_weight
        for tier in self.weight_tiers:
            if balance >= tier.amount:
                w = tier.weight
        return w


@dataclass(frozen=True, slots=True)
class MarginTier:
    """Above ``threshold`` notional: at most ``max_leverage``; maintenance margin = notional*mmr - mmd."""

    threshold: Decimal
    max_leverage: int
    mmr: Decimal
    mmd: Decimal


@dataclass(frozen=True, slots=True)
class PerpSpec:
    """A perpetual instrument."""

    id: int
    name: str
    base: str
    tick: Decimal
    lot: Decimal
    min_notional: Decimal
    max_leverage: int
    tiers: tuple[MarginTier, ...]
    initial_price: Decimal
    only_isolated: bool = False
    settlement_currency: int = USDC_ID
    delisted: bool = False

    @property
    def price_index(self) -> str:
        return f"{self.base}/USD"

    def tier(self, notional: Decimal) -> MarginTier:
        """The margin tier that applies to a position of ``notional`` (USDC)."""
        chosen = self.tiers[0]
        for t in self.tiers:
            if notional >= t.threshold:
                chosen = t
        return chosen


@dataclass(frozen=True, slots=True)
class SpotSpec:
    """A spot pair trading ``base_asset`` against ``quote_asset`` (collateral ids)."""

    id: int
    name: str
    base_asset: int
    quote_asset: int
    tick: Decimal
    lot: Decimal
    min_quote: Decimal
    initial_price: Decimal
    stable_pair: bool = False

    @property
    def price_index(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class FeeSchedule:
    """Fee rates on notional; a negative maker rate is a rebate (shown as a negative fee)."""

    perp_maker: Decimal = _D_M0_0001
    perp_taker: Decimal = _D_0_0005
    spot_maker: Decimal = _D_M0_0001
    spot_taker: Decimal = _D_0_0005
    stable_spot_maker: Decimal = _D_0
    stable_spot_taker: Decimal = _D_0_0001
    option_maker: Decimal = _D_0_0002
    option_taker: Decimal = _D_0_0005
    total_volume_threshold: int = 1_000_000


@dataclass(frozen=True, slots=True)
class ReferralTier:
    """From ``volume`` referred: referred users' fee discount and the referrer's commission on their fees."""

    volume: Decimal
    fee_discount: Decimal
    commission: Decimal


@dataclass(frozen=True, slots=True)
class VaultSpec:
    """A vault seeded at start: its own trading account, funded by its manager at 1 share = 1 USDC."""

    name: str
    symbol: str
    capital: Decimal
    deposit_cap: Decimal
    lock_in_ms: int
    commission: Decimal
    min_share_of_vm: Decimal
    sub_vaults: int = 0
    allow_deposits: bool = True
    always_close_on_withdraw: bool = False


@dataclass(frozen=True, slots=True)
class MarketConfig:
    """Everything that shapes the simulated exchange. Build variations with ``dataclasses.replace``."""

    collaterals: tuple[Collateral, ...]
    perps: tuple[PerpSpec, ...]
    spots: tuple[SpotSpec, ...]
    fees: FeeSchedule = field(default_factory=FeeSchedule)
    referral_tiers: tuple[ReferralTier, ...] = ()
    vaults: tuple[VaultSpec, ...] = ()
    seed: int = 7
    faucet_usdc: Decimal = _D_100_000
    faucet_spot: tuple[tuple[int, Decimal], ...] = _FAUCET_SPOT
    batch: BatchRule = "all-or-nothing"  # one bad order in a batch (``rules``)
    duplicate_cloid: CloidRule = "accept"  # a cloid an open order of the account already carries (``rules``)
    default_leverage: int = 10
    #: Limit prices must lie within mark*(1 -+ band).
    price_band: Decimal = _D_0_5
    #: A market order without a price may fill up to mark*(1 +- slippage).
    market_slippage: Decimal = _D_0_05
    funding_interval_ms: int = 3_600_000
    funding_cap: Decimal = _D_0_0005
    funding_interest: Decimal = _D_0_0000125
    history_interval_ms: int = 60_000
    max_candles: int = 5_000
    # what the exchange keeps, so that its memory stays flat however long it runs: per account (each of
    # finished orders, fills, funding, transfers), blocks (20,000: ~3 h at 500 ms) and their transactions
    # (20,000: ~12 min of the synthetic market, ~100 s under 200 orders a second)
    max_history: int = 10_000
    max_blocks: int = 20_000
    max_txs: int = 20_000
    trades_kept: int = 1_000


def _tiers(*rows: tuple[int, int, str]) -> tuple[MarginTier, ...]:
    """Tiers with ``mmd`` chosen so maintenance margin is continuous across thresholds."""
    out: list[MarginTier] = []
    mmd = D(0)
    prev_mmr = D(0)
    for threshold, lev, mmr in rows:
        m = D(mmr)
        if out:
            mmd += D(threshold) * (m - prev_mmr)
        out.append(MarginTier(D(threshold), lev, m, mmd))
        prev_mmr = m
    return tuple(out)


def _evm(token: str) -> tuple[Bridge, ...]:
    return (
        Bridge(1, 1, token, "0x2df1c51e09aecf9cacb7bc98cb1742757f163df7"),
        Bridge(1, 42161, token, "0x2df1c51e09aecf9cacb7bc98cb1742757f163df7"),
        Bridge(1, 11155111, token, "0x5fbdb2315678afecb367f032d93f642f64180aa3"),
    )


def default_config(seed: int = 7) -> MarketConfig:
    """The market `xtui sim` runs: BTC/ETH/SOL/HYPE perps (HYPE isolated-only) and three spot pairs."""
    flat = (WeightTier(D(0), D(1)),)
    collaterals = (
        Collateral(
            1,
            "USDC",
            "USD Coin",
            6,
            COLLATERAL_STABLE,
            D(1),
            flat,
            "USDC/USD",
            _evm("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
            withdrawal_fee=1,
        ),
        Collateral(
            2,
            "USDT",
            "Tether USD",
            6,
            COLLATERAL_STABLE,
            D("0.98"),
            (WeightTier(D(0), D("0.98")), WeightTier(D(1_000_000), D("0.95"))),
            "USDT/USDC",
            _evm("0xdac17f958d2ee523a2206206994597c13d831ec7"),
            max_margin_cap=D(10_000_000),
            withdrawal_fee=1,
        ),
        Collateral(
            3,
            "BTC",
            "Bitcoin",
            8,
            COLLATERAL_SPOT_ASSET,
            D(0),
            (WeightTier(D(0), D(0)),),
            "BTC/USDC",
            _evm("0x2260fac5e5542a773aa44fbcfedf7c193bc2c599"),
        ),
        Collateral(
            4,
            "ETH",
            "Ether",
            18,
            COLLATERAL_SPOT_ASSET,
            D(0),
            (WeightTier(D(0), D(0)),),
            "ETH/USDC",
            _evm("0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"),
        ),
    )
    perps = (
        PerpSpec(
            1,
            "BTC-PERP",
            "BTC",
            D("0.1"),
            D("0.0001"),
            D(10),
            50,
            _tiers((0, 50, "0.01"), (1_000_000, 20, "0.025"), (5_000_000, 10, "0.05"), (20_000_000, 5, "0.1")),
            D(100_000),
        ),
        PerpSpec(
            2,
            "ETH-PERP",
            "ETH",
            D("0.01"),
            D("0.001"),
            D(10),
            50,
            _tiers((0, 50, "0.01"), (500_000, 20, "0.025"), (2_000_000, 10, "0.05"), (10_000_000, 5, "0.1")),
            D(3_500),
        ),
        PerpSpec(
            3,
            "SOL-PERP",
            "SOL",
            D("0.001"),
            D("0.01"),
            D(10),
            20,
            _tiers((0, 20, "0.025"), (250_000, 10, "0.05"), (1_000_000, 5, "0.1")),
            D(200),
        ),
        PerpSpec(
            4,
            "HYPE-PERP",
            "HYPE",
            D("0.001"),
            D("0.01"),
            D(10),
            10,
            _tiers((0, 10, "0.05"), (100_000, 5, "0.1"), (500_000, 3, "0.15")),
            D(40),
            only_isolated=True,
        ),
    )
    spots = (
        SpotSpec(101, "BTC/USDC", 3, 1, D("0.1"), D("0.00001"), D(10), D(100_000)),
        SpotSpec(102, "ETH/USDC", 4, 1, D("0.01"), D("0.0001"), D(10), D(3_500)),
        SpotSpec(103, "USDT/USDC", 2, 1, D("0.0001"), D("0.01"), D(10), D(1), stable_pair=True),
    )
    referral_tiers = (
        ReferralTier(D(0), D("0.04"), D("0.10")),
        ReferralTier(D(1_000_000), D("0.05"), D("0.15")),
        ReferralTier(D(10_000_000), D("0.10"), D("0.20")),
    )
    vaults = (
        VaultSpec(
            "Xtui Liquidity Vault", "XLV", D(1_000_000), D(10_000_000), 86_400_000, D("0.1"), D("0.05"), sub_vaults=2
        ),
        VaultSpec("Momentum Vault", "MOMO", D(250_000), D(1_000_000), 0, D("0.2"), D("0.1")),
    )
    return MarketConfig(collaterals, perps, spots, referral_tiers=referral_tiers, vaults=vaults, seed=seed)
