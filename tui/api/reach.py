"""How a socket reaches the exchange, for the HTTP transport and the feed's socket alike: certificates checked as
httpx checks them, and whether the environment puts a proxy in the way."""

from __future__ import annotations

import os
import ssl

__all__ = ["proxy_in_environment", "verifying_context"]

_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


def verifying_context() -> ssl.SSLContext:
    """Certificates checked against certifi's authorities, as httpx's own client checks them."""
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


def proxy_in_environment() -> bool:
    """Whether the environment names a proxy (``HTTPS_PROXY`` and the like, in either case, as httpx and websockets
    read them). Our own transports do not speak to proxies: httpx's and websockets' then carry the traffic."""
    return any(os.environ.get(name) or os.environ.get(name.upper()) for name in _PROXY_VARIABLES)
