"""A small HTTP proxy on 127.0.0.1 in front of an exchange, to make faults on purpose.

`mode` is for /info: "pass" forwards everything, "500" answers every /info with a 500, "hang" never answers an
/info (the client's timeout ends it), while /exchange passes. `place_fault` is for the next placeOrder only:
"drop" closes the connection without forwarding it (never reaches the exchange), "lose_answer" forwards it and
closes the connection instead of answering (done, but the client cannot know), after awaiting ``on_lost`` if set (to
kill the exchange in that moment). Each request goes on its own
upstream call; the upstream's headers (its Date too) are kept."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Literal

import httpx

from tui.api.client import Client
from tui.api.signing import Signer

Mode = Literal["pass", "500", "hang"]
PlaceFault = Literal["none", "drop", "lose_answer"]
_DROPPED = {b"content-length", b"transfer-encoding", b"connection", b"content-encoding"}


class FaultProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.mode: Mode = "pass"
        self.place_fault: PlaceFault = "none"
        self.on_lost: Callable[[], Awaitable[None]] | None = None  # after a lost answer's order reached the exchange
        self.failed = 0  # /info requests failed so far
        self.forwarded: list[str] = []  # paths forwarded, in order
        self._server: asyncio.Server | None = None
        self._http = httpx.AsyncClient(timeout=30)
        self._changed = asyncio.Event()

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await self._server.wait_closed()
        await self._http.aclose()

    async def until_failed(self, count: int, timeout: float) -> None:
        """Wait (bounded) until ``count`` /info requests in all have been failed."""
        async with asyncio.timeout(timeout):
            while self.failed < count:
                self._changed.clear()
                await self._changed.wait()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                request_line, *lines = head[:-4].split(b"\r\n")
                method, path, _ = request_line.split(b" ", 2)
                length = 0
                for line in lines:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                body = await reader.readexactly(length)
                if path.startswith(b"/info") and self.mode != "pass":
                    self.failed += 1
                    self._changed.set()
                    if self.mode == "hang":
                        await reader.read()  # until the client gives up and closes
                        return
                    writer.write(_answer(500, b"Internal Server Error", [(b"Content-Type", b"text/plain")], b"boom"))
                    await writer.drain()
                    continue
                fault = self.place_fault if path.startswith(b"/exchange") and _is_place(body) else "none"
                if fault == "drop":
                    self.place_fault = "none"
                    return
                resp = await self._http.request(
                    method.decode(), self.upstream + path.decode(), content=body,
                    headers={"Content-Type": "application/json"},
                )  # fmt: skip
                self.forwarded.append(path.decode())
                if fault == "lose_answer":
                    self.place_fault = "none"
                    if self.on_lost is not None:
                        await self.on_lost()
                    return
                headers = [(k, v) for k, v in resp.headers.raw if k.lower() not in _DROPPED]
                writer.write(_answer(resp.status_code, resp.reason_phrase.encode(), headers, resp.content))
                await writer.drain()
        except (ConnectionError, httpx.HTTPError):
            return
        finally:
            writer.close()


@contextlib.asynccontextmanager
async def through_proxy(
    url: str, signer: Signer, *, testnet: bool, clock_ms: Callable[[], int], timeout: float = 2.0
) -> AsyncIterator[tuple[FaultProxy, Client]]:
    """A fault proxy in front of the exchange at ``url``, and a client of ``signer`` through it (its open orders
    cancelled first)."""
    proxy = FaultProxy(url)
    await proxy.start()
    client = Client(proxy.url, signer=signer, testnet=testnet, clock_ms=clock_ms, timeout=timeout)
    try:
        await client.cancel_all()
        yield proxy, client
    finally:
        await client.aclose()
        await proxy.stop()


def _is_place(body: bytes) -> bool:
    try:
        kind = json.loads(body)["action"]["type"]
    except (ValueError, KeyError, TypeError):
        return False
    return kind in ("placeOrder", "1301", 1301)


def _answer(status: int, reason: bytes, headers: list[tuple[bytes, bytes]], body: bytes) -> bytes:
    lines = [b"HTTP/1.1 %d %s" % (status, reason)]
    lines += [k + b": " + v for k, v in headers]
    lines.append(b"Content-Length: %d" % len(body))
    return b"\r\n".join(lines) + b"\r\n\r\n" + body
