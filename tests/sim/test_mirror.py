"""Paper trading: one local exchange (the source) on loopback, and a second mirroring it.

Both run on frozen clocks; the mirror reads its source when the test says (``poll_mirror``, what its
task does every poll interval), so "within one poll" is exactly one call. The source counts every
request it is sent, to show that orders on the mirror never reach it.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Any

import msgspec
import pytest
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from tui.api import models as m
from tui.api.client import Client
from tui.api.paper import PaperStatus, parse_paper
from tui.api.signing import Signer
from tui.api.wire import order_item
from tui.config.values import PROFILE_FIELDS
from tui.sim.clock import FrozenClock
from tui.sim.mirror.past import SourcePast
from tui.sim.mirror.source import MirrorError, source_url
from tui.sim.server.local_exchange import LocalExchange, SimConfig, open_exchange

KEY = "0x" + "5" * 64


class RequestLog:
    """ASGI middleware: the (method, path) of every request an exchange is sent, WebSocket upgrades included."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.seen: list[tuple[str, str]] = []
        self.nonsense = False  # answer every request with JSON that is no ticker

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            self.seen.append((scope.get("method", "WS"), scope["path"]))
        if self.nonsense and scope["type"] == "http":
            await JSONResponse([{"symbol": "BTC-PERP", "mark_price": "lots"}])(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def paths(self) -> set[str]:
        return {path for _, path in self.seen}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _start_source(port: int, btc_index: str, btc_mark: str) -> tuple[LocalExchange, RequestLog]:
    source = LocalExchange(SimConfig(port=port, seed=3, market=False), FrozenClock())
    requests = RequestLog(source.app)
    source.app = requests
    await source.start()
    _set_btc(source, btc_index, btc_mark)
    return source, requests


def _set_btc(source: LocalExchange, index: str, mark: str, last: str | None = None) -> None:
    source.engine.set_index_price("BTC-PERP", Decimal(index))
    source.engine.set_mark_price("BTC-PERP", Decimal(mark))
    if last is not None:
        source.engine.set_last_price("BTC-PERP", Decimal(last))
    source.advance()


@pytest.fixture
async def pair() -> AsyncIterator[tuple[LocalExchange, RequestLog, LocalExchange]]:
    port = _free_port()
    source, requests = await _start_source(port, "100000", "100020")
    mirror = await open_exchange(
        SimConfig(seed=5, mirror=source.url, network="mainnet"), FrozenClock(1_767_225_700_000)
    )
    await mirror.start()
    try:
        yield source, requests, mirror
    finally:
        await mirror.stop()
        await source.stop()


async def _ticker(exchange: LocalExchange, symbol: str = "BTC-PERP") -> tuple[Any, Client]:
    client = Client(exchange.url)
    (ticker,) = await client.ticker(symbol)
    return ticker, client


def _rules(instrument: Any) -> dict[str, Any]:
    """An instruments item without its listing time (the mirror lists them when it starts)."""
    record = msgspec.structs.asdict(instrument)
    record.pop("listed_at_block_timestamp")
    return record


async def test_the_mirror_lists_the_sources_instruments_with_their_rules(
    pair: tuple[LocalExchange, RequestLog, LocalExchange],
) -> None:
    source, _, mirror = pair
    async with Client(source.url) as theirs, Client(mirror.url) as ours:
        mine, sources = await ours.instruments(), await theirs.instruments()
        listed = [*mine.perps, *mine.spot]
        assert [_rules(i) for i in listed] == [_rules(i) for i in [*sources.perps, *sources.spot]]
        assert len(listed) == 7  # the source's four perps and three spot pairs: all of them are priced
        assert {c.symbol for c in await ours.supported_collateral()} == {
            c.symbol for c in await theirs.supported_collateral()
        }


async def test_prices_follow_the_source_within_one_poll(pair: tuple[LocalExchange, RequestLog, LocalExchange]) -> None:
    source, _, mirror = pair
    async with Client(mirror.url) as ours:
        (start,) = await ours.ticker("BTC-PERP")
        assert (start.index_price, start.mark_price) == (Decimal(100000), Decimal(100020))
        assert start.last_price == 0  # the source has not traded yet
        _set_btc(source, "101234.5", "101300.1", last="101310.2")
        (before,) = await ours.ticker("BTC-PERP")
        assert before.index_price == Decimal(100000)  # nothing moves here but what a poll brings
        assert await mirror.poll_mirror()
        (after,) = await ours.ticker("BTC-PERP")
        assert (after.index_price, after.mark_price) == (Decimal("101234.5"), Decimal("101300.1"))
        assert after.last_price == Decimal("101310.2")
        mirror.step(250)  # the makers' next step: they quote around the source's mark
        (bbo,) = await ours.bbo("BTC-PERP")
        assert Decimal(bbo.best_bid_price) < Decimal("101300.1") < Decimal(bbo.best_ask_price)
        assert Decimal(bbo.best_ask_price) - Decimal(bbo.best_bid_price) < 100
        assert ours.paper is not None and ours.paper.live and ours.paper.source == source.url


async def test_a_source_outage_freezes_and_marks_the_mirror_until_it_returns(
    pair: tuple[LocalExchange, RequestLog, LocalExchange],
) -> None:
    source, _, mirror = pair
    port = int(source.url.rsplit(":", 1)[1])
    mirror.step(250)
    async with Client(mirror.url) as ours:
        assert (await ours.orderbook("BTC-PERP")).bids  # the makers quote while the source answers
        await source.stop()
        assert not await mirror.poll_mirror()
        assert isinstance(mirror.clock, FrozenClock)
        mirror.step(5_000)  # five seconds of a dead source: no walk, no invented price
        (frozen,) = await ours.ticker("BTC-PERP")
        assert (frozen.index_price, frozen.mark_price) == (Decimal(100000), Decimal(100020))
        book = await ours.orderbook("BTC-PERP")
        assert not book.bids and not book.asks  # quotes pulled: nothing trades at a price nobody vouches for
        assert ours.paper is not None and ours.paper.state == "stale"
        assert ours.paper.age_ms >= 5_000 and "connect" in ours.paper.reason

        back, _ = await _start_source(port, "98000", "97990.5")
        try:
            assert await mirror.poll_mirror()
            mirror.step(250)
            (now,) = await ours.ticker("BTC-PERP")
            assert (now.index_price, now.mark_price) == (Decimal(98000), Decimal("97990.5"))
            assert (await ours.orderbook("BTC-PERP")).asks
            assert ours.paper is not None and ours.paper.live
        finally:
            await back.stop()


async def test_a_source_answering_nonsense_is_stale_too(pair: tuple[LocalExchange, RequestLog, LocalExchange]) -> None:
    _, requests, mirror = pair
    requests.nonsense = True
    assert not await mirror.poll_mirror()
    said = mirror.mirror.status() if mirror.mirror else None
    assert said is not None and said.state == "stale" and said.reason.startswith("unexpected answer: ")
    requests.nonsense = False
    assert await mirror.poll_mirror() and mirror.mirror is not None and mirror.mirror.live


async def test_orders_on_the_mirror_never_reach_the_source(
    pair: tuple[LocalExchange, RequestLog, LocalExchange],
) -> None:
    source, requests, mirror = pair
    mirror.step(250)
    async with Client(mirror.url, signer=Signer(KEY), testnet=False) as trader:
        ack = await trader.place_order([order_item(1, "b", "101000", "0.01", tif="IOC")])
        assert ack.data is not None
        positions = await trader.positions(trader.acting_for or "")
        assert [p.size for p in positions if p.instrument == "BTC-PERP"] == [Decimal("0.01")]
        await trader.cancel_all()
    await mirror.poll_mirror()
    assert requests.paths() == {"/info"}  # the mirror only ever reads the source
    assert ("POST", "/exchange") not in requests.seen
    async with Client(source.url) as theirs:
        assert await theirs.positions(Signer(KEY).address) == []


async def test_an_unreachable_source_at_start_is_a_clear_error() -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(MirrorError, match=rf"cannot mirror {url}: .*cannot connect"):
        await open_exchange(SimConfig(mirror=url), FrozenClock())


async def test_a_mirror_is_opened_before_it_is_made() -> None:
    with pytest.raises(ValueError, match="open_exchange"):
        LocalExchange(SimConfig(mirror="http://127.0.0.1:9"), FrozenClock())


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("ftp://example.com", "not an http(s) URL with a host"),
        ("example.com", "not an http(s) URL with a host"),
        ("http://", "not an http(s) URL with a host"),
        ("wss://api.example.com/ws/", "not its WebSocket"),
        ("https://api.example.com/info", "without /info"),
        ("https://user:pw@api.example.com", "user name or password"),
        ("https://api.example.com/?x=1", "no ?query"),
        ("http://127.0.0.1:99999", "bad port"),
    ],
)
def test_bad_source_urls_are_refused_in_words(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("?", r"\?").replace("(", r"\(").replace(")", r"\)")):
        source_url(text)


