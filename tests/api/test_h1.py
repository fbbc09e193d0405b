"""The lean HTTP/1.1 transport against a loopback server that answers exactly the bytes each test writes.

Tried: answers in chunks (with extensions and trailers), to the connection's close, after a 100 Continue,
gzipped, from HTTP/1.0; a status line that is not HTTP, two Content-Lengths that disagree, a bad chunk size;
an idle connection the server closed, a server that drops the connection once it has the request, one that
never answers, a request cancelled half way, and a proxy named in the environment; over TLS, a certificate
that is trusted, one from an authority that is not, and one for another name.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import ssl
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest
import trustme

from tui.api.errors import ConnectionFailed, RequestTimeout, TransportError
from tui.api.h1 import LeanTransport
from tui.api.h1_answer import Answer
from tui.api.h1_errors import RemoteProtocolError
from tui.api.http import HttpClient

Reply = Callable[[bytes], bytes | None]  # the request's bytes -> what to write back (None: drop the socket)


class Closing(bytes):
    """An answer after which the server closes the connection."""


def ok(body: bytes, *headers: bytes) -> bytes:
    head = b"".join(h + b"\r\n" for h in (b"Content-Type: application/json", *headers))
    return b"HTTP/1.1 200 OK\r\n" + head + b"Content-Length: %d\r\n\r\n" % len(body) + body


@dataclass
class Server:
    """Answers each request with the next of ``answers``; counts connections and the requests it read."""

    answers: list[Reply | bytes] = field(default_factory=list)
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)
    writers: list[asyncio.StreamWriter] = field(default_factory=list)
    url: str = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.writers.append(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")),
                    0,
                )
                request = head + await reader.readexactly(length)
                self.requests.append(request)
                answer = self.answers.pop(0)
                out = answer(request) if callable(answer) else answer
                if out is None:
                    writer.transport.abort()
                    return
                writer.write(out)
                await writer.drain()
                if isinstance(out, Closing):
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    async with serving() as srv:
        yield srv


@contextlib.asynccontextmanager
async def serving(tls: ssl.SSLContext | None = None) -> AsyncIterator[Server]:
    srv = Server()
    listener = await asyncio.start_server(srv.handle, "127.0.0.1", 0, ssl=tls)
    srv.url = f"{'https' if tls else 'http'}://127.0.0.1:{listener.sockets[0].getsockname()[1]}"
    async with listener:
        yield srv
        for writer in srv.writers:
            writer.close()


class Poster:
    """The lean transport's own call (``post``), as these tests make it."""

    def __init__(self, transport: LeanTransport) -> None:
        self.transport = transport

    async def post(self, url: str, content: bytes = b"{}") -> Answer:
        return await self.transport.post(url, content, endpoint=url.rsplit("/", 1)[-1], timeout=2.0)


def js(answer: Answer) -> object:
    return json.loads(answer.content)


@pytest.fixture
async def http() -> AsyncIterator[Poster]:
    async with LeanTransport() as transport:
        yield Poster(transport)


async def test_a_request_goes_out_whole_and_the_connection_is_kept(server: Server, http: Poster) -> None:
    server.answers = [ok(b'{"a":1}', b"X-Hotstuff-Network: testnet"), ok(b'{"b":2}')]
    first = await http.post(f"{server.url}/info", content=b'{"method":"x"}')
    second = await http.post(f"{server.url}/info", content=b"{}")
    assert (first.status_code, js(first), first.headers["x-hotstuff-network"]) == (200, {"a": 1}, "testnet")
    assert js(second) == {"b": 2} and server.connections == 1
    request = server.requests[0]
    assert request.startswith(b"POST /info HTTP/1.1\r\n") and request.endswith(b'\r\n\r\n{"method":"x"}')
    assert (
        b"\r\nContent-Length: 14\r\n" in request
        and b"\r\nUser-Agent: xtui\r\n" in request
        and b"\r\nHost: 127.0.0.1:" in request
    )


async def test_a_chunked_answer_with_extensions_and_trailers(server: Server, http: Poster) -> None:
    chunked = (
        b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;name=x\r\n{"a"\r\n3\r\n:1}\r\n0\r\nX-T: 1\r\n\r\n'
    )
    server.answers = [chunked, ok(b"{}")]
    assert js(await http.post(f"{server.url}/info", content=b"{}")) == {"a": 1}
    assert js(await http.post(f"{server.url}/info", content=b"{}")) == {}
    assert server.connections == 1  # the chunked answer ended where it said: the connection carried on


