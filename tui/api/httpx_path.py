"""The client's other way to the exchange: httpx's own client, for a proxy (``HTTPS_PROXY`` and the like, which
only httpx's transport honours) or a transport given by the caller (the tests' ``httpx.ASGITransport``). Its
failures are raised as the lean transport's (``tui.api.h1_errors``), by the same names, so that ``HttpClient``
says the same words whichever way a request went. Imported only when a client goes this way."""

from __future__ import annotations

import httpx

from .h1_errors import ConnectError, WireError, WireTimeout

__all__ = ["HttpxWay"]


class HttpxWay:
    """An ``httpx.AsyncClient`` posting JSON bodies (its headers, timeout and idle connections as given)."""

    def __init__(
        self,
        *,
        timeout: float,
        transport: httpx.AsyncBaseTransport | None,
        headers: dict[str, str],
        max_idle: int,
        idle_s: float,
    ) -> None:
        self._client = httpx.AsyncClient(
            timeout=timeout,
            transport=transport,
            headers=headers,
            limits=httpx.Limits(max_keepalive_connections=max_idle, keepalive_expiry=idle_s),  # httpx's own pool
        )

    async def post(self, url: str, content: bytes) -> httpx.Response:
        try:
            return await self._client.post(url, content=content)
        except httpx.TimeoutException as exc:
            raise _named(WireTimeout, exc) from exc
        except httpx.ConnectError as exc:
            raise _named(ConnectError, exc) from exc
        except httpx.HTTPError as exc:
            raise _named(WireError, exc) from exc

    async def aclose(self) -> None:
        await self._client.aclose()


def _named(kind: type[WireError], exc: httpx.HTTPError) -> WireError:
    """``exc`` as a ``kind``, under httpx's name for it (the client's words name the failure: "ReadError")."""
    named: type[WireError] = type(type(exc).__name__, (kind,), {})
    return named(str(exc))
