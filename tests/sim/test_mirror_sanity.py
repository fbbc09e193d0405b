"""Paper trading follows no absurd source: a local exchange on loopback as the source, whose ticker a small proxy
rewrites (prices x1000, x0.000001, x2; BTC-PERP left out; a mark far from its index), and a mirror of it. The mirror
reads its source when the test says (``poll_mirror``), so "in one poll" is exactly one call."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Callable
from decimal import Decimal
from typing import Any

import msgspec
import pytest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tui.api.client import Client
from tui.api.paper import PaperStatus, parse_paper
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.sim.clock import FrozenClock
from tui.sim.mirror.sanity import CONFIRM_POLLS, Sanity
from tui.sim.server.local_exchange import LocalExchange, SimConfig, open_exchange

D = Decimal
KEY = "0x" + "6" * 64
Rewrite = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


class TickerRewrite:
    """ASGI middleware: the source's ``ticker`` answers passed through ``rewrite`` (None: as they are)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.rewrite: Rewrite | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.rewrite is None:
            await self.app(scope, receive, send)
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        is_ticker = msgspec.json.decode(body).get("method") == "ticker"
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        parts: list[Message] = []

        async def keep(message: Message) -> None:
            parts.append(message)

        await self.app(scope, replay, keep)
        start, *chunks = parts
        content = b"".join(c.get("body", b"") for c in chunks)
        if is_ticker and start["status"] == 200:
            content = msgspec.json.encode(self.rewrite(msgspec.json.decode(content)))
        headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(content)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": content})


