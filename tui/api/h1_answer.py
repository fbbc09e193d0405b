"""What ``LeanTransport.post`` takes and gives back: a request prepared once per URL, and an answer that holds
what ``HttpClient`` reads of ``httpx.Response`` (status, reason, headers, decoded body).

Sending signed orders, the client spent over 40% of its time in httpx around the transport: building a
request (its URL parsed, headers merged, cookies), then a response (headers normalised, the body streamed
and decoded, cookies extracted) for what is one POST and one answer. The request's head is the same for
every call to a URL, so it is built once, by httpx, with the client's headers; the answer is read here.
Cookies are neither sent nor kept on this path (no exchange API sets any that an order depends on).
"""

from __future__ import annotations

import zlib
from collections.abc import ItemsView, Iterator, Mapping

from .h1_errors import AnswerRefused, DecodingError

__all__ = ["Answer", "AnswerHeaders", "Prepared", "decoded", "size_words", "too_large"]

_MB = 1024 * 1024


class Prepared:
    """A POST to one URL: where it goes, its head up to Content-Length, and its timeouts. A plain class: a
    dataclass is built when its module loads, and this one loads on the way to the first frame."""

    __slots__ = ("head", "origin", "timeouts")

    def __init__(self, origin: tuple[str, str, int], head: bytes, timeouts: dict[str, float | None]) -> None:
        self.origin = origin
        self.head = head  # request line and headers, each ended by CRLF; Content-Length and the blank line follow
        self.timeouts = timeouts


class AnswerHeaders(Mapping[str, str]):
    """An answer's headers by lower-cased name, looked up in any case; repeated headers joined by ", " (as
    ``httpx.Headers`` gives them)."""

    __slots__ = ("_by_name",)

    def __init__(self, raw: list[tuple[bytes, bytes]]) -> None:
        by_name: dict[str, str] = {}
        for name, value in raw:
            key = name.decode("latin-1").lower()
            text = value.decode("latin-1")
            by_name[key] = f"{by_name[key]}, {text}" if key in by_name else text
        self._by_name = by_name

    def __getitem__(self, name: str) -> str:
        return self._by_name[name.lower()]

    def get(self, name: str, default: str | None = None) -> str | None:  # type: ignore[override]
        return self._by_name.get(name.lower(), default)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._by_name

    def items(self) -> ItemsView[str, str]:  # the dict's own view: the client reads every header of every answer
        return self._by_name.items()

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)


class Answer:
    """An HTTP answer as the client reads it; the body decoded as httpx would (gzip, deflate), to at most ``limit``
    bytes (``AnswerRefused`` past it, in words naming ``endpoint``)."""

    __slots__ = ("content", "headers", "reason_phrase", "status_code")

    def __init__(
        self,
        status: int,
        reason: bytes,
        raw: list[tuple[bytes, bytes]],
        body: bytes,
        *,
        limit: int = 1 << 62,
        endpoint: str = "the request",
    ) -> None:
        self.status_code = status
        self.reason_phrase = reason.decode("ascii", errors="ignore")
        self.headers = AnswerHeaders(raw)
        encoding = self.headers.get("content-encoding")
        self.content = decoded(body, encoding, limit, endpoint) if encoding else body

    @property
    def is_success(self) -> bool:
        return 200 <= self.status_code < 300

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


def too_large(endpoint: str, limit: int, how: str = "") -> AnswerRefused:
    """The words for an answer past its bound: "the answer to info was more than 16 MB: refused"."""
    return AnswerRefused(f"the answer to {endpoint} was more than {size_words(limit)}{how}: refused")


def size_words(limit: int) -> str:
    """``16 MB``, ``64 KB``, ``100 bytes``."""
    if limit >= _MB and limit % _MB == 0:
        return f"{limit // _MB} MB"
    if limit >= 1024 and limit % 1024 == 0:
        return f"{limit // 1024} KB"
    return f"{limit} bytes"


def decoded(body: bytes, encoding: str, limit: int, endpoint: str) -> bytes:
    """``body`` with its content codings undone, last applied first, to at most ``limit`` bytes (a bounded piece at a
    time: a gzip bomb stops there, ``AnswerRefused``); codings httpx does not know pass as they are (as in httpx). A
    body that does not decode, or stops short, is a ``DecodingError``."""
    codings = [c.strip().lower() for c in encoding.split(",")]
    if len(codings) > 4:
        raise DecodingError(f"the answer has {len(codings)} content codings: at most 4 are undone")
    for coding in reversed(codings):
        try:
            if coding == "gzip":
                body = _inflate(body, zlib.MAX_WBITS | 16, limit, endpoint)
            elif coding == "deflate":
                try:
                    body = _inflate(body, zlib.MAX_WBITS, limit, endpoint)
                except zlib.error:  # deflate sent raw, without the zlib wrapper (httpx accepts both)
                    body = _inflate(body, -zlib.MAX_WBITS, limit, endpoint)
        except zlib.error as exc:
            raise DecodingError(f"the answer's {coding} body does not decode: {exc}") from None
    return body


def _inflate(body: bytes, wbits: int, limit: int, endpoint: str) -> bytes:
    inflater = zlib.decompressobj(wbits)
    out = inflater.decompress(body, limit + 1)
    if len(out) > limit or inflater.unconsumed_tail:
        raise too_large(endpoint, limit, " once decompressed")
    out += inflater.flush()
    if len(out) > limit:
        raise too_large(endpoint, limit, " once decompressed")
    if not inflater.eof:
        raise zlib.error("incomplete or truncated stream")
    return out
