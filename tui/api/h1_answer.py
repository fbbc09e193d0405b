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

from .h1_errors import DecodingError

__all__ = ["Answer", "AnswerHeaders", "Prepared"]


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
    """An HTTP answer as ``HttpClient`` reads it; the body decoded as httpx would (gzip, deflate)."""

    __slots__ = ("content", "headers", "reason_phrase", "status_code")

    def __init__(self, status: int, reason: bytes, raw: list[tuple[bytes, bytes]], body: bytes) -> None:
        self.status_code = status
        self.reason_phrase = reason.decode("ascii", errors="ignore")
        self.headers = AnswerHeaders(raw)
        encoding = self.headers.get("content-encoding")
        self.content = _decoded(body, encoding) if encoding else body

    @property
    def is_success(self) -> bool:
        return 200 <= self.status_code < 300

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


def _decoded(body: bytes, encoding: str) -> bytes:
    """``body`` with its content codings undone, last applied first; codings httpx does not know pass as they
    are (as in httpx). A body that does not decode is a ``DecodingError``."""
    for coding in reversed([c.strip().lower() for c in encoding.split(",")]):
        try:
            if coding == "gzip":
                body = zlib.decompress(body, zlib.MAX_WBITS | 16)
            elif coding == "deflate":
                try:
                    body = zlib.decompress(body)
                except zlib.error:  # deflate sent raw, without the zlib wrapper (httpx accepts both)
                    body = zlib.decompress(body, -zlib.MAX_WBITS)
        except zlib.error as exc:
            raise DecodingError(f"the answer's {coding} body does not decode: {exc}") from None
    return body
