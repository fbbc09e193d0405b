"""Which network the local exchange plays, and how it tells its clients.

The network decides the signing source a new key is read under (protocol-notes 2.1: "Testnet" or
"Mainnet"): a signature recovers *some* address under either source, so only the exchange's own network
can say which account a new key is. Keys the exchange already knows are recognised under both.

Every HTTP response, the WebSocket upgrade included, carries ``X-Hotstuff-Network: <network>``; the
WebSocket ``ping`` result carries ``"network": "<network>"``.
"""

from __future__ import annotations

from typing import Literal, get_args

from starlette.types import ASGIApp, Message, Receive, Scope, Send

Network = Literal["testnet", "mainnet"]
NETWORKS: tuple[Network, ...] = get_args(Network)
DEFAULT_NETWORK: Network = "testnet"
HEADER = "X-Hotstuff-Network"


def is_testnet(network: Network) -> bool:
    return network == "testnet"


def sources(network: Network) -> tuple[bool, bool]:
    """The ``testnet`` flags to recover a signature under: the exchange's own network first."""
    own = is_testnet(network)
    return own, not own


class NetworkHeader:
    """ASGI middleware: ``X-Hotstuff-Network`` on every HTTP response and WebSocket upgrade."""

    def __init__(self, app: ASGIApp, network: Network) -> None:
        self.app = app
        self.header = (HEADER.lower().encode(), network.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        async def send_with_header(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.accept"):
                message = {**message, "headers": [*message.get("headers", ()), self.header]}
            await send(message)

        await self.app(scope, receive, send_with_header)
