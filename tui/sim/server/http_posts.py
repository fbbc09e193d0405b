"""POST /exchange, /info and /explorer straight from the ASGI scope, without Starlette's request object,
router and exception middlewares.

They are nearly all the HTTP the exchange serves, and each is a function of the client's address and the
body: an ``Answer`` (status, extra headers, JSON payload). Starlette's layers around them cost ~10% of the
exchange's time per order under the fan-out bench (server CPU per order, ~330 µs to ~300 µs). Anything else
(the WebSocket, another path) goes on to the app behind; another method on these paths is answered 405, as
Starlette answered it.

Every bad parameter is a 400 from its handler. An exception a handler did not expect is the last resort: it is
logged with its traceback (``tui.sim.server.http_posts``, in the xtui log) and answered 500 with a JSON message.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import msgspec
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["Answer", "PostRoutes", "error", "internal_error", "json_answer"]

log = logging.getLogger(__name__)
_encode = msgspec.json.Encoder(decimal_format="number").encode

Answer = tuple[int, Mapping[str, str] | None, Any]  # status, headers beyond the content's, the JSON payload
Handler = Callable[[str, bytes], Answer]  # (client address, body) -> answer
_JSON_TYPE = b"application/json"


def json_answer(payload: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Answer:
    return status, headers, payload


def internal_error(where: str, exc: BaseException) -> dict[str, str]:
    """The body of a 500: what failed, in a line (the traceback is in the exchange's log)."""
    said = f"{type(exc).__name__}: {exc}"
    said = said if len(said) <= 200 else said[:197] + "..."
    return {"type": "error", "message": f"internal error in the local exchange at {where} ({said}); see its log"}


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
        try:
            status, headers, payload = handler(ip, body)
            encoded = _encode(payload)
        except Exception as exc:  # the last resort: a bug, said in the log and in the answer, never a silent 500
            log.exception("POST %s from %s failed (%d bytes of body)", scope["path"], ip, len(body))
            status, headers, encoded = 500, None, _encode(internal_error(scope["path"], exc))
        await _send(send, status, headers, encoded)


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
