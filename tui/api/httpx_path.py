"""The client's other ``Transport`` (``tui.api.transport``): httpx's own client, for a proxy (``HTTPS_PROXY`` and the
like, which only httpx's transport honours) or an httpx transport given by the caller (the tests'
``httpx.ASGITransport``). The answer is streamed raw and read within the same bounds as the lean transport's, its
gzip or deflate undone by the same bounded decoder (``tui.api.h1_answer``), never by httpx's. Its failures are raised
as the lean transport's (``tui.api.h1_errors``), by httpx's names, so that the client says the same words whichever
way a request went. Imported only when a client goes this way."""

from __future__ import annotations

import httpx

from .h1_answer import Answer, too_large
from .h1_errors import ConnectError, WireError, WireTimeout
from .transport import HEADERS, answer_limit

__all__ = ["HttpxTransport"]


class HttpxTransport:
    """An ``httpx.AsyncClient`` posting JSON bodies, at most ``max_idle`` connections kept idle for ``idle_s``."""

    def __init__(
        self,
        *,
        timeout: float = 5.0,
        transport: httpx.AsyncBaseTransport | None = None,
        max_idle: int = 8,
        idle_s: float = 30.0,
    ) -> None:
        self._client = httpx.AsyncClient(
            timeout=timeout,
            transport=transport,
            headers=HEADERS,
            limits=httpx.Limits(max_keepalive_connections=max_idle, keepalive_expiry=idle_s),  # httpx's own pool
        )

    async def post(self, url: str, body: bytes, *, endpoint: str, timeout: float | None = None) -> Answer:
        """POST ``body`` to ``url``; the answer, read within ``endpoint``'s bound (``tui.api.transport``)."""
        limit = answer_limit(endpoint)
        try:
            request = self._client.build_request(
                "POST", url, content=body, timeout=timeout if timeout is not None else self._client.timeout
            )
            response = await self._client.send(request, stream=True)
            try:
                said = response.headers.get("content-length", "")
                if said.isdigit() and int(said) > limit:
                    raise too_large(endpoint, limit, f" (it said {int(said):,} bytes)")
                parts: list[bytes] = []
                total = 0
                async for piece in response.aiter_raw():
                    total += len(piece)
                    if total > limit:
                        raise too_large(endpoint, limit)
                    parts.append(piece)
            finally:
                await response.aclose()  # before its body was read to its end: httpcore drops the connection
        except httpx.TimeoutException as exc:
            raise _named(WireTimeout, exc) from exc
        except httpx.ConnectError as exc:
            raise _named(ConnectError, exc) from exc
        except httpx.HTTPError as exc:
            raise _named(WireError, exc) from exc
        reason = response.extensions.get("reason_phrase", b"")
        return Answer(
            response.status_code, reason, response.headers.raw, b"".join(parts), limit=limit, endpoint=endpoint
        )

    async def aclose(self) -> None:
        """Close httpx's client and its kept connections."""
        await self._client.aclose()


def _named(kind: type[WireError], exc: httpx.HTTPError) -> WireError:
    """``exc`` as a ``kind``, under httpx's name for it (the client's words name the failure: "ReadError")."""
    named: type[WireError] = type(type(exc).__name__, (kind,), {})
    return named(str(exc))
