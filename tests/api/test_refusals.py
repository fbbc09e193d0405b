"""The refusal classifier against a table of the local exchange's own refusals, each with the kind it is; and a check
that every refusal the local exchange can write (each ``Rejected("...")`` literal in ``tui/sim``) is in the table, so a
new one cannot silently become ``other``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tui.api.errors import agent_refusal
from tui.api.refusals import RefusalKind, classify, may_resend
from tui.api.server_time import is_expiry_refusal

K = RefusalKind
ADDR = "0x8Ce3A4dC9d3f63C8e4F3a5C0b1D2E3F4a5B6c7D8"
OTHER_ADDR = "0x1111111111111111111111111111111111111111"

# (a message the local exchange writes, filled in as it fills it, the kind it is)
TABLE: list[tuple[str, RefusalKind]] = [
    # placing an order (tui/sim/engine/trading.py)
    ("post-only order would cross the book (best ask 100000)", K.WOULD_CROSS),
    ("post-only orders must be GTC limit orders", K.INVALID),
    ("reduce-only order would not reduce: no long position in BTC-PERP", K.REDUCE_ONLY),
    ("reduce-only applies to perps only", K.INVALID),
    ("no liquidity at 100000 or better: the IOC order would not fill", K.NO_LIQUIDITY),
    ("no liquidity at 99000 or better: the market order would not fill", K.NO_LIQUIDITY),
    ("FOK order cannot fill in full: 0.01 available at 100000 or better", K.NO_LIQUIDITY),
    ("insufficient margin: the order needs 5000.5 USDC of initial margin, 100 available", K.MARGIN),
    ("a BTC-PERP position of notional 2500000 allows at most 20x leverage (yours is 50x)", K.MARGIN),
    ("a BTC-PERP position of notional 2500000 allows at most 20x leverage", K.MARGIN),
    ("insufficient USDC spot balance: need 100, available 5", K.MARGIN),
    ("cloid 'mine-1' is already used by open order 12", K.DUPLICATE_CLOID),
    ("size 0.0015 is not a multiple of lot size 0.001", K.LOT),
    ("price 100000.5 is not a multiple of tick size 1", K.TICK),
    ("trigger price 99000.5 is not a multiple of tick size 1", K.TICK),
    ("size 100000 is too large", K.SIZE),
    ("order notional 5 is below the minimum 10", K.NOTIONAL),
    ("price 500000 is outside the allowed band 50000..150000", K.PRICE),
    ("BTC-PERP is delisted", K.UNKNOWN_INSTRUMENT),
    ("unknown instrument 'NOPE-PERP'", K.UNKNOWN_INSTRUMENT),
    ("placeOrder needs at least one order", K.INVALID),
    ("at most 50 orders per action", K.INVALID),
    ("hedge mode is off: positionSide must be BOTH", K.INVALID),
    ("trigger orders are only for perps", K.INVALID),
    ("a tp/sl order needs a triggerPx", K.INVALID),
    (f"broker {ADDR} is not approved by this account", K.INVALID),
    ("broker fee 0.01 exceeds the approved maximum 0.001", K.INVALID),
    # an order's fields (tui/sim/engine/requests.py, values.py, core.py)
    ("each order must be an object", K.INVALID),
    ("order needs instrumentId", K.INVALID),
    ("side must be 'b' or 's', got 'x'", K.INVALID),
    ("tif must be one of GTC, IOC, FOK, got 'DAY'", K.INVALID),
    ("tpsl must be 'tp', 'sl' or empty, got 'x'", K.INVALID),
    ("grouping must be 'normal', 'position' or empty, got 'x'", K.INVALID),
    ("cloid must be a string of at most 128 characters", K.INVALID),
    ("positionSide must be BOTH, LONG or SHORT, got 'UP'", K.INVALID),
    ("brokerConfig must be an object", K.INVALID),
    ("brokerConfig.broker must be an address string", K.INVALID),
    ("postOnly must be true or false", K.INVALID),
    ("price is empty", K.INVALID),
    ("price '1e5' is not a plain decimal (ASCII digits and at most one point)", K.INVALID),
    ("size must be a decimal string, got int", K.INVALID),
    ("price 'inf' is not a finite number", K.INVALID),
    ("size '1' is out of range", K.INVALID),
    ("size must be positive, got 0", K.INVALID),
    ("instrumentId must be an integer", K.INVALID),
    ("instrumentId must be an integer, got 'x'", K.INVALID),
    ("unknown collateral 'NOPE'", K.INVALID),
    ("not an address: 'bob'", K.INVALID),
    ("destination is not an address: 'bob'", K.INVALID),
    # signing, nonces, expiry, agents, accounts (tui/sim/server/signed_actions.py, agent_keys.py)
    ("action expired: expiresAfter 1700000000000 is before the exchange time 1700000005000", K.EXPIRED),
    (f"nonce 1700000000000 was already used by {ADDR}", K.NONCE),
    (f"nonce 5 is too old: {ADDR}'s nonces must now be above 1700000000000", K.NONCE),
    ("addAgent: the agent's signature does not recover the agent address", K.SIGNATURE),
    ("withdraw must be signed by the account's own key, not an agent", K.SIGNATURE),
    (
        f"signed for mainnet; this exchange plays testnet: read for mainnet the signature is account {ADDR}'s, so "
        "sign with the testnet source (nothing was applied)",
        K.SIGNATURE,
    ),
    (
        "signed over the action with its keys sorted; this exchange verifies the action as sent, in its key order "
        f"(account {ADDR}'s signature only when sorted; xtui sim --sorted-keys accepts both)",
        K.SIGNATURE,
    ),
    (
        f"account does not exist: {ADDR} (this exchange funds only addresses its faucet was asked for: xtui sim "
        f"faucet {ADDR})",
        K.ACCOUNT,
    ),
    (
        f"agent {OTHER_ADDR} ('bot') of account {ADDR} was revoked: it no longer signs for that account; the "
        "account's own key can add a new agent",
        K.AGENT,
    ),
    (
        f"agent {OTHER_ADDR} ('bot') of account {ADDR} expired at 2024-01-01T00:00:00.000Z (validUntil "
        "1704067200000): it no longer signs for that account; the account's own key can add a new agent",
        K.AGENT,
    ),
    (f"'{OTHER_ADDR}' is not an agent of this account", K.AGENT),
    ("agentName must be a string of at most 64 characters", K.INVALID),
    ("an account cannot be its own agent", K.INVALID),
    ("validUntil is in the past", K.INVALID),
    (f"{OTHER_ADDR} is already an agent of another account", K.OTHER),
    ("at most 3 agents per account", K.INVALID),
    # rate limits (tui/sim/server/ratelimit.py: HTTP 429 and 418 bodies, WebSocket errors)
    ("rate limit exceeded", K.RATE_LIMITED),
    ("IP banned for 60 seconds after repeated rate-limit violations", K.RATE_LIMITED),
    ("too many messages: at most 2000 a minute per address", K.RATE_LIMITED),
    # an injected fault says so, and is nothing this module knows: never sent again by a tool
    ("injected fault (xtui sim --faults): placeOrder refused at random, unapplied; send it again", K.OTHER),
    # leverage and cancels (tui/sim/engine/controls.py)
    ("cancels is empty", K.INVALID),
    ("BTC-SPOT is spot: leverage applies to perps", K.INVALID),
    ("leverage must be between 1 and 50 for BTC-PERP, got 80", K.INVALID),
    ("raising leverage would leave the isolated position below maintenance margin", K.MARGIN),
    ("insufficient margin for 20x: 15.5 USDC short", K.MARGIN),
    # funds and vaults (tui/sim/engine/funds.py)
    ("amount 1.0000001 has more than 6 decimals for USDC", K.INVALID),
    ("USDT is not derivatives collateral", K.INVALID),
    ("USDC cannot be withdrawn to chain 9", K.INVALID),
    ("insufficient withdrawable USDC: 100 + fee 1 requested, 50 available", K.MARGIN),
    ("destination must be another account's address", K.INVALID),
    ("insufficient transferable USDC: 100 requested, 50 available", K.MARGIN),
    ("toDerivativesAccount must be true or false", K.INVALID),
    ("insufficient spot USDC: 100 requested, 50 available", K.MARGIN),
    (f"unknown vault '{ADDR}'", K.INVALID),
    ("vault Alpha does not accept deposits", K.OTHER),
    ("a vault cannot deposit into itself", K.OTHER),
    ("vault Alpha has no equity", K.OTHER),
    ("deposit would exceed the vault's cap of 1000000 USDC", K.OTHER),
    ("insufficient withdrawable USDC: 100 requested, 50 available", K.MARGIN),
    ("deposit too small to mint a share", K.OTHER),
    ("only 10 shares are unlocked for redemption", K.OTHER),
    ("the manager must keep at least 0.05 of the shares", K.OTHER),
    ("the vault does not have enough free margin for this redemption", K.MARGIN),
    # referrals and brokers (tui/sim/engine/relations.py)
    ("a referral code is 3-20 letters, digits, '_' or '-'", K.OTHER),
    ("referral code 'abc' is taken", K.OTHER),
    ("at most 5 referral codes per account", K.INVALID),
    ("unknown referral code 'abc'", K.INVALID),
    ("you cannot use your own referral code", K.OTHER),
    ("a referrer is already set for this account", K.OTHER),
    ("that code belongs to an account you referred", K.OTHER),
    ("spot must be true or false", K.INVALID),
    ("no perp referral rewards to claim in collateral 1", K.OTHER),
    ("maxFeeRate must be at most 0.001", K.INVALID),
    ("an account cannot be its own broker", K.INVALID),
    # queries (tui/sim/engine/market_queries.py, views.py): refused /info and /explorer calls
    ("type must be perps, spot or all, got 'x'", K.INVALID),
    ("unknown oracle symbol 'NOPE'", K.INVALID),
    ("depth must be between 1 and 100", K.INVALID),
    ("limit must be between 1 and 1000", K.INVALID),
    ("chart_type must be one of mark, ltp, index", K.INVALID),
    ("resolution must be one of 1, 5, 15", K.INVALID),
    ("from must not be after to", K.INVALID),
    ("give block_height or block_hash", K.OTHER),
    ("block not found", K.OTHER),
    ("transaction not found", K.OTHER),
    ("offset must be >= 0 and limit between 1 and 1000", K.INVALID),
    ("page must be an integer >= 1, got 0", K.INVALID),
    ("limit must be an integer between 1 and 1000, got 0", K.INVALID),
]

# Refusals a real exchange words otherwise: the classifier knows them too.
ELSEWHERE: list[tuple[str, RefusalKind]] = [
    ("Post only order would have immediately matched, bbo was 100000", K.WOULD_CROSS),
    ("Reduce only order would increase position", K.REDUCE_ONLY),
    ("Order could not immediately match against any resting orders", K.NO_LIQUIDITY),
    ("Insufficient margin to place order", K.MARGIN),
    ("Too many requests", K.RATE_LIMITED),
    ("duplicate cloid", K.DUPLICATE_CLOID),
    ("something nobody has seen before", K.OTHER),
]


@pytest.mark.parametrize(("message", "kind"), TABLE + ELSEWHERE, ids=lambda v: str(v)[:48])
def test_each_refusal_is_its_kind(message: str, kind: RefusalKind) -> None:
    assert classify(message) == kind


def test_only_a_changed_order_may_be_sent_again_never_an_unknown_refusal() -> None:
    """A post-only order at the new touch, a rate-limited one later, an expired one on the exchange's clock: those
    may go again; nothing else, and never what the classifier does not know."""
    assert {k for k in RefusalKind if may_resend(k)} == {K.WOULD_CROSS, K.RATE_LIMITED, K.EXPIRED}
    assert not may_resend(classify("the exchange is having a bad day"))


SIM = Path(__file__).resolve().parents[2] / "tui" / "sim"


def _literal_templates() -> list[tuple[str, str]]:
    """(where, a regex of the literal's fixed parts) of every ``Rejected("...")``/``Rejected(f"...")`` in tui/sim."""
    found: list[tuple[str, str]] = []
    for path in sorted(SIM.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Rejected"):
                continue
            if not node.args:
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Subscript):  # f"unknown instrument {ref!r}"[:120]
                arg = arg.value
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                parts = [arg.value]
            elif isinstance(arg, ast.JoinedStr):
                parts = [v.value if isinstance(v, ast.Constant) else None for v in arg.values]  # type: ignore[misc]
            else:
                continue  # a message made elsewhere (str(exc), an agent's refusal, an injected fault): in TABLE by hand
            regex = "".join(re.escape(p) if isinstance(p, str) else ".+?" for p in parts)
            found.append((f"{path.relative_to(SIM)}:{node.lineno}", regex))
    return found


def test_every_refusal_the_local_exchange_writes_is_in_the_table() -> None:
    """Each literal refusal in tui/sim matches a message of TABLE (its fixed words, in order): a new refusal has to
    be given its kind here, so it cannot become "other" unnoticed."""
    templates = _literal_templates()
    assert len(templates) > 100  # the walk found them
    messages = [m for m, _ in TABLE]
    missing = [where for where, regex in templates if not any(re.fullmatch(regex, m, re.DOTALL) for m in messages)]
    assert missing == [], f"refusals of the local exchange not in TABLE: {missing}"


@pytest.mark.parametrize(
    ("said", "expiry"),
    [
        ("action expired: expiresAfter 1700000000000 is before the exchange time 1700000005000", True),
        ("stale nonce: 1700000000000", True),
        ("nonce too far in the future", True),
        (f"nonce 1700000000000 was already used by {ADDR}", False),  # a repeat, not this machine's clock
        (f"agent {OTHER_ADDR} ('bot') of account {ADDR} expired at 2024-01-01T00:00:00.000Z", False),  # the agent's end
        ("insufficient margin", False),
    ],
)
def test_the_clock_and_agent_readings_are_the_classifiers(said: str, expiry: bool) -> None:
    """The client's two other readings of refusal words go through ``classify``: an expiry refusal (that resets the
    clock and is signed again) is exactly the ``EXPIRED`` kind, and an agent refusal exactly an ``AGENT`` one that
    names both addresses."""
    assert is_expiry_refusal(said) is expiry is (classify(said) is K.EXPIRED)
    named = agent_refusal(said, {})
    assert (named is not None) is (classify(said) is K.AGENT)
    if named is not None:
        assert (named.agent, named.account, named.agent_status) == (OTHER_ADDR, ADDR, "expired")
