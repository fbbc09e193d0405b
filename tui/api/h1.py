"""A lean HTTP/1.1 transport (``tui.api.transport.Transport``): keep-alive sockets on asyncio, one write per request.

Sending signed orders, the client spent ~80% of its time in httpcore, anyio and h11: three layers of
checkpoints, cancel scopes and header normalising around what is, on the wire, one POST and one answer.
Each request also went out in two system calls (head, then body), waking the exchange twice. Here a
request is written whole in one call and its answer read straight from an ``asyncio.StreamReader``.

Only what an exchange answers is read: a status line, headers, then a body sized by ``Content-Length``, sent in
chunks, or running to the connection's close, each within the bounds of ``tui.api.transport`` (past one,
``AnswerRefused``). Anything else is a ``RemoteProtocolError`` (``tui.api.h1_errors``). Either way the connection is
dropped, never reused.

A request is never sent twice unless it only reads: a connection the exchange closed while it sat idle is seen
before it is used (its reader is at end of file); an action goes only on a connection idle for less than
``ACTION_IDLE_S`` (the exchange may be closing an older one as the action is written), and a connection that fails
once an action is written fails the action, since an order may already have been placed.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from collections.abc import Mapping
from urllib.parse import urlsplit

from .h1_answer import Answer, Prepared, too_large
from .h1_errors import (
    ConnectError,
    ConnectTimeout,
    ReadError,
    ReadTimeout,
    RemoteProtocolError,
    UnsupportedProtocol,
)
from .reach import verifying_context
from .transport import ACTION_IDLE_S, HEADERS, READS, answer_limit

__all__ = ["LeanTransport", "prepare_post"]

_MAX_HEAD = 64 * 1024  # status line and headers of one answer; its trailers too
_MAX_INTERIM = 8  # 1xx answers before the real one
_READ_PIECE = 64 * 1024
_AGENT = "xtui"  # what the lean transport says it is (httpx's own client says python-httpx)
_NO_BODY = frozenset({204, 304})
_DEFAULT_PORTS = {"http": 80, "https": 443}


class _Connection:
    __slots__ = ("idle_since", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.idle_since = 0.0

    def usable(self, now: float, idle_s: float) -> bool:
        """Still fit to carry a request: open, nothing unasked-for waiting in it, not idle too long."""
        reader = self.reader
        return (
            not self.writer.is_closing()
            and not reader.at_eof()
            and not reader._buffer  # type: ignore[attr-defined]  # noqa: SLF001  # asyncio has no public peek
            and now - self.idle_since < idle_s
        )

    def close(self) -> None:
        self.writer.close()


class LeanTransport:
    """Keep-alive HTTP/1.1 connections per origin, at most ``max_idle`` kept idle each, for ``idle_s``; at most
    ``max_connections`` requests at once (httpx's own pool allows 100), the others wait their turn."""

    def __init__(
        self,
        *,
        ssl_context: ssl.SSLContext | None = None,
        max_idle: int = 8,
        idle_s: float = 30.0,
        max_connections: int = 100,
    ) -> None:
        self._ssl = ssl_context
        self._max_idle = max_idle
        self._idle_s = idle_s
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._slots = asyncio.Semaphore(max_connections)
        self._prepared: dict[tuple[str, float | None], Prepared] = {}  # (URL, timeout) -> its request, prepared once

    async def __aenter__(self) -> LeanTransport:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def post(self, url: str, body: bytes, *, endpoint: str, timeout: float | None = None) -> Answer:
        """POST ``body`` to ``url``; the answer, read within ``endpoint``'s bound (``tui.api.transport``).

        A read (/info, /explorer: sending it twice does nothing twice) lost with a kept connection the server closed
        just as it was used (its keep-alive ran out: uvicorn's is 5 s) is sent once more, on a new connection. An
        action goes only on a connection idle for less than ``ACTION_IDLE_S``, and is never sent again: it may have
        been carried out."""
        prepared = self._prepared.get((url, timeout)) or self._prepare(url, timeout)
        limit = answer_limit(endpoint)
        a_read = endpoint in READS
        fresh_s = self._idle_s if a_read else min(self._idle_s, ACTION_IDLE_S)
        async with self._slots:
            data = prepared.head + b"Content-Length: %d\r\n\r\n" % len(body) + body
            try:
                return await self._round_trip(prepared, data, limit, endpoint, fresh_s=fresh_s)
            except _KeptConnectionLost as lost:
                if not a_read:
                    raise ReadError(str(lost)) from None
            return await self._round_trip(prepared, data, limit, endpoint, fresh_s=None)

    def _prepare(self, url: str, timeout: float | None) -> Prepared:
        if len(self._prepared) > 64:  # a few URLs in practice: never let an odd caller grow this
            self._prepared.clear()
        prepared = self._prepared[(url, timeout)] = prepare_post(url, HEADERS, timeout, _AGENT)
        return prepared

    async def _round_trip(
        self, prepared: Prepared, data: bytes, limit: int, endpoint: str, *, fresh_s: float | None
    ) -> Answer:
        """Write ``data`` (a whole request) on a connection idle for less than ``fresh_s`` (None: on a new one); its
        answer, decoded, before the connection is kept for another. A kept connection lost on the way raises
        ``_KeptConnectionLost``; an answer past its bound (read or decoded) drops the connection."""
        origin, timeouts = prepared.origin, prepared.timeouts
        reused = self._checkout(origin, fresh_s) if fresh_s is not None else None
        conn = reused or await self._connect(origin, timeouts.get("connect"))
        try:
            conn.writer.write(data)
            async with asyncio.timeout(timeouts.get("read")):
                await conn.writer.drain()
                status, reason, headers, content, keep = await _read_answer(conn.reader, "POST", limit, endpoint)
            answer = Answer(status, reason, headers, content, limit=limit, endpoint=endpoint)
        except BaseException as exc:
            conn.close()
            if isinstance(exc, TimeoutError):
                raise ReadTimeout("no answer in time") from None
            if isinstance(exc, asyncio.IncompleteReadError | ConnectionError):
                if reused is not None:
                    raise _KeptConnectionLost(f"the connection was lost: {exc}") from None
                raise ReadError(f"the connection was lost: {exc}") from None
            if isinstance(exc, _BadAnswer | asyncio.LimitOverrunError):
                raise RemoteProtocolError(str(exc)) from None
            raise
        if keep:
            self._checkin(origin, conn)
        else:
            conn.close()
        return answer

    def _checkout(self, origin: tuple[str, str, int], fresh_s: float) -> _Connection | None:
        """The connection put back last, if it has been idle for less than ``fresh_s`` and the server has not closed
        it. Those put back before it have been idle longer: they wait for a read, or are closed past ``idle_s``."""
        idle = self._idle.get(origin)
        now = time.monotonic()
        while idle:
            conn = idle[-1]
            if not conn.usable(now, self._idle_s):
                idle.pop().close()
            elif now - conn.idle_since < fresh_s:
                return idle.pop()
            else:
                return None
        return None

    def _checkin(self, origin: tuple[str, str, int], conn: _Connection) -> None:
        idle = self._idle.setdefault(origin, [])
        if len(idle) >= self._max_idle:
            conn.close()
            return
        conn.idle_since = time.monotonic()
        idle.append(conn)

    async def _connect(self, origin: tuple[str, str, int], timeout: float | None) -> _Connection:
        scheme, host, port = origin
        context = None
        if scheme == "https":
            context = self._ssl = self._ssl or verifying_context()
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=context, server_hostname=host if context else None, limit=_MAX_HEAD
                )
        except TimeoutError:
            raise ConnectTimeout(f"cannot connect to {host}:{port} in time") from None
        except (OSError, ssl.SSLError) as exc:
            raise ConnectError(f"cannot connect to {host}:{port}: {exc}") from None
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return _Connection(reader, writer)

    async def aclose(self) -> None:
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
        self._idle.clear()


