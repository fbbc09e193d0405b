"""The sim's rules in figures: what ``xtui sim`` declares (the switchable rules and their defaults, its limits,
rate limits, fees, and the market it ships), read from the engine's and the server's own constants."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tui.reference.markdown import code, page, table

__all__ = ["sim_rules_page"]


def _n(value: Any) -> str:
    """A figure as a reader reads it: thousands separated, a decimal without its trailing zeros."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Decimal):
        value = value.normalize()
        return f"{value:,f}" if value == value.to_integral_value() else f"{value:f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _pct(share: Decimal) -> str:
    return f"{_n(share * 100)}%"


def _duration(ms: int) -> str:
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("min", 60_000), ("s", 1_000)):
        if ms >= size and ms % size == 0:
            return f"{ms // size:,} {unit}"
    return f"{ms:,} ms"


def _switchable() -> str:
    from tui.api.faucet import FAUCET_MODES
    from tui.sim.engine.rules import BATCH_RULES, CLOID_RULES
    from tui.sim.server.local_exchange import SimConfig
    from tui.sim.server.network import NETWORKS

    d = SimConfig()
    rows: list[tuple[str, str, tuple[str, ...], str]] = [
        ("which accounts exist", "--faucet", FAUCET_MODES, d.faucet_mode),
        ("the key order signed", "--sorted-keys", ("off", "on"), "on" if d.sorted_keys else "off"),
        ("one bad order in a placeOrder of several", "--batch", BATCH_RULES, d.batch),
        ("a cloid an open order already carries", "--duplicate-cloid", CLOID_RULES, d.duplicate_cloid),
        ("the network played", "--network", NETWORKS, d.network),
    ]
    said = "What each choice means and why it is uncertain: [the sim's rules](../sim-rules.md)."
    cells = ([r, code(f), ", ".join(code(c) for c in cs), code(df)] for r, f, cs, df in rows)
    return f"## Switchable rules\n\n{said}\n\n" + table(["rule", "flag", "choices", "default"], cells)


def _limits() -> str:
    from tui.api.faucet import MAX_FAUCET_USDC
    from tui.sim.engine.instruments import default_config
    from tui.sim.engine.market_queries import DEFAULT_DEPTH, MAX_DEPTH
    from tui.sim.engine.trading import MAX_ORDERS_PER_ACTION
    from tui.sim.server.faucet import USDC_PLACES
    from tui.sim.server.local_exchange import MAX_STEP_MS
    from tui.sim.server.signed_actions import NONCES_KEPT
    from tui.sim.server.ws_hub import MAX_FRAME_BYTES, REFUSALS_BEFORE_CLOSE, REPEAT_AFTER_S

    c = default_config()
    spot = ", ".join(f"{_n(amount)} {_symbol(c, token)}" for token, amount in c.faucet_spot)
    rows = [
        ("a limit price lies within the mark ±", _pct(c.price_band)),
        ("a market order without a price fills at most the mark ±", _pct(c.market_slippage)),
        ("orders in one placeOrder, at most", _n(MAX_ORDERS_PER_ACTION)),
        ("leverage of an instrument never set", f"{c.default_leverage}x (at most the instrument's maximum)"),
        ("funding: paid every", _duration(c.funding_interval_ms)),
        ("funding: the rate a period is capped at ±", _pct(c.funding_cap)),
        ("funding: the interest part of the rate, a period", _pct(c.funding_interest)),
        ("nonces remembered per signer (the oldest forgotten first)", _n(NONCES_KEPT)),
        ("the faucet gives a new account", f"{_n(c.faucet_usdc)} USDC of derivatives collateral; on spot: {spot}"),
        ("one faucet request funds at most", f"{_n(MAX_FAUCET_USDC)} USDC, with at most {USDC_PLACES} decimals"),
        ("order book levels a side, by default / at most", f"{DEFAULT_DEPTH} / {_n(MAX_DEPTH)}"),
        ("kept per account: finished orders, fills, funding, transfers (each)", _n(c.max_history)),
        ("kept: blocks / transactions / trades per instrument", f"{_n(c.max_blocks)} / {_n(c.max_txs)} / "
                                                                 f"{_n(c.trades_kept)}"),
        ("candles kept per instrument and resolution", _n(c.max_candles)),
        ("an inbound WebSocket frame, at most", f"{_n(MAX_FRAME_BYTES)} bytes (larger: closed with 1009)"),
        ("WebSocket messages refused for the rate limit before the connection is closed", _n(REFUSALS_BEFORE_CLOSE)),
        ("a subscription's first picture is sent again after", " and ".join(f"{s:g} s" for s in REPEAT_AFTER_S)),
        ("one POST /clock/step (a replay under --step) moves the clock at most", _duration(MAX_STEP_MS)),
    ]  # fmt: skip
    return "## Limits\n\n" + table(["what", "figure"], rows)


