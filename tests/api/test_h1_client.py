"""``HttpClient`` over the lean transport writes each call straight through it (``LeanTransport.post``), not
through httpx's request and response: the same bytes must go out and the same answer must be read.

Tried, against a loopback server that answers exactly the bytes each test writes: the request written by the
direct path against the one httpx's path writes for the same call; a gzipped answer with headers in odd case
and repeated; a raw deflate body, and a gzip body that does not decode; a 429 with Retry-After and a 418; an
answer that is not JSON; a server that never answers; and the answer's parts one by one (``Answer``).
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import time
import zlib
from decimal import Decimal

import httpx
import pytest

from tests.api.test_h1 import Server, ok, server  # noqa: F401  # the loopback server and its fixture
from tui.api.errors import ApiError, Banned, RateLimited, RequestTimeout, TransportError
from tui.api.h1 import LeanTransport
from tui.api.h1_answer import Answer
from tui.api.http import HttpClient
from tui.api.limits import Governor


def answer(status: bytes, body: bytes, *headers: bytes) -> bytes:
    head = b"".join(h + b"\r\n" for h in headers)
    return b"HTTP/1.1 " + status + b"\r\n" + head + b"Content-Length: %d\r\n\r\n" % len(body) + body


async def test_the_direct_path_writes_what_httpx_would_write(server: Server) -> None:  # noqa: F811
    server.answers = [ok(b'{"a":1}'), ok(b'{"a":1}')]
    async with HttpClient(server.url, transport=LeanTransport(), timeout=2.0) as client:
        assert await client.info("ticker", symbol="all") == {"a": 1}
    body = b'{"method":"ticker","params":{"symbol":"all"}}'
    headers = {"User-Agent": "xtui", "Content-Type": "application/json", "Accept-Encoding": "gzip, deflate"}
    async with httpx.AsyncClient(headers=headers) as http:
        await http.post(f"{server.url}/info", content=body)  # httpx's own client and transport, for the bytes
    direct, through_httpx = server.requests
    assert direct == through_httpx  # the same head (the same headers, in the same order) and body
    assert b"\r\nUser-Agent: xtui\r\n" in direct
    assert direct.startswith(b"POST /info HTTP/1.1\r\nHost: 127.0.0.1:") and direct.endswith(b"\r\n\r\n" + body)
    assert b"\r\nContent-Type: application/json\r\n" in direct and b"\r\nAccept-Encoding: gzip, deflate\r\n" in direct
    assert server.connections == 2  # one each: the client's own pool, then httpx's


def test_the_dashboard_imports_no_httpx() -> None:
    """The dashboard and its client on the lean transport never import httpx (~3 MB resident, with httpcore, anyio
    and http.cookiejar): only a proxy or a transport given takes httpx's own client."""
    code = (
        "import sys; import tui.cli.main, tui.ui.app; from tui.api.client import Client; Client('http://127.0.0.1:1');"
        " print(sorted(m for m in ('httpx', 'httpcore', 'anyio', 'http.cookiejar') if m in sys.modules))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean, check=True)
    assert done.stdout.strip() == "[]", done.stdout
    through = {**clean, "HTTPS_PROXY": "http://p:1"}
    proxied = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=through, check=True)
    assert "httpx" in proxied.stdout  # through a proxy, httpx's own client


async def test_a_gzipped_answer_and_its_headers_in_any_case(server: Server) -> None:  # noqa: F811
    body = gzip.compress(b'{"price":65000.5}')
    server.answers = [
        ok(
            body,
            b"Content-Encoding: gzip",
            b"x-HOTSTUFF-network: mainnet",
            b"X-RateLimit-1m: 3/1200",
            b"X-Used-Weight-1m: 7",
            b"Via: a",
            b"Via: b",
        )
    ]
    async with HttpClient(server.url, transport=LeanTransport(), timeout=2.0) as client:
        assert await client.info("x") == {"price": Decimal("65000.5")}
        assert client.server_network == "mainnet"
        assert client.rate_limits == {"x-ratelimit-1m": "3/1200", "x-used-weight-1m": "7"}
    answer = Answer(200, b"OK", [(b"Via", b"a"), (b"VIA", b"b")], b"")
    assert answer.headers["via"] == answer.headers.get("Via") == "a, b" and "vIa" in answer.headers


async def test_a_raw_deflate_body_decodes_and_a_broken_gzip_one_is_a_transport_error(
    server: Server,  # noqa: F811
) -> None:
    squeeze = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    raw_deflate = squeeze.compress(b"[1,2]") + squeeze.flush()
    server.answers = [ok(raw_deflate, b"Content-Encoding: deflate"), ok(b"not gzip", b"Content-Encoding: gzip")]
    async with HttpClient(server.url, transport=LeanTransport(), timeout=2.0) as client:
        assert await client.info("x") == [1, 2]
        with pytest.raises(TransportError, match="DecodingError"):
            await client.info("x")


async def test_refusals_read_as_before(server: Server) -> None:  # noqa: F811
    limited = answer(b"429 Too Many Requests", b"{}", b"Retry-After: 7")
    banned = answer(b"418 I'm a teapot", b'{"error":"banned for 120 seconds"}')
    text = answer(b"200 OK", b"hi", b"Content-Type: text/plain")
    server.answers = [limited, banned, text]
    passed = [0.0]  # seconds the governor's clock is ahead: its pauses are not what this test waits on
    governor = Governor(clock=lambda: time.time() + passed[0])
    async with HttpClient(server.url, transport=LeanTransport(), timeout=2.0, governor=governor) as client:
        with pytest.raises(RateLimited) as limited_exc:
            await client.info("x")
        assert limited_exc.value.retry_after == 7.0
        passed[0] += 7  # the 429's pause is over
        with pytest.raises(Banned) as banned_exc:
            await client.info("x")
        assert banned_exc.value.ban_seconds == 120.0
        passed[0] += 120  # and the ban
        with pytest.raises(ApiError, match="text/plain, not JSON"):
            await client.info("x")


async def test_no_answer_in_time_is_a_request_timeout(server: Server) -> None:  # noqa: F811
    server.answers = [lambda request: b""]  # read, never answered
    async with HttpClient(server.url, transport=LeanTransport(), timeout=0.2) as client:
        with pytest.raises(RequestTimeout):
            await client.info("x")


def test_an_answer_reads_like_httpx_s() -> None:
    """Status, reason, success and text as ``httpx.Response`` gives them for the same answer."""
    raw = [(b"Content-Type", b"application/json")]
    mine = Answer(404, b"Not Found", raw, b'{"error":"no \xc3\xa9"}')
    theirs = httpx.Response(404, headers=raw, content=b'{"error":"no \xc3\xa9"}')
    assert (mine.status_code, mine.reason_phrase, mine.is_success, mine.text) == (
        theirs.status_code,
        theirs.reason_phrase,
        theirs.is_success,
        theirs.text,
    )