class _KeptConnectionLost(ReadError):
    """A kept connection was lost with the request on it: the server may have closed it as it was used."""


class _BadAnswer(Exception):
    """The exchange's answer is not HTTP/1.x as this transport reads it."""


def prepare_post(url: str, headers: Mapping[str, str], timeout: float | None, agent: str) -> Prepared:
    """A POST to ``url`` with ``headers`` after the ones every request carries (httpx's order), its head up to
    Content-Length, as ``LeanTransport.post`` sends it; ``timeout`` for connecting and for the answer."""
    parts = urlsplit(url)
    if parts.hostname is None:
        raise UnsupportedProtocol(f"{url!r} names no host")
    origin = _origin(parts.scheme, parts.hostname, parts.port)
    netloc = parts.netloc.rpartition("@")[2]
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    fields = {"Host": netloc, "Accept": "*/*", "Connection": "keep-alive", "User-Agent": agent}
    for name, value in headers.items():  # one given again moves to the end, as in httpx
        fields.pop(name, None)
        fields[name] = value
    lines = [f"POST {target} HTTP/1.1", *(f"{name}: {value}" for name, value in fields.items())]
    head = "".join(line + "\r\n" for line in lines).encode("latin-1")
    return Prepared(origin, head, {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout})


def _origin(scheme: str, host: str, port: int | None) -> tuple[str, str, int]:
    if scheme not in _DEFAULT_PORTS:
        raise UnsupportedProtocol(f"{scheme!r} is not http or https")
    return scheme, host, port or _DEFAULT_PORTS[scheme]


