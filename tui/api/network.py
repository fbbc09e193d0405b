"""Which network a signature is for, and what an exchange says it plays (protocol-notes 2.1).

The signing source ("Testnet" or "Mainnet") is part of every signed digest: the same key signing the
same action for the other network recovers another address, so the exchange applies it to another
account. An exchange may say which network it plays in the ``X-Hotstuff-Network`` response header (the
local exchange does; the real one may not), which lets a client notice before that happens.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["HEADER", "NETWORKS", "Network", "mismatch_warning", "network_of", "parse_network"]

Network = Literal["testnet", "mainnet"]
NETWORKS: tuple[Network, ...] = get_args(Network)
HEADER = "X-Hotstuff-Network"


def network_of(testnet: bool) -> Network:
    """The network a client signing with ``testnet`` signs for."""
    return "testnet" if testnet else "mainnet"


def parse_network(value: str | None) -> str | None:
    """What an ``X-Hotstuff-Network`` header value says, lowercased; None when it is absent or blank."""
    text = (value or "").strip().lower()
    return text or None


def mismatch_warning(server: str | None, testnet: bool) -> str | None:
    """The warning when the exchange plays ``server`` but the client signs with ``testnet``; None if they agree.

    ``server`` None (the exchange did not say) is nothing to compare, so no warning.
    """
    ours = network_of(testnet)
    if server is None or server == ours:
        return None
    return (
        f"the exchange plays {server} but xtui signs for {ours}: your orders would be applied to another account "
        f"(sign for {server} with --network {server}, or the profile's network)"
    )
