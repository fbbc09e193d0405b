"""The source exchange's instruments and tokens as the local engine's ``MarketConfig``, for a mirror.

A mirror lists the source's instruments with their own ids, names, ticks, lots, minimums, leverage and
margin tiers, and its tokens, so that an order the user practises on the mirror obeys the source's rules.
It lists only what it can price: a delisted instrument, one the source's ticker gives no positive index
and mark for, a spot pair whose tokens the source does not list, and a record the engine cannot use (a
zero tick, say) are left out, each with the reason (``SourceMarkets.skipped``). Fees, referral tiers, the
faucet and the demo vaults stay the local exchange's own.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal

from tui.api import models as m

from ..engine.instruments import (
    COLLATERAL_STABLE,
    USDC_ID,
    Bridge,
    Collateral,
    MarginTier,
    MarketConfig,
    PerpSpec,
    SpotSpec,
    WeightTier,
    default_config,
)

__all__ = ["MAX_MOVE_PCT", "POLL_MS", "MirrorError", "SourceMarkets", "SourcePrice", "prices_of", "source_markets"]

POLL_MS = 1_000  # how often a mirror reads the source's tickers
MAX_MOVE_PCT = Decimal(20)  # a mirrored index or mark that moves more than this in one poll is held (``sanity``)


class MirrorError(RuntimeError):
    """The source could not be read at start: the mirror has nothing to list or price."""


class SourceUnusable(ValueError):
    """The source's instruments cannot make a market here (no USDC, nothing priced)."""


@dataclass(frozen=True, slots=True)
class SourcePrice:
    """An instrument's index, mark and last trade price (None before its first trade) on the source."""

    index: Decimal
    mark: Decimal
    last: Decimal | None = None


@dataclass(frozen=True, slots=True)
class SourceMarkets:
    """What the mirror lists: the engine's config, the source's prices at start, and what it left out."""

    config: MarketConfig
    prices: dict[str, SourcePrice]
    skipped: tuple[str, ...]  # "NAME: why", one per source instrument not mirrored


def prices_of(tickers: list[m.Ticker]) -> dict[str, SourcePrice]:
    """Index, mark and last by instrument name, for the tickers with a positive index and mark."""
    return {
        t.symbol: SourcePrice(t.index_price, t.mark_price, t.last_price if t.last_price > 0 else None)
        for t in tickers
        if t.symbol and t.index_price > 0 and t.mark_price > 0
    }


def _collateral(c: m.Collateral) -> Collateral:
    risk = c.risk
    tiers = tuple(WeightTier(t.amount, t.weight) for t in risk.weight_tiers) if risk else ()
    bridges = tuple(
        Bridge(b.bridge_chain_type, b.bridge_chain_id, b.token_address, b.bridge_contract_address, b.enabled)
        for b in c.bridge_by_chain
    )
    extra = {}
    if risk is not None:
        extra = {"max_margin_cap": risk.max_margin_cap, "stale_price_guard_weight": risk.stale_price_guard_weight}
    return Collateral(
        c.id,
        c.symbol,
        c.name,
        c.decimals,
        c.type,
        c.default_coll_weight,
        tiers or (WeightTier(Decimal(0), c.default_coll_weight),),
        c.price_index,
        bridges,
        transfer_notional_fee=int(c.transfer_notional_fee or 0),
        withdrawal_fee=int(c.withdrawal_fee),
        **extra,
    )


def _steps_problem(tick: Decimal, lot: Decimal) -> str | None:
    if tick <= 0 or lot <= 0:
        return f"tick {tick} and lot {lot} must be positive"
    return None


def _perp_problem(p: m.PerpInstrument, price: SourcePrice | None) -> str | None:
    if p.delisted:
        return "delisted"
    if price is None:
        return "no index and mark price in the source's ticker"
    if p.settlement_currency != USDC_ID:
        return f"settles in token {p.settlement_currency}, not USDC"
    if p.max_leverage < 1:
        return f"max leverage {p.max_leverage}"
    return _steps_problem(p.tick_size, p.lot_size)


def _spot_problem(s: m.SpotInstrument, price: SourcePrice | None, tokens: dict[int, Collateral]) -> str | None:
    missing = [t for t in (s.base_asset, s.quote_asset) if t not in tokens]
    if missing:
        return f"the source lists no token {missing[0]}"
    if price is None:
        return "no index and mark price in the source's ticker"
    return _steps_problem(s.tick_size, s.lot_size)


def _perp(p: m.PerpInstrument, price: SourcePrice) -> PerpSpec:
    tiers = tuple(MarginTier(t.notional_usd_threshold, t.max_leverage, t.mmr, t.mmd) for t in p.margin_tiers)
    if not tiers:  # no tiers published: maintenance at half the initial margin of the maximum leverage
        tiers = (MarginTier(Decimal(0), p.max_leverage, Decimal(1) / (2 * p.max_leverage), Decimal(0)),)
    base = p.price_index.split("/")[0] if "/" in p.price_index else p.name.split("-")[0]
    return PerpSpec(
        p.id,
        p.name,
        base,
        p.tick_size,
        p.lot_size,
        p.min_notional_usd,
        p.max_leverage,
        tiers,
        price.index,
        only_isolated=p.only_isolated,
        settlement_currency=p.settlement_currency,
    )


def source_markets(
    instruments: m.Instruments, collaterals: list[m.Collateral], tickers: list[m.Ticker], seed: int
) -> SourceMarkets:
    """The source's instruments, tokens and prices as a config for the engine; ``SourceUnusable`` when it
    has no USDC (token 1, the margin of every perp here) or nothing the mirror can price."""
    tokens = {c.id: _collateral(c) for c in collaterals}
    usdc = tokens.get(USDC_ID)
    if usdc is None or usdc.type != COLLATERAL_STABLE:
        raise SourceUnusable(f"the source lists no stable token {USDC_ID} (USDC), the margin this exchange uses")
    priced = prices_of(tickers)
    skipped: list[str] = []
    perps: list[PerpSpec] = []
    for p in instruments.perps:
        price = priced.get(p.name)
        problem = _perp_problem(p, price)
        if problem or price is None:
            skipped.append(f"{p.name}: {problem}")
            continue
        perps.append(_perp(p, price))
    spots: list[SpotSpec] = []
    for s in instruments.spot:
        price = priced.get(s.name)
        problem = _spot_problem(s, price, tokens)
        if problem or price is None:
            skipped.append(f"{s.name}: {problem}")
            continue
        spots.append(
            SpotSpec(
                s.id,
                s.name,
                s.base_asset,
                s.quote_asset,
                s.tick_size,
                s.lot_size,
                s.min_size_in_quote_asset,
                price.index,
                s.stable_pair,
            )
        )
    if not perps and not spots:
        raise SourceUnusable("the source lists no instrument the mirror can price: " + "; ".join(skipped)[:300])
    local = default_config(seed)
    config = dataclasses.replace(
        local,
        collaterals=tuple(tokens.values()),
        perps=tuple(perps),
        spots=tuple(spots),
        faucet_spot=tuple((cid, amount) for cid, amount in local.faucet_spot if cid in tokens),
    )
    names = {p.name for p in perps} | {s.name for s in spots}
    return SourceMarkets(config, {n: p for n, p in priced.items() if n in names}, tuple(skipped))