@pytest.mark.parametrize(
    "text",
    ["ftp://example.com", "http://", "wss://api.example.com/ws/", "https://user:pw@api.example.com",
     "https://api.example.com/?x=1", "http://127.0.0.1:99999", "https://api.example.com /x"],
)  # fmt: skip
def test_the_mirror_flag_and_the_config_refuse_a_base_url_in_the_same_words(text: str) -> None:
    """A bad URL given as ``--mirror`` and as a profile's ``mirror`` (or ``url``) is refused with the same message:
    one check (``tui.api.endpoints.check_base_url``), not two that drift apart."""
    with pytest.raises(ValueError) as by_flag:
        source_url(text)
    for field in ("mirror", "url"):
        with pytest.raises(ValueError) as by_config:
            PROFILE_FIELDS[field](text)
        assert str(by_config.value) == str(by_flag.value)


def test_a_good_source_url_is_kept_without_its_trailing_slash() -> None:
    assert source_url(" https://api.hotstuff.trade/ ") == "https://api.hotstuff.trade"


def test_the_header_reads_back_what_the_mirror_says() -> None:
    said = parse_paper("stale; source=http://h:1; age_ms=1200; reason=no answer in time")
    assert said is not None and (said.state, said.source, said.age_ms, said.reason) == (
        "stale",
        "http://h:1",
        1200,
        "no answer in time",
    )
    assert parse_paper(None) is None and parse_paper("maybe") is None
    assert parse_paper(PaperStatus("live", "http://h:1", 7).header_value()) == PaperStatus("live", "http://h:1", 7)


