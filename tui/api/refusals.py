"""What kind of refusal an exchange's message is. The interface answers a refused action with words, not a code, so
this is the one place that reads those words: everything else decides on the ``RefusalKind``.

>>> classify("post-only order would cross the book (best ask 100000)")
<RefusalKind.WOULD_CROSS: 'would_cross'>

The patterns are tried in order, the first that matches wins; a message none matches is ``OTHER``, and an ``OTHER``
refusal is never sent again (``may_resend``). ``tests/api/test_refusals.py`` holds a table of the local exchange's own
messages with their kinds, and fails when the local exchange gains a refusal the table does not name.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Literal, NamedTuple

__all__ = ["RESENDABLE", "AgentNamed", "RefusalKind", "agent_named", "classify", "may_resend"]


class RefusalKind(StrEnum):
    """Why the exchange refused an action, as far as its words tell."""

    WOULD_CROSS = "would_cross"  # a post-only order would have taken liquidity
    MARGIN = "margin"  # not enough margin or balance, or past the leverage a position's size allows
    REDUCE_ONLY = "reduce_only"  # a reduce-only order that would not reduce a position
    NO_LIQUIDITY = "no_liquidity"  # an IOC, FOK or market order with nothing to fill against
    RATE_LIMITED = "rate_limited"  # too many requests (or banned for a while for it)
    DUPLICATE_CLOID = "duplicate_cloid"  # the client order id is already an open order's
    EXPIRED = "expired"  # the action's expiresAfter was past on the exchange's clock
    NONCE = "nonce"  # the nonce was used already, or is outside the exchange's window
    SIGNATURE = "signature"  # the signature reads as another signer, or the wrong key signed
    AGENT = "agent"  # the signing agent was revoked or has expired
    ACCOUNT = "account"  # the exchange does not know the account
    PRICE = "price"  # the price is outside the band the exchange allows now
    TICK = "tick"  # a price that is not a multiple of the tick size
    LOT = "lot"  # a size that is not a multiple of the lot size
    SIZE = "size"  # a size past the largest an order may have
    NOTIONAL = "notional"  # below the minimum order value
    UNKNOWN_INSTRUMENT = "unknown_instrument"  # no such instrument, or no longer traded (delisted)
    INVALID = "invalid"  # the request itself is malformed or not allowed as asked (a field's value, a flag)
    OTHER = "other"  # none of these: never sent again


# A refusal of these kinds may be sent again, changed as it says: at the new touch, later, on the exchange's clock.
RESENDABLE = frozenset({RefusalKind.WOULD_CROSS, RefusalKind.RATE_LIMITED, RefusalKind.EXPIRED})

# the action's time: any word of expiry, or a nonce the exchange calls "too old/new/far" or "stale" (its clock's window)
_EXPIRED = r"expir(?:e|y|ation)|nonce (?:is )?too (?:old|new|far|low|high)|stale nonce"
_NO_LIQUIDITY = r"no liquidity|would not fill|cannot fill in full|could not (?:immediately )?(?:match|fill)"
# the request as asked cannot be done: a field's value or form, a flag on the wrong kind of order, a broker not approved
_INVALID = (
    r"must be|must not|\bneeds?\b|is empty|is not (?:a|an)\b|not an address|\bat most \d|\bgot\b|invalid|"
    r"only for perps|applies to perps|not approved|exceeds the approved|expected|missing|unknown|cannot be|"
    r"is in the past|out of range|not a finite number|more than \d+ decimals|is not derivatives collateral"
)
_PATTERNS: tuple[tuple[RefusalKind, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        # before EXPIRED: "agent 0x.. of account 0x.. expired at" is the agent's end, not this action's
        (RefusalKind.AGENT, r"\bagent\b.{0,120}\b(?:was revoked|expired|is not an agent)|not an agent of"),
        (RefusalKind.RATE_LIMITED, r"rate.limit|too many (?:requests|messages|connections|subscriptions)|banned"),
        (RefusalKind.DUPLICATE_CLOID, r"cloid\b.{0,140}\balready used|duplicate (?:cloid|client order id)"),
        (RefusalKind.WOULD_CROSS, r"would cross|post.only.{0,60}\b(?:would|immediately) (?:match|take|trade)"),
        (RefusalKind.REDUCE_ONLY, r"would not reduce|reduce.only.{0,60}would (?:increase|open|flip)"),
        (RefusalKind.NO_LIQUIDITY, _NO_LIQUIDITY),
        (RefusalKind.EXPIRED, _EXPIRED),
        (RefusalKind.NONCE, r"\bnonce\b"),
        (RefusalKind.SIGNATURE, r"signature|\bsigned (?:for|over|by)\b|must be signed"),
        (RefusalKind.ACCOUNT, r"account does not exist|unknown account"),
        (RefusalKind.TICK, r"tick size|multiple of (?:the )?tick"),
        (RefusalKind.LOT, r"lot size|multiple of (?:the )?lot"),
        (RefusalKind.NOTIONAL, r"notional .{0,40}\bbelow the minimum|minimum (?:order )?(?:notional|value)"),
        (RefusalKind.MARGIN, r"insufficient|\bmargin\b|allows at most \S+ leverage"),
        (RefusalKind.PRICE, r"outside the (?:allowed )?(?:price )?band|price .{0,40}too far from"),
        (RefusalKind.SIZE, r"\bsize \S+ is too large|(?:above|exceeds) the maximum (?:order )?size"),
        (RefusalKind.UNKNOWN_INSTRUMENT, r"unknown (?:instrument|symbol|asset|market)|\bis delisted\b"),
        (RefusalKind.INVALID, _INVALID),
    )
)


def classify(message: str) -> RefusalKind:
    """The kind of refusal the exchange's ``message`` is; ``OTHER`` when its words are none this module knows."""
    for kind, pattern in _PATTERNS:
        if pattern.search(message):
            return kind
    return RefusalKind.OTHER


def may_resend(kind: RefusalKind) -> bool:
    """Whether a refusal of ``kind`` may be sent again, changed as it says (``RESENDABLE``); never an ``OTHER``."""
    return kind in RESENDABLE


class AgentNamed(NamedTuple):
    """The agent an ``AGENT`` refusal names: its address, its account's, and whether it was revoked or expired."""

    agent: str
    account: str
    status: Literal["revoked", "expired"]


_AGENT_NAMED = re.compile(
    r"agent (0x[0-9a-fA-F]{40}) .*?of account (0x[0-9a-fA-F]{40}) (was revoked|expired(?: at \S+)?)"
)


def agent_named(message: str) -> AgentNamed | None:
    """The agent a refusal of kind ``AGENT`` names as revoked or expired; None for any other refusal, or one that does
    not name both addresses."""
    if classify(message) is not RefusalKind.AGENT:
        return None
    found = _AGENT_NAMED.search(message)
    if found is None:
        return None
    agent, account, why = found.groups()
    return AgentNamed(agent, account, "revoked" if why == "was revoked" else "expired")
