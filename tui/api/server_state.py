"""What the exchange's answers say about it, in one typed object (``ServerState``) that the client updates in one
place (``ServerState.hear``), from every answer's headers, an error's included.

- ``date``: the last ``Date`` header (whole seconds: the client's clock reads it when nothing finer was seen).
- ``network``: what it says it plays (``X-Hotstuff-Network``), kept from the last answer that said it.
- ``rate_limits``: the rate-limit headers (``X-RateLimit-*``, ``X-Used-Weight-*``) of the last answer that had any.
- ``faults``: the faults ``xtui sim --faults`` injects (``X-Xtui-Faults``), None from an exchange that injects none.
- ``faucet``: the local exchange's faucet (``X-Xtui-Faucet``, ``tui.api.faucet``), None: no faucet.
- ``paper``: what a paper-trading exchange said of the market it mirrors (``X-Xtui-Mirror``, ``tui.api.paper``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import msgspec

from .faucet import FAUCET_HEADER, FaucetMode, parse_faucet
from .network import HEADER as NETWORK_HEADER
from .network import parse_network
from .paper import PAPER_HEADER, PaperStatus, parse_paper

__all__ = ["FAULTS_HEADER", "ServerState"]

FAULTS_HEADER = "X-Xtui-Faults"
_RATE_HEADER = re.compile(r"ratelimit|used-weight", re.IGNORECASE)
_MAX_SAID = 512  # a header kept as text (the date, the faults) is cut to this


class ServerState(msgspec.Struct):
    """What the exchange last said of itself in its answers' headers (see the module docstring). ``heard`` counts
    the answers read: 0 until the first."""

    date: str | None = None
    network: str | None = None
    rate_limits: dict[str, str] = msgspec.field(default_factory=dict)
    faults: str | None = None
    faucet: FaucetMode | None = None
    paper: PaperStatus | None = None
    heard: int = 0

    def hear(self, headers: Mapping[str, str]) -> bool:
        """Take in one answer's ``headers``; True when the network it says it plays changed."""
        limits = {k.lower(): v[:_MAX_SAID] for k, v in headers.items() if _RATE_HEADER.search(k)}
        if limits:
            self.rate_limits = limits
        date = headers.get("date")
        self.date = date[:_MAX_SAID] if date is not None else None
        faults = headers.get(FAULTS_HEADER)
        self.faults = faults[:_MAX_SAID] if faults else None
        self.faucet = parse_faucet(headers.get(FAUCET_HEADER))
        self.paper = parse_paper(headers.get(PAPER_HEADER))
        self.heard += 1
        said = parse_network(headers.get(NETWORK_HEADER))
        if said is None or said == self.network:
            return False
        self.network = said
        return True
