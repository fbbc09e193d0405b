"""The local exchange's faucet: how it says it has one, and the request that funds an address.

``xtui sim`` answers every HTTP request, the WebSocket upgrade included, with ``X-Xtui-Faucet: auto`` or
``X-Xtui-Faucet: explicit``; the real exchange sends no such header, so its absence means "no faucet here".

- ``auto``: any new signer is funded on its first signed action (what the SDK examples rely on).
- ``explicit``: only an address funded by a faucet request exists; any other signer is refused with
  "account does not exist", as on the real exchange.

The request, answered on loopback only::

    POST /faucet  {"address": "0x…", "amount": "5000", "once": false}
    -> 200 {"address": "0x…(EIP-55)", "funded": true, "amount": "5000", "balance": "5000"}
    -> 400/403 {"type": "error", "message": "…"}

``amount`` (optional, a decimal string of USDC, at most ``MAX_FAUCET_USDC``) defaults to what the exchange gives a
new account; ``once`` (optional) funds only an address the faucet never funded (``funded`` false otherwise). Each
request credits ``amount`` USDC of derivatives collateral and the demo spot balances; ``balance`` is the address's
derivatives USDC afterwards.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal, get_args

import msgspec

__all__ = [
    "FAUCET_HEADER",
    "FAUCET_MODES",
    "FAUCET_PATH",
    "MAX_FAUCET_USDC",
    "FaucetAnswer",
    "FaucetMode",
    "parse_faucet",
]

FAUCET_HEADER = "X-Xtui-Faucet"
FAUCET_PATH = "/faucet"
FaucetMode = Literal["auto", "explicit"]
FAUCET_MODES: tuple[FaucetMode, ...] = get_args(FaucetMode)
MAX_FAUCET_USDC = Decimal(1_000_000_000)  # per request: play money, but a number a margin check can still hold


class FaucetAnswer(msgspec.Struct, frozen=True):
    """What ``POST /faucet`` answered."""

    address: str
    funded: bool  # False: ``once`` was asked and the faucet had funded the address already
    amount: Decimal  # credited now (0 when not funded)
    balance: Decimal  # the address's derivatives USDC afterwards


def parse_faucet(value: str | None) -> FaucetMode | None:
    """What an ``X-Xtui-Faucet`` value says; None when absent or not understood (no faucet)."""
    text = (value or "").strip().lower()
    return "auto" if text == "auto" else "explicit" if text == "explicit" else None