def _symbol(config: Any, token: int) -> str:
    return str(next(c.symbol for c in config.collaterals if c.id == token))


def _rate_limits() -> str:
    from tui.sim.server.ratelimit import BAN_STEPS_S, LIMIT_WORDS, Limits

    d = Limits()
    rows = [(what, getattr(d, field), "--" + field.replace("_", "-")) for field, what in LIMIT_WORDS.items()]
    bans = ", ".join(_duration(s * 1000) for s in BAN_STEPS_S)
    return (
        "## Rate limits\n\nPer client address. Over a limit the answer is 429 with Retry-After; calling again while "
        f"told to wait is a violation. Each ban is longer than the last: {bans}.\n\n"
        + table(["limit", "default", "flag"], ([what, _n(n), code(flag)] for what, n, flag in rows))
    )


def _fees() -> str:
    from tui.sim.engine.instruments import default_config

    c = default_config()
    f = c.fees
    rows = [
        ("perpetuals", f.perp_maker, f.perp_taker),
        ("spot", f.spot_maker, f.spot_taker),
        ("spot, a stable pair", f.stable_spot_maker, f.stable_spot_taker),
        ("options", f.option_maker, f.option_taker),
    ]
    tiers = [[_n(t.volume), _pct(t.fee_discount), _pct(t.commission)] for t in c.referral_tiers]
    return (
        "## Fees\n\nOn the notional of each fill, in USDC; a negative maker fee is a rebate.\n\n"
        + table(["market", "maker", "taker"], ([m, _pct(mk), _pct(tk)] for m, mk, tk in rows))
        + "\n\nReferrals: from the volume referred, the referred user's fee discount and the referrer's commission "
        "on the fees they pay.\n\n" + table(["volume referred (USDC)", "discount", "commission"], tiers)
    )


TOKEN_HEAD = ("token", "id", "decimals", "use", "weight", "withdrawal fee")
VAULT_HEAD = ("vault", "symbol", "capital", "deposit cap", "lock-in", "commission")


def _perp(p: Any) -> list[str]:
    margin = "isolated only" if p.only_isolated else "cross or isolated"
    return [code(p.name), str(p.id), _n(p.tick), _n(p.lot), _n(p.min_notional), f"{p.max_leverage}x", margin,
            _n(p.initial_price)]  # fmt: skip


def _token(t: Any) -> list[str]:
    weights = ", ".join(f"{_n(w.weight)} from {_n(w.amount)}" for w in t.weight_tiers)
    use = "margin and spot" if t.is_margin else "spot only"
    return [code(t.symbol), str(t.id), str(t.decimals), use, weights, f"{t.withdrawal_fee} {t.symbol}"]


def _vault(v: Any) -> list[str]:
    lock = _duration(v.lock_in_ms) if v.lock_in_ms else "none"
    return [v.name, code(v.symbol), _n(v.capital), _n(v.deposit_cap), lock, _pct(v.commission)]


def _market() -> str:
    from tui.sim.engine.instruments import default_config

    c = default_config()
    tiers = [[code(p.name), _n(t.threshold), f"{t.max_leverage}x", _pct(t.mmr)] for p in c.perps for t in p.tiers]
    spots = [[code(s.name), str(s.id), _n(s.tick), _n(s.lot), _n(s.min_quote), _n(s.initial_price)] for s in c.spots]
    perp_head = ["instrument", "id", "tick", "lot", "min notional (USDC)", "max leverage", "margin", "first price"]
    return "\n\n".join(
        [
            "## The market it ships\n\nThe seeded market of `xtui sim` and the dashboard's built-in exchange (a "
            "mirror lists its source's instruments instead).",
            "### Perpetuals\n\n" + table(perp_head, [_perp(p) for p in c.perps]),
            "### Margin tiers\n\nFrom a position's notional: the leverage allowed and the maintenance margin rate.\n\n"
            + table(["instrument", "from notional (USDC)", "max leverage", "maintenance"], tiers),
            "### Spot\n\n" + table(["pair", "id", "tick", "lot", "min notional (quote)", "first price"], spots),
            "### Collateral\n\n" + table(TOKEN_HEAD, [_token(t) for t in c.collaterals]),
            "### Vaults\n\n" + table(VAULT_HEAD, [_vault(v) for v in c.vaults]),
        ]
    )


def sim_rules_page() -> str:
    return page(
        "The sim's rules in figures",
        "What `xtui sim` (and the dashboard's built-in exchange) does by default, in numbers. The rules themselves, "
        "and why each choice was made: [the sim's rules](../sim-rules.md).",
        [_switchable(), _limits(), _rate_limits(), _fees(), _market()],
    )
