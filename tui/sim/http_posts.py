"""POST /exchange, /info and /explorer straight from the ASGI scope, without Starlette's request object,
router and exception middlewares.

They are nearly all the HTTP the exchange serves, and each is a function of the client's address and the
body: an ``Answer`` (status, extra headers, JSON payload). Starlette's layers around them cost ~10% of the
exchange's time per order under the fan-out bench (server CPU per order, ~330 µs to ~300 µs). Anything else
(the WebSocket, another path) goes on to the app behind; another method on these paths is answered 405, as
Starlette answered it.

An exception in a handler reaches uvicorn, which logs it and answers 500, as Starlette's middleware did.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import msgspec
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["Answer", "PostRoutes", "error", "json_answer"]

log = logging.getLogger(__name__)
_encode = msgspec.json.Encoder(decimal_format="number").encode

Answer = tuple[int, Mapping[str, str] | None, Any]  # status, headers beyond the content's, the JSON payload
Handler = Callable[[str, bytes], Answer]  # (client address, body) -> answer
_JSON_TYPE = b"application/json"


def json_answer(payload: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Answer:
    return status, headers, payload


def error(message: str, status: int = 400, headers: Mapping[str, str] | None = None) -> Answer:
    return status, headers, {"type": "error", "message": message}


class PostRoutes:
    """``routes`` (path -> handler) for POST; everything else to ``app``."""

    def __init__(self, app: ASGIApp, routes: Mapping[str, Handler]) -> None:
        self.app = app
        self.routes = dict(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        handler = self.routes.get(scope["path"]) if scope["type"] == "http" else None
        if handler is None:
            await self.app(scope, receive, send)
            return
        if scope["method"] != "POST":
            await _send(send, 405, {"allow": "POST"}, b"Method Not Allowed", b"text/plain; charset=utf-8")
            return
        client = scope.get("client")
        ip = client[0] if client else "?"
        body = await _body(receive)
        if body is None:  # it hung up before its body arrived: nothing to answer, nothing went wrong here
            log.info("client %s hung up during POST %s", ip, scope["path"])
            return
        status, headers, payload = handler(ip, body)
        await _send(send, status, headers, _encode(payload))


async def _body(receive: Receive) -> bytes | None:
    """The request's body; None when the client disconnects first."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


async def _send(
    send: Send, status: int, headers: Mapping[str, str] | None, body: bytes, content_type: bytes = _JSON_TYPE
) -> None:
    raw_headers = [(b"content-length", str(len(body)).encode()), (b"content-type", content_type)]
    if headers:
        raw_headers += [(name.lower().encode(), value.encode()) for name, value in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body})
