"""Where the real exchange lives. The hosts are configuration (protocol-notes 1); these are the SDK's defaults."""

from __future__ import annotations

import msgspec


class Endpoints(msgspec.Struct, frozen=True):
    api: str  # base of /exchange and /info
    explorer: str  # base of /explorer
    ws: str  # the WebSocket, trailing slash kept

    @classmethod
    def for_base(cls, base_url: str) -> Endpoints:
        """Endpoints of a server that serves everything from one base URL (the local exchange, a proxy)."""
        base = base_url.rstrip("/")
        scheme, _, rest = base.partition("://")
        ws_scheme = "wss" if scheme == "https" else "ws"
        return cls(api=base, explorer=base, ws=f"{ws_scheme}://{rest}/ws/")


MAINNET = Endpoints("https://api.hotstuff.trade", "https://rpc.hotstuff.trade", "wss://api.hotstuff.trade/ws/")
TESTNET = Endpoints(
    "https://testnet-api.hotstuff.trade", "https://testnet-api.hotstuff.trade", "wss://testnet-api.hotstuff.trade/ws/"
)
