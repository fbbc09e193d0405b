"""WebSocket payload records: the JSON-RPC frame, a notification's params, the RPC error, subscribe results."""

from __future__ import annotations

from typing import Any

import msgspec

from .base import Record

__all__ = ["RpcError", "SubscribeResult", "WsFrame", "WsParams"]


class RpcError(Record, frozen=True):
    """A JSON-RPC error object."""

    code: int
    message: str
    data: Any = None


class WsParams(Record, frozen=True, gc=False):
    """A notification's params; ``data`` stays raw JSON until the channel's decoder reads it."""

    channel: str
    data: msgspec.Raw


class WsFrame(Record, frozen=True, gc=False, omit_defaults=True):
    """Any server frame: a notification (``method`` + ``params``) or a response (``id`` + result/error).

    ``result`` stays raw JSON for the caller's typed decode; it is empty (falsy) when absent.
    """

    jsonrpc: str = "2.0"
    id: str | int | None = None
    method: str | None = None
    params: WsParams | None = None
    result: msgspec.Raw = msgspec.Raw()
    error: RpcError | None = None


class SubscribeResult(Record, frozen=True):
    """The result of subscribe / unsubscribe."""

    status: str
    channels: list[str] = []  # noqa: RUF012 (a Struct field: msgspec copies the default)
    error: str = ""