async def test_an_answer_running_to_the_close_and_one_from_http_1_0(server: Server, http: Poster) -> None:
    to_the_close = Closing(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n[1,2]")  # the body: all before the close
    server.answers = [to_the_close, b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n[]", ok(b"[3]")]
    assert js(await http.post(f"{server.url}/info", content=b"{}")) == [1, 2]
    assert js(await http.post(f"{server.url}/info", content=b"{}")) == []
    assert js(await http.post(f"{server.url}/info", content=b"{}")) == [3]
    assert server.connections == 3  # neither of the first two connections could carry another request


async def test_an_interim_100_continue_then_a_gzipped_answer(server: Server, http: Poster) -> None:
    packed = gzip.compress(b'{"z":true}')
    server.answers = [b"HTTP/1.1 100 Continue\r\n\r\n" + ok(packed, b"Content-Encoding: gzip")]
    assert js(await http.post(f"{server.url}/info", content=b"{}")) == {"z": True}


@pytest.mark.parametrize(
    "answer",
    [
        b"SSH-2.0-OpenSSH_9.6\r\n\r\n",  # not HTTP at all
        b"HTTP/1.1 2000 OK\r\n\r\n",  # a four-digit status
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",  # two lengths that disagree
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n Folded: x\r\nContent-Length: 0\r\n\r\n",  # an obsolete folded header line
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",  # a chunk size that is not hex
    ],
)
async def test_an_answer_that_is_not_http_is_a_protocol_error_and_the_connection_is_dropped(
    server: Server, http: Poster, answer: bytes
) -> None:
    server.answers = [answer, ok(b"{}")]
    with pytest.raises(RemoteProtocolError):
        await http.post(f"{server.url}/info", content=b"{}")
    assert js(await http.post(f"{server.url}/info", content=b"{}")) == {}
    assert server.connections == 2


async def test_requests_beyond_the_connection_cap_wait_their_turn(server: Server) -> None:
    server.answers = [ok(b"{}") for _ in range(6)]
    async with LeanTransport(max_connections=2) as lean:
        await asyncio.gather(*(Poster(lean).post(f"{server.url}/info") for _ in range(6)))
    assert server.connections == 2 and len(server.requests) == 6


async def test_an_idle_connection_the_server_closed_is_not_used(server: Server, http: Poster) -> None:
    server.answers = [ok(b"1"), ok(b"2")]
    await http.post(f"{server.url}/exchange", content=b"{}")
    server.writers[0].close()  # the server's keep-alive ran out while the connection sat idle
    await server.writers[0].wait_closed()
    await asyncio.sleep(0.01)  # the close reaches the client's socket (loopback: at once)
    assert js(await http.post(f"{server.url}/exchange", content=b"{}")) == 2
    assert server.connections == 2 and len(server.requests) == 2  # each request sent once


async def test_a_connection_dropped_after_the_request_fails_it_and_sends_nothing_again(server: Server) -> None:
    server.answers = [lambda _: None, ok(b"{}")]
    async with HttpClient(server.url) as client:
        with pytest.raises(TransportError, match="ReadError"):
            await client.post("exchange", {"action": "placeOrder"})
    assert len(server.requests) == 1  # an order may have been placed: it is not sent twice


async def test_a_query_on_a_kept_connection_dropped_as_it_is_used_is_sent_again_on_a_new_one(server: Server) -> None:
    """The server's keep-alive runs out just as the client sends on the kept connection (uvicorn closes one idle
    for 5 s; the client keeps them 30 s): the query is lost with it, and sent once more, on a new connection."""
    server.answers = [ok(b'{"n":1}'), lambda _: None, ok(b'{"n":2}')]
    async with HttpClient(server.url) as client:
        assert await client.info("x") == {"n": 1}
        assert await client.info("x") == {"n": 2}
    assert server.connections == 2 and len(server.requests) == 3


async def test_an_action_on_a_kept_connection_dropped_as_it_is_used_is_not_sent_again(server: Server) -> None:
    """The same drop under a signed action: it may have been carried out, so it is not sent twice; the caller
    learns the connection was lost (and the order's outcome is looked up, as for any lost answer)."""
    server.answers = [ok(b"{}"), lambda _: None, ok(b"{}")]
    async with HttpClient(server.url) as client:
        await client.info("x")
        with pytest.raises(TransportError, match="ReadError: the connection was lost"):
            await client.post("exchange", {"action": "placeOrder"})
    assert len(server.requests) == 2


async def test_a_query_lost_on_a_new_connection_is_not_sent_again(server: Server) -> None:
    """Only a kept connection's loss is the server closing it as it was used; a new one lost is a failure."""
    server.answers = [lambda _: None, ok(b"{}")]
    async with HttpClient(server.url) as client:
        with pytest.raises(TransportError, match="ReadError"):
            await client.info("x")
    assert len(server.requests) == 1


async def test_no_answer_in_time_is_a_timeout(server: Server) -> None:
    def hold(_: bytes) -> bytes:
        return b""  # writes nothing: the answer never comes

    server.answers = [hold]
    async with HttpClient(server.url, timeout=0.05) as client:
        with pytest.raises(RequestTimeout):
            await client.post("info", {"method": "x"})


async def test_a_request_cancelled_half_way_leaves_no_connection_to_reuse(server: Server, http: Poster) -> None:
    started = asyncio.Event()

    def hold(_: bytes) -> bytes:
        started.set()
        return b""

    server.answers = [hold, ok(b"{}")]
    task = asyncio.create_task(http.post(f"{server.url}/info", content=b"{}"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert js(await http.post(f"{server.url}/info", content=b"{}")) == {}
    assert server.connections == 2  # the half-read connection would have handed this request the old answer


async def test_a_proxy_in_the_environment_is_used(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", server.url)
    server.answers = [ok(b'{"via":"proxy"}')]
    async with HttpClient("http://exchange.invalid") as client:
        assert await client.post("info", {"method": "x"}) == {"via": "proxy"}
    assert server.requests[0].startswith(b"POST http://exchange.invalid/info HTTP/1.1\r\n")


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


def server_tls(authority: trustme.CA, name: str) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert(name).configure_cert(context)
    return context


def trusting(authority: trustme.CA) -> ssl.SSLContext:
    context = ssl.create_default_context()
    authority.configure_trust(context)
    return context


async def test_over_tls_with_a_trusted_certificate(authority: trustme.CA) -> None:
    async with serving(server_tls(authority, "127.0.0.1")) as srv:
        srv.answers = [ok(b'{"tls":1}'), ok(b'{"tls":2}')]
        async with LeanTransport(ssl_context=trusting(authority)) as lean:
            http = Poster(lean)
            assert js(await http.post(f"{srv.url}/info", content=b"{}")) == {"tls": 1}
            assert js(await http.post(f"{srv.url}/info", content=b"{}")) == {"tls": 2}
        assert srv.connections == 1


@pytest.mark.parametrize("case", ["an authority this machine does not trust", "a certificate for another name"])
async def test_over_tls_a_certificate_that_does_not_hold_is_refused(authority: trustme.CA, case: str) -> None:
    name = "exchange.example" if case.startswith("a certificate for another") else "127.0.0.1"
    client_tls = trusting(authority) if case.startswith("a certificate for another") else None  # None: the system's
    async with serving(server_tls(authority, name)) as srv:
        srv.answers = [ok(b"{}")]
        async with HttpClient(srv.url, transport=LeanTransport(ssl_context=client_tls)) as client:
            with pytest.raises(ConnectionFailed):
                await client.post("info", {"method": "x"})
        assert srv.requests == []  # nothing was sent to a server that could not prove who it is


async def test_an_action_never_goes_on_a_connection_idle_for_2_s_or_more_a_read_still_may(server: Server) -> None:
    """uvicorn closes a connection idle for 5 s: an action written as it closes is lost (errno 104) and never sent
    again, so an action takes a kept connection only while it is fresh; an older one waits for a read."""
    server.answers = [ok(b"1"), ok(b"2"), ok(b"3")]
    async with LeanTransport() as lean:
        await lean.post(f"{server.url}/info", b"{}", endpoint="info")
        kept = lean._idle  # private: the kept connections' ages, moved by hand (they are read off time.monotonic)
        for conns in kept.values():
            for conn in conns:
                conn.idle_since -= 2.5  # as if it had sat idle 2.5 s
        assert js(await lean.post(f"{server.url}/exchange", b"{}", endpoint="exchange")) == 2
        assert server.connections == 2  # the action opened a new connection
        for conns in kept.values():
            conns.sort(key=lambda c: -c.idle_since)  # the stale one on top: the next taken
        assert js(await lean.post(f"{server.url}/info", b"{}", endpoint="info")) == 3
        assert server.connections == 2  # the read took a kept connection
