"""Where the real exchange lives. The hosts are configuration (protocol-notes 1); these are the SDK's defaults."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

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


_SHAPES: dict[tuple[str, ...], str] = {
    ("http", "https"): "an http(s) URL with a host (e.g. https://api.hotstuff.trade)",
    ("ws", "wss"): "a ws(s) URL with a host (e.g. wss://api.hotstuff.trade/ws/)",
}


def _quoted(text: str) -> str:
    return repr(text if len(text) <= 80 else text[:77] + "...")


def check_base_url(
    text: str, schemes: tuple[str, ...] = ("http", "https"), quote: Callable[[str], str] = _quoted
) -> str:
    """``text`` as a base URL, checked: one of ``schemes``, a host, no spaces, credentials, query or fragment, a
    port in range; ValueError in words (the bad value shown by ``quote``, e.g. one that redacts keys).

    An http(s) URL comes back without its trailing slash (paths are appended to it); a WebSocket one keeps it.
    """
    text = text.strip()
    shape = f"{quote(text)} is not {_SHAPES.get(schemes, 'a URL with a host')}"
    try:
        parts = urlsplit(text)
    except ValueError:  # "Invalid IPv6 URL": a [ in the host without its ]
        raise ValueError(shape) from None
    if parts.scheme in ("ws", "wss") and "ws" not in schemes:
        raise ValueError(f"{quote(text)}: give the exchange's http(s) base URL, not its WebSocket")
    if parts.scheme not in schemes or not parts.hostname or not text.isprintable() or any(c.isspace() for c in text):
        raise ValueError(shape)  # not printable: a control character (ESC, BEL, a bidi override) is in no URL
    if parts.username is not None or parts.password is not None:
        raise ValueError("a URL must not carry a user name or password (it would be a secret in plain text)")
    if parts.query or parts.fragment:
        raise ValueError(f"{quote(text)}: a base URL has no ?query or #fragment")
    try:
        parts.port  # noqa: B018 - raises on a port out of range
    except ValueError:
        raise ValueError(f"{quote(text)} has a bad port") from None
    return text if parts.scheme.startswith("ws") else text.rstrip("/")
