"""How a request reaches the exchange: one ``Transport`` interface, two implementations, and the bounds on every answer.

- ``tui.api.h1.LeanTransport``: keep-alive HTTP/1.1 sockets on asyncio, kept by hand (the dashboard's way; no httpx).
  Kept rather than ``h11``: reading the same 0.5 KB /exchange answer takes ~21 µs here and ~200 µs through h11
  (a micro-benchmark, ``python`` 3.11 on this project's machine), and the hand-kept reader holds the same bounds.
- ``tui.api.httpx_path.HttpxTransport``: httpx's own client, for a proxy (``HTTPS_PROXY`` and the like) or an httpx
  transport given by the caller (the tests' ``httpx.ASGITransport``).

Both read an answer within the same bounds, and past one the answer is refused (``AnswerRefused``, which the client
says as a ``TransportError``: "the answer to info was more than 16 MB: refused") and its connection dropped:

=========  ==========  ===========================================================================================
endpoint   at most     the largest legitimate answer it bounds
=========  ==========  ===========================================================================================
exchange   1 MB        an envelope for one action (a batch of orders' statuses): a few KB
info       16 MB       a page of 1,000 orders or fills (~0.5 MB), 5,000 candles (~0.75 MB), every instrument
explorer   16 MB       a block with its transactions, a page of transactions
faucet     64 KB       ``tui.api.faucet.FaucetAnswer``: under 200 bytes
(other)    1 MB
=========  ==========  ===========================================================================================

Each bound holds for the bytes on the wire (a Content-Length past it is refused before a byte of the body is read;
chunks and a body read to the connection's close are counted as they come) and again for the body once gzip or
deflate is undone (decompressed a bounded piece at a time, so a gzip bomb stops at the bound). The status line and
headers together are at most 64 KB, their trailers too; at most 8 interim (1xx) answers come before the real one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .h1_answer import Answer

__all__ = ["ACTION_IDLE_S", "ANSWER_LIMITS", "HEADERS", "READS", "Transport", "answer_limit"]

MB = 1024 * 1024
ANSWER_LIMITS = {"exchange": 1 * MB, "info": 16 * MB, "explorer": 16 * MB, "faucet": 64 * 1024}
_OTHER = 1 * MB
HEADERS = {"Content-Type": "application/json", "Accept-Encoding": "gzip, deflate"}  # on every request
READS = frozenset({"info", "explorer"})  # endpoints that only read: sent again if a kept connection drops them
# An action goes only on a connection idle for less than this (uvicorn closes one idle for 5 s: an action written as
# it closes is lost, and never sent again), else on a new one.
ACTION_IDLE_S = 2.0


def answer_limit(endpoint: str) -> int:
    """The most bytes an answer from ``endpoint`` may hold, on the wire and decoded (the module's table)."""
    return ANSWER_LIMITS.get(endpoint, _OTHER)


class Transport(Protocol):
    """A way to POST a JSON body to the exchange and read its answer, within the bounds of ``answer_limit``."""

    async def post(self, url: str, body: bytes, *, endpoint: str, timeout: float | None = None) -> Answer:
        """POST ``body`` to ``url`` (the ``endpoint`` named: its bound, and whether it only reads); its answer, or a
        ``tui.api.h1_errors.WireError``; ``timeout`` to connect and again for the answer. A read may be sent again on
        a new connection; an action never is."""
        ...

    async def aclose(self) -> None:
        """Close every kept connection."""
        ...