def scaled(factor: str, symbol: str = "BTC-PERP") -> Rewrite:
    def rewrite(tickers: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for t in tickers:
            if t["symbol"] == symbol:
                t = {**t, **{k: str(D(str(t[k])) * D(factor)) for k in ("index_price", "mark_price", "last_price")}}
            out.append(t)
        return out

    return rewrite


def without(symbol: str) -> Rewrite:
    return lambda tickers: [t for t in tickers if t["symbol"] != symbol]


def mark_at(symbol: str, mark: str) -> Rewrite:
    return lambda tickers: [{**t, "mark_price": mark} if t["symbol"] == symbol else t for t in tickers]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
async def paper() -> AsyncIterator[tuple[LocalExchange, TickerRewrite, LocalExchange]]:
    source = LocalExchange(SimConfig(port=free_port(), seed=3, market=False), FrozenClock())
    proxy = TickerRewrite(source.app)
    source.app = proxy
    await source.start()
    source.engine.set_index_price("BTC-PERP", D(100000))
    source.engine.set_mark_price("BTC-PERP", D(100020))
    source.advance()
    mirror = await open_exchange(SimConfig(seed=5, mirror=source.url), FrozenClock(1_767_225_700_000))
    await mirror.start()
    mirror.step(250)  # the makers quote
    try:
        yield source, proxy, mirror
    finally:
        await mirror.stop()
        await source.stop()


async def btc(ours: Client) -> tuple[Decimal, Decimal, bool]:
    """BTC-PERP's index and mark on the mirror, and whether it has quotes in its book."""
    (t,) = await ours.ticker("BTC-PERP")
    book = await ours.orderbook("BTC-PERP")
    return t.index_price, t.mark_price, bool(book.bids or book.asks)


@pytest.mark.parametrize("factor", ["1000", "0.000001", "2"])
async def test_a_price_scaled_in_one_poll_is_held_and_the_header_says_why(
    paper: tuple[LocalExchange, TickerRewrite, LocalExchange], factor: str
) -> None:
    """The source's BTC-PERP prices x1000 (x0.000001, x2) for one poll: BTC-PERP is held at 100,000 / 100,020 with its
    quotes pulled, ETH-PERP still follows, the header names BTC-PERP and why; the next sane poll makes it live again."""
    _, proxy, mirror = paper
    async with Client(mirror.url) as ours:
        assert await btc(ours) == (D(100000), D(100020), True)
        proxy.rewrite = scaled(factor)
        assert await mirror.poll_mirror()
        mirror.step(250)
        assert await btc(ours) == (D(100000), D(100020), False)  # held, and nothing to trade against
        eth = await ours.orderbook("ETH-PERP")
        assert eth.bids and eth.asks  # the others follow and quote as before
        said = ours.paper
        assert said is not None and said.live and said.stale == ("BTC-PERP",)
        assert said.reason.startswith("BTC-PERP: mark 100020 -> ") and "in one poll, past 20%" in said.reason
        proxy.rewrite = None
        assert await mirror.poll_mirror()
        mirror.step(250)
        assert await btc(ours) == (D(100000), D(100020), True)
        assert ours.paper is not None and ours.paper.stale == () and ours.paper.reason == ""


async def test_a_paper_account_keeps_its_equity_through_a_x1000_glitch(
    paper: tuple[LocalExchange, TickerRewrite, LocalExchange],
) -> None:
    """A paper trader long 0.01 BTC: the source says x1000 for one poll; the account's value does not move (it went
    from 123k to 14.6M when the mirror followed)."""
    _, proxy, mirror = paper
    async with Client(mirror.url, signer=Signer(KEY), testnet=True) as trader:
        await trader.place_order([order_item(1, "b", "101000", "0.01", tif="IOC")])
        who = trader.acting_for or ""
        before = (await trader.account_summary(who)).total_account_equity
        proxy.rewrite = scaled("1000")
        assert await mirror.poll_mirror()
        mirror.step(250)
        after = (await trader.account_summary(who)).total_account_equity
        assert abs(after - before) < 10, (before, after)


async def test_an_instrument_left_out_of_the_ticker_is_held_until_it_returns(
    paper: tuple[LocalExchange, TickerRewrite, LocalExchange],
) -> None:
    """The source's ticker leaves out BTC-PERP: BTC-PERP is held (quotes pulled) and named as missing, the mirror
    stays live for the rest; BTC-PERP back at a sane price follows it again."""
    source, proxy, mirror = paper
    async with Client(mirror.url) as ours:
        proxy.rewrite = without("BTC-PERP")
        assert await mirror.poll_mirror()
        mirror.step(250)
        assert (await btc(ours))[2] is False
        said = ours.paper
        assert said is not None and said.live and said.stale == ("BTC-PERP",)
        assert said.reason == "BTC-PERP: missing in the source's ticker"
        proxy.rewrite = None
        source.engine.set_index_price("BTC-PERP", D(101000))
        source.engine.set_mark_price("BTC-PERP", D(101010))
        source.advance()
        assert await mirror.poll_mirror()
        mirror.step(250)
        assert await btc(ours) == (D(101000), D(101010), True)


async def test_a_mark_far_from_its_index_is_held(paper: tuple[LocalExchange, TickerRewrite, LocalExchange]) -> None:
    """The source's BTC-PERP mark at 150,000 with its index at 100,000 (50% off): held, and said so."""
    _, proxy, mirror = paper
    async with Client(mirror.url) as ours:
        proxy.rewrite = mark_at("BTC-PERP", "150000")
        assert await mirror.poll_mirror()
        assert (await btc(ours))[:2] == (D(100000), D(100020))
        assert ours.paper is not None and ours.paper.stale == ("BTC-PERP",)
        assert "mark 150000 is +50.0% from index 100000" in ours.paper.reason


async def test_a_move_the_source_keeps_saying_is_followed_after_a_few_polls(
    paper: tuple[LocalExchange, TickerRewrite, LocalExchange],
) -> None:
    """A real crash: BTC-PERP 30% lower and staying there. Held for the first polls, followed once the source has
    said it CONFIRM_POLLS times in a row."""
    _, proxy, mirror = paper
    proxy.rewrite = scaled("0.7")
    async with Client(mirror.url) as ours:
        for _ in range(CONFIRM_POLLS - 1):
            assert await mirror.poll_mirror()
            assert (await btc(ours))[:2] == (D(100000), D(100020))
        assert await mirror.poll_mirror()
        mirror.step(250)
        assert await btc(ours) == (D(70000), D(70014), True)
        assert ours.paper is not None and ours.paper.stale == ()


def test_the_bound_is_a_setting_and_absurd_numbers_do_not_break_the_check() -> None:
    """A 5% bound holds a 6% move; exponents past any scale are held, not an exception."""
    from tui.sim.mirror.config import SourcePrice

    before = {"BTC-PERP": SourcePrice(D(100), D(100))}
    tight = Sanity(D(5))
    assert tight.check(before, {"BTC-PERP": SourcePrice(D(106), D(106))}, {"BTC-PERP"}) == {}
    assert "past 5%" in tight.stale["BTC-PERP"]
    loose = Sanity(D(50))
    assert loose.check(before, {"BTC-PERP": SourcePrice(D(106), D(106))}, {"BTC-PERP"}) != {}
    wild = Sanity()
    huge = SourcePrice(D("1e999999"), D("1e999999"))
    tiny = SourcePrice(D("1e-999999"), D("1e-999999"))
    for price in (huge, tiny):
        assert wild.check({"X": tiny if price is huge else huge}, {"X": price}, {"X"}) == {}
        assert len(wild.stale["X"]) < 200
    with pytest.raises(ValueError, match="above 0%"):
        Sanity(D(0))


def test_the_header_names_the_held_instruments() -> None:
    said = PaperStatus("live", "http://h:1", 5, "BTC-PERP: missing in the source's ticker", ("BTC-PERP", "ETH-PERP"))
    assert parse_paper(said.header_value()) == said
    assert parse_paper("live; source=x; age_ms=²") == PaperStatus("live", "x", 0)  # not a crash in the client
    # C1 controls (0x80-0x9f read as Latin-1: a header's bytes can carry them) reach no terminal from the header
    hostile = parse_paper("stale; source=\x9b2J; age_ms=5; reason=\x9d0x\x9c; stale=ETH\x9b31m")
    assert hostile == PaperStatus("stale", "\\x9b2J", 5, "\\x9d0x\\x9c", ("ETH\\x9b31m",))