async def test_charts_open_on_the_sources_own_candles() -> None:
    source = LocalExchange(SimConfig(port=_free_port(), seed=3, market=True), FrozenClock())  # weeks of past
    await source.start()
    mirror = await open_exchange(SimConfig(seed=5, mirror=source.url), FrozenClock(1_767_225_700_000))
    await mirror.start()
    try:
        async with Client(source.url) as theirs, Client(mirror.url) as ours:
            to = 1_767_225_600_000 // 1000 - 60  # before either exchange started
            minutes = await theirs.chart(1, "ltp", "1", to - 3_600, to)
            assert len(minutes) > 50 and await ours.chart(1, "ltp", "1", to - 3_600, to) == minutes
            (hour,) = await ours.chart(2, "mark", "60", to - 3_600 + 60, to - 60)
            theirs_hour = await theirs.chart(2, "mark", "1", hour.time // 1000, hour.time // 1000 + 3_540)
            assert hour.high == max(c.high for c in theirs_hour) and hour.low == min(c.low for c in theirs_hour)
    finally:
        await mirror.stop()
        await source.stop()


def test_minutes_the_source_was_silent_carry_its_last_close() -> None:
    t0 = 1_767_225_600_000

    def minute(t: int, close: str) -> m.Candle:
        return m.Candle(Decimal(1), Decimal(9), Decimal(1), Decimal(close), Decimal(2), t)

    past = SourcePast({(1, "ltp"): [minute(t0, "5"), minute(t0 + 180_000, "7")]}, t0 + 6 * 60_000 + 1)
    got = past(1, "ltp", ["1", "5"])
    assert [(c.time - t0, c.close, c.volume) for c in got["1"]] == [
        (0, 5, 2), (60_000, 5, 0), (120_000, 5, 0), (180_000, 7, 2), (240_000, 7, 0), (300_000, 7, 0),
    ]  # fmt: skip
    assert [(c.time - t0, c.open, c.high, c.close, c.volume) for c in got["5"]] == [
        (0, 1, 9, 7, 4),
        (300_000, 7, 7, 7, 0),
    ]
    assert past(2, "ltp", ["1"]) == {"1": []}  # a series the source did not give starts with the mirror
