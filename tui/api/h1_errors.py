"""What the lean transport (``tui.api.h1``) raises when a request fails on the wire, named as httpx names the same
failures, so that the client says the same words whichever way a request went. Kept apart from httpx: the
dashboard talks to its exchange over the lean transport only and never imports httpx (~3 MB resident)."""

from __future__ import annotations

__all__ = [
    "AnswerRefused",
    "ConnectError",
    "ConnectTimeout",
    "DecodingError",
    "ReadError",
    "ReadTimeout",
    "RemoteProtocolError",
    "UnsupportedProtocol",
    "WireError",
    "WireTimeout",
]


class WireError(Exception):
    """A request that failed between this client and the exchange."""


class WireTimeout(WireError):
    """No connection, or no answer, in time."""


class ConnectTimeout(WireTimeout):
    pass


class ReadTimeout(WireTimeout):
    pass


class ConnectError(WireError):
    """The exchange could not be reached."""


class ReadError(WireError):
    """The connection was lost once the request was written."""


class RemoteProtocolError(WireError):
    """The answer is not HTTP/1.x as the transport reads it."""


class DecodingError(WireError):
    """The answer's body does not decode as its Content-Encoding says."""


class UnsupportedProtocol(WireError):
    """A URL that is not http or https."""


class AnswerRefused(WireError):
    """An answer past one of the transport's bounds (its size, its decoded size, its chunks): its words say which,
    and the connection it came on is dropped."""
