"""Which network the local exchange plays, and how it tells its clients.

The network decides the signing source every signature is read under (protocol-notes 2.1: "Testnet" or
"Mainnet"): a signature recovers *some* address under either source, and the exchange reads only its own
(``signed_actions`` refuses, in words, one that is a known key's only under the other).

Every HTTP response, the WebSocket upgrade included, carries ``X-Hotstuff-Network: <network>``; the
WebSocket ``ping`` result carries ``"network": "<network>"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, get_args

from starlette.types import ASGIApp, Message, Receive, Scope, Send

Network = Literal["testnet", "mainnet"]
NETWORKS: tuple[Network, ...] = get_args(Network)
DEFAULT_NETWORK: Network = "testnet"
HEADER = "X-Hotstuff-Network"


def is_testnet(network: Network) -> bool:
    return network == "testnet"


def other_network(network: Network) -> Network:
    """The network this exchange does not play: what a misread signature was signed for."""
    return "mainnet" if network == "testnet" else "testnet"


class ResponseHeader:
    """ASGI middleware: ``name: value()`` on every HTTP response and WebSocket upgrade (the network this exchange
    plays, a paper mirror's state)."""

    def __init__(self, app: ASGIApp, name: str, value: Callable[[], str]) -> None:
        self.app = app
        self.name = name.lower().encode()
        self.value = value

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        async def send_with_header(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.accept"):
                header = (self.name, self.value().encode("ascii"))
                message = {**message, "headers": [*message.get("headers", ()), header]}
            await send(message)

        await self.app(scope, receive, send_with_header)