async def _read_answer(
    reader: asyncio.StreamReader, method: str, limit: int, endpoint: str
) -> tuple[int, bytes, list[tuple[bytes, bytes]], bytes, bool]:
    """Status, reason, headers, body (at most ``limit`` bytes), and whether the connection may carry another
    request. The head is bounded by the reader's limit (``_MAX_HEAD``)."""
    for _ in range(_MAX_INTERIM + 1):
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head[:-4].split(b"\r\n")
        version, status, reason = _status(status_line)
        if status >= 200 or status == 101:
            break  # 1xx answers (100 Continue, 103 Early Hints) come before the real one
    else:
        raise _BadAnswer(f"more than {_MAX_INTERIM} interim (1xx) answers")
    headers: list[tuple[bytes, bytes]] = []
    length: int | None = None
    chunked = False
    close = version == b"HTTP/1.0"
    for line in header_lines:
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip():
            raise _BadAnswer(f"a malformed header line: {line[:80]!r}")
        value = value.strip()
        headers.append((name, value))
        lower = name.lower()
        if lower == b"content-length":
            if not value.isdigit() or len(value) > 19 or (length is not None and int(value) != length):
                raise _BadAnswer(f"a bad Content-Length: {value[:40]!r}")
            length = int(value)
        elif lower == b"transfer-encoding":
            chunked = value.lower().endswith(b"chunked")
        elif lower == b"connection":
            tokens = {t.strip() for t in value.lower().split(b",")}
            close = b"close" in tokens or (close and b"keep-alive" not in tokens)
    if method == "HEAD" or status in _NO_BODY or status < 200:
        body = b""
    elif chunked:
        body = await _read_chunks(reader, limit, endpoint)
    elif length is not None:
        if length > limit:
            raise too_large(endpoint, limit, f" (it said {length:,} bytes)")
        body = await reader.readexactly(length)
    else:
        body = await _read_to_close(reader, limit, endpoint)
        close = True
    return status, reason, headers, body, not close


def _status(line: bytes) -> tuple[bytes, int, bytes]:
    version, _, rest = line.partition(b" ")
    code, _, reason = rest.partition(b" ")
    if version not in (b"HTTP/1.1", b"HTTP/1.0") or len(code) != 3 or not code.isdigit():
        raise _BadAnswer(f"not an HTTP/1.x status line: {line[:80]!r}")
    return version, int(code), reason


async def _read_chunks(reader: asyncio.StreamReader, limit: int, endpoint: str) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        size_line = await reader.readuntil(b"\r\n")
        digits = size_line.split(b";", 1)[0].strip()
        if not digits or len(digits) > 16 or digits.strip(b"0123456789abcdefABCDEF"):
            raise _BadAnswer(f"a bad chunk size: {size_line[:40]!r}")
        size = int(digits, 16)
        if size == 0:
            trailers = 0
            while (line := await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers, unread
                trailers += len(line)
                if trailers > _MAX_HEAD:
                    raise too_large(endpoint, _MAX_HEAD, " of trailers")
            return b"".join(parts)
        total += size
        if total > limit:
            raise too_large(endpoint, limit, " in chunks")
        parts.append(await reader.readexactly(size))
        if await reader.readexactly(2) != b"\r\n":
            raise _BadAnswer("a chunk not ended by CRLF")


async def _read_to_close(reader: asyncio.StreamReader, limit: int, endpoint: str) -> bytes:
    """A body that runs to the connection's close, read a piece at a time up to ``limit``."""
    parts: list[bytes] = []
    total = 0
    while piece := await reader.read(_READ_PIECE):
        total += len(piece)
        if total > limit:
            raise too_large(endpoint, limit)
        parts.append(piece)
    return b"".join(parts)
