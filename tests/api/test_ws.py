"""WsClient against a real local JSON-RPC WebSocket server (tests/api/ws_server.py)."""

from __future__ import annotations

import asyncio
import random
import socket
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from tests.api.ws_server import RpcServer
from tui.api.ws import (
    ClientClosed,
    ConnectionLost,
    ConnState,
    MessageRateLimiter,
    ReconnectSchedule,
    SubscriptionError,
    SubscriptionLimitError,
    WsClient,
    backoff_delay,
    normalize_channel,
)


class FakeTime:
    """A clock that moves only when slept on; sleeping returns at once."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []
        self.slept = asyncio.Event()

    def clock(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        self.sleeps.append(delay)
        self.now += delay
        self.slept.set()
        await asyncio.sleep(0)


class Inbox:
    """A subscription callback that records payloads and lets the test await them."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._queue: asyncio.Queue[Any] = asyncio.Queue()

    def __call__(self, data: Any) -> None:
        self.items.append(data)
        self._queue.put_nowait(data)

    async def get(self) -> Any:
        async with asyncio.timeout(5):
            return await self._queue.get()


async def next_state(states: asyncio.Queue[ConnState]) -> ConnState:
    async with asyncio.timeout(5):
        return await states.get()


@pytest.fixture
async def server() -> AsyncIterator[RpcServer]:
    async with RpcServer(tag_connections=True) as srv:
        yield srv


@pytest.fixture
async def make_client() -> AsyncIterator[Callable[..., WsClient]]:
    clients: list[WsClient] = []

    def make(url: str, **kwargs: Any) -> WsClient:
        kwargs.setdefault("rng", random.Random(7))
        client = WsClient(url, **kwargs)
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.close()


async def live_client(make_client: Callable[..., WsClient], server: RpcServer, **kwargs: Any) -> WsClient:
    client = make_client(server.url, **kwargs)
    await client.start()
    async with asyncio.timeout(5):
        await client.wait_live()
    return client


async def barrier(client: WsClient, server: RpcServer) -> list[dict[str, Any]]:
    """Round-trip a post; returns the client messages the server saw before it (pings excluded)."""
    await client.post("info", {"type": "barrier"})
    seen = []
    while True:
        _, msg = await server.next_message()
        if msg["method"] == "post" and msg["params"]["payload"] == {"type": "barrier"}:
            return seen
        seen.append(msg)


async def test_subscribe_notify_unsubscribe(make_client: Callable[..., WsClient], server: RpcServer) -> None:
    states: asyncio.Queue[ConnState] = asyncio.Queue()
    client = await live_client(make_client, server, on_state=states.put_nowait)
    inbox = Inbox()
    sub = await client.subscribe("orderbook", inbox, symbol="BTC-PERP")

    _, msg = await server.next_message("subscribe")
    assert msg == {
        "jsonrpc": "2.0",
        "method": "subscribe",
        "params": {"channel": "orderbook", "symbol": "BTC-PERP"},
        "id": "1",
    }
    assert sub.channel == "orderbook@BTC-PERP#1"
    assert await server.push("orderbook@BTC-PERP#1", {"update_type": "snapshot"}) == 1
    assert await server.push("orderbook@BTC-PERP#1", {"n": 2}, method="event") == 1
    assert await inbox.get() == {"update_type": "snapshot"}
    assert await inbox.get() == {"n": 2}
    assert client.status.last_message_at is not None

    await sub.unsubscribe()
    _, msg = await server.next_message("unsubscribe")
    assert msg["params"] == ["orderbook@BTC-PERP#1"]
    assert msg["id"] == "2"
    assert not sub.active and client.status.subscriptions == 0
    assert await server.push("orderbook@BTC-PERP#1", {"n": 3}) == 0

    await client.close()
    assert [states.get_nowait() for _ in range(states.qsize())] == [
        ConnState.CONNECTING,
        ConnState.LIVE,
        ConnState.CLOSED,
    ]


async def test_last_message_is_stamped_by_the_injected_wall_clock(
    make_client: Callable[..., WsClient], server: RpcServer
) -> None:
    """A notification arrives on a client given a wall clock that reads 1234.5: ``status.last_message_at`` says
    1234.5, the injected time, not the machine's."""
    client = await live_client(make_client, server, wall_clock=lambda: 1234.5)
    inbox = Inbox()
    await client.subscribe("orderbook", inbox, symbol="BTC-PERP")
    assert await server.push("orderbook@BTC-PERP#1", {"update_type": "snapshot"}) == 1
    assert await inbox.get() == {"update_type": "snapshot"}
    assert client.status.last_message_at == 1234.5


async def test_snapshot_right_behind_the_reply_is_delivered(
    make_client: Callable[..., WsClient], server: RpcServer
) -> None:
    server.snapshot_on_subscribe = True
    client = await live_client(make_client, server, sleep=FakeTime().sleep)
    book = Inbox()
    await client.subscribe("orderbook", book, symbol="BTC-PERP")
    assert await book.get() == {"update_type": "snapshot"}
    server.drop()  # the resubscribe brings a fresh snapshot, delivered once
    assert await book.get() == {"update_type": "snapshot"}
    await barrier(client, server)
    assert book.items == [{"update_type": "snapshot"}] * 2


async def test_shared_subscription_sends_once_and_fans_out(
    make_client: Callable[..., WsClient], server: RpcServer
) -> None:
    client = await live_client(make_client, server)
    first, second = Inbox(), Inbox()
    sub1, sub2 = await asyncio.gather(
        client.subscribe("ticker", first, symbol="ETH-PERP"),
        client.subscribe("ticker", second, symbol="ETH-PERP"),
    )
    assert [m["method"] for m in await barrier(client, server)] == ["subscribe"]
    assert sub1.channel == sub2.channel == "ticker@ETH-PERP#1"
    await server.push("ticker@ETH-PERP#1", 1)
    assert (await first.get(), await second.get()) == (1, 1)

    await sub1.unsubscribe()
    assert await barrier(client, server) == []  # still used by sub2: nothing sent
    await server.push("ticker@ETH-PERP#1", 2)
    assert await second.get() == 2
    await sub2.unsubscribe()
    assert [m["params"] for m in await barrier(client, server)] == [["ticker@ETH-PERP#1"]]
    assert first.items == [1] and second.items == [1, 2]


@pytest.mark.parametrize(
    ("alias", "params", "sent"),
    [
        ("positions", {"user": "0xab"}, {"channel": "position", "user": "0xab", "address": "0xab"}),
        ("trade", {"symbol": "BTC-PERP"}, {"channel": "trades", "symbol": "BTC-PERP"}),
        ("agents", {"user": "0xab"}, {"channel": "agent", "user": "0xab"}),
        ("accountSummary", {"user": "0xab"}, {"channel": "account_summary", "user": "0xab"}),
        ("accountOrderUpdates", {"user": "0xab"}, {"channel": "orders", "user": "0xab"}),
        ("order", {"user": "0xab"}, {"channel": "orders", "user": "0xab"}),
    ],
)
async def test_aliases_normalised(
    make_client: Callable[..., WsClient],
    server: RpcServer,
    alias: str,
    params: dict[str, str],
    sent: dict[str, str],
) -> None:
    client = await live_client(make_client, server)
    sub = await client.subscribe(alias, Inbox(), **params)
    _, msg = await server.next_message("subscribe")
    assert msg["params"] == sent
    assert sub.name == sent["channel"]


def test_normalize_channel_leaves_current_names() -> None:
    assert normalize_channel("index", {}) == ("index", {})
    assert normalize_channel("position", {"address": "0x1"}) == ("position", {"address": "0x1", "user": "0x1"})


async def test_rejected_subscription_raises(make_client: Callable[..., WsClient], server: RpcServer) -> None:
    server.reject_status.add("bogus")
    server.reject_rpc.add("nope")
    client = await live_client(make_client, server)
    with pytest.raises(SubscriptionError, match="unknown channel bogus"):
        await client.subscribe("bogus", Inbox(), symbol="X")
    with pytest.raises(SubscriptionError, match="invalid params") as info:
        await client.subscribe("nope", Inbox())
    assert info.value.code == -32602
    assert client.status.subscriptions == 0
    assert client.state is ConnState.LIVE


async def test_ping_sent_and_pong_handled(make_client: Callable[..., WsClient], server: RpcServer) -> None:
    client = await live_client(make_client, server, ping_interval=0.02)
    _, ping = await server.next_message("ping")
    assert ping == {"jsonrpc": "2.0", "method": "ping", "id": ping["id"]}
    await barrier(client, server)  # the pong was read before the post's reply
    assert client.status.latency is not None
    assert client.status.invalid_frames == 0


async def test_reconnect_resubscribes_and_delivers_once(
    make_client: Callable[..., WsClient], server: RpcServer
) -> None:
    fake = FakeTime()
    states: asyncio.Queue[ConnState] = asyncio.Queue()
    client = await live_client(make_client, server, on_state=states.put_nowait, sleep=fake.sleep)
    book1, book2, ticker = Inbox(), Inbox(), Inbox()
    book_sub = await client.subscribe("orderbook", book1, symbol="BTC-PERP")
    await client.subscribe("orderbook", book2, symbol="BTC-PERP")
    await client.subscribe("ticker", ticker, symbol="ETH-PERP")
    await server.push("orderbook@BTC-PERP#1", "before")
    assert await book1.get() == "before"
    assert [await next_state(states) for _ in range(2)] == [ConnState.CONNECTING, ConnState.LIVE]
    await barrier(client, server)

    server.drop()
    assert [await next_state(states) for _ in range(2)] == [ConnState.RECONNECTING, ConnState.LIVE]
    assert client.status.reconnects == 1
    assert len(fake.sleeps) == 1 and 0 <= fake.sleeps[0] <= 0.25  # the first try after a loss: soon, jittered

    resent = await barrier(client, server)
    assert sorted((m["id"], m["method"], m["params"]["channel"]) for m in resent) == [
        ("1", "subscribe", "orderbook"),
        ("2", "subscribe", "ticker"),
    ]
    assert book_sub.channel == "orderbook@BTC-PERP#2"
    assert await server.push("orderbook@BTC-PERP#1", "stale") == 0
    for n in range(3):
        assert await server.push("orderbook@BTC-PERP#2", n) == 1
    await server.push("ticker@ETH-PERP#2", "sentinel")
    assert await ticker.get() == "sentinel"  # same socket, so every book frame before it was handled
    assert book1.items == book2.items == ["before", 0, 1, 2]


async def test_pending_request_fails_when_socket_drops(make_client: Callable[..., WsClient], server: RpcServer) -> None:
    client = await live_client(make_client, server, sleep=FakeTime().sleep)
    server.hold_posts = True
    post = asyncio.create_task(client.post("info", {"type": "held"}))
    await server.next_message("post")
    server.drop()
    with pytest.raises(ConnectionLost, match="disconnected"):
        await post


async def test_idle_timeout_forces_reconnect(make_client: Callable[..., WsClient], server: RpcServer) -> None:
    states: asyncio.Queue[ConnState] = asyncio.Queue()
    client = await live_client(
        make_client, server, ping_interval=0.05, idle_timeout=0.2, on_state=states.put_nowait, sleep=FakeTime().sleep
    )
    sub = await client.subscribe("bbo", Inbox(), symbol="BTC-PERP")
    assert [await next_state(states) for _ in range(2)] == [ConnState.CONNECTING, ConnState.LIVE]
    server.answer_pings = False  # half-open: the socket stays up but nothing arrives
    expected = [ConnState.STALE, ConnState.RECONNECTING, ConnState.LIVE]
    assert [await next_state(states) for _ in range(3)] == expected
    assert await asyncio.wait_for(server.connected.get(), 1) == 1
    assert await asyncio.wait_for(server.connected.get(), 1) == 2
    assert sub.channel == "bbo@BTC-PERP#2"


async def test_a_quiet_socket_goes_stale_and_back_to_live_without_a_reconnect(
    make_client: Callable[..., WsClient], server: RpcServer
) -> None:
    states: asyncio.Queue[ConnState] = asyncio.Queue()
    times: list[int] = []
    client = await live_client(
        make_client, server, ping_interval=0.05, stale_after=0.2, idle_timeout=30.0,
        on_state=states.put_nowait, on_server_time=times.append,
    )  # fmt: skip
    assert [await next_state(states) for _ in range(2)] == [ConnState.CONNECTING, ConnState.LIVE]
    await server.next_message("ping")  # pinged while quiet
    server.answer_pings = False  # nothing arrives any more
    assert await next_state(states) is ConnState.STALE
    assert client.status.quiet_s is not None and client.status.quiet_s >= 0.2
    server.answer_pings = True
    assert await next_state(states) is ConnState.LIVE
    assert client.status.reconnects == 0
    assert times and abs(times[-1] - time.time() * 1000) < 5_000  # the pongs' timestamps, for the clock


async def test_suspicion_gets_a_silent_socket_replaced_at_once(
    make_client: Callable[..., WsClient], server: RpcServer
) -> None:
    states: asyncio.Queue[ConnState] = asyncio.Queue()
    client = await live_client(
        make_client, server, ping_interval=0.1, stale_after=20.0, idle_timeout=30.0, on_state=states.put_nowait
    )
    assert [await next_state(states) for _ in range(2)] == [ConnState.CONNECTING, ConnState.LIVE]
    server.answer_pings = False
    client.suspect()  # say /info timed out twice: the socket gets a ping interval to answer, not 30 s
    assert [await next_state(states) for _ in range(2)] == [ConnState.RECONNECTING, ConnState.LIVE]
    assert client.status.reconnects == 1 and client.status.last_gap_s is not None


def test_reconnect_schedule_is_quick_for_a_young_outage_and_backs_off_after() -> None:
    now = [0.0]
    schedule = ReconnectSchedule(rng=random.Random(1), clock=lambda: now[0])
    assert 0 <= schedule.next_delay() <= 0.25  # the first try after a loss
    assert all(0.25 <= schedule.next_delay() <= 0.5 for _ in range(100))
    now[0] = 61.0  # a minute into the outage
    assert all(b / 2 <= schedule.next_delay() <= b for b in (1, 2, 4, 8, 16, 30, 30))
    schedule.lost()  # live again, and lost again: quick once more
    assert 0 <= schedule.next_delay() <= 0.25
    assert 0.5 <= schedule.next_delay(refused=True) <= 1.0  # refused by a live server: straight to backing off


async def test_subscription_cap(make_client: Callable[..., WsClient], server: RpcServer) -> None:
    client = await live_client(make_client, server)
    subs = await asyncio.gather(*(client.subscribe("ticker", Inbox(), symbol=f"S{i}") for i in range(1000)))
    assert client.status.subscriptions == 1000
    with pytest.raises(SubscriptionLimitError, match="1000"):
        await client.subscribe("ticker", Inbox(), symbol="S1000")
    await client.subscribe("ticker", Inbox(), symbol="S0")  # shares an existing one: allowed
    sent = await barrier(client, server)
    assert len(sent) == 1000 and all(m["method"] == "subscribe" for m in sent)

    await subs[1].unsubscribe()
    await client.subscribe("ticker", Inbox(), symbol="S1000")
    assert [m["method"] for m in await barrier(client, server)] == ["unsubscribe", "subscribe"]


async def test_message_rate_limiter_delays_message_2001(
    make_client: Callable[..., WsClient], server: RpcServer
) -> None:
    fake = FakeTime()
    client = await live_client(make_client, server, clock=fake.clock, sleep=fake.sleep)
    results = await asyncio.gather(*(client.post("info", {"i": i}) for i in range(2001)))
    assert results[2000] == {"echo": {"i": 2000}}  # delayed, not dropped
    assert fake.sleeps == [pytest.approx(60.0, abs=0.01)]  # only the 2,001st waited, for the window to roll
    posts = [server.received.get_nowait()[1] for _ in range(server.received.qsize())]
    assert len(posts) == 2001


async def test_rate_limiter_window_rolls() -> None:
    fake = FakeTime()
    limiter = MessageRateLimiter(3, 10.0, clock=fake.clock, sleep=fake.sleep)
    for _ in range(3):
        await limiter.acquire()
        fake.now += 1
    assert fake.sleeps == []
    await limiter.acquire()  # at t+3: the first of the window was at t, so wait until t+10
    await limiter.acquire()  # the second was at t+1
    assert fake.sleeps == [pytest.approx(7.0, abs=0.01), pytest.approx(1.0, abs=0.01)]
    assert limiter.used() == 3


async def test_garbage_frames_do_not_kill_the_reader(make_client: Callable[..., WsClient], server: RpcServer) -> None:
    client = await live_client(make_client, server)
    inbox = Inbox()
    await client.subscribe("mids", inbox, symbol="BTC-PERP")
    garbage: list[str | bytes] = [
        "not json",
        "[1, 2]",
        "42",
        '{"jsonrpc": "2.0"}',
        '{"method": "subscription", "params": "x"}',
        '{"method": "subscription", "params": {"channel": 5, "data": 1}}',
        '{"method": "event", "params": {"channel": "mids@BTC-PERP#1"}}',
        b"\xff\x00\x01",
    ]
    for frame in garbage:
        await server.send_raw(frame)
    await server.send_raw('{"id": "999", "result": {}}')  # a reply nobody waits for: ignored, not invalid
    await server.push("mids@BTC-PERP#1", {"mid_price": 1.5})
    assert await inbox.get() == {"mid_price": 1.5}
    assert client.status.invalid_frames == len(garbage)
    assert client.state is ConnState.LIVE and client.status.reconnects == 0


def test_backoff_delay_doubles_to_the_cap_with_jitter() -> None:
    rng = random.Random(3)
    delays = [backoff_delay(a, minimum=0.5, maximum=30.0, jitter=0.5, rng=rng) for a in range(10)]
    bases = [0.5, 1, 2, 4, 8, 16, 30, 30, 30, 30]
    assert all(b / 2 <= d <= b for d, b in zip(delays, bases, strict=True))
    assert len(set(delays[6:])) == 4  # jittered, not in lockstep
    assert backoff_delay(10_000, minimum=0.5, maximum=30.0, jitter=0.0, rng=rng) == 30.0


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"ws://127.0.0.1:{sock.getsockname()[1]}/ws/"


async def test_unreachable_server_backs_off_and_close_fails_waiters(
    make_client: Callable[..., WsClient],
) -> None:
    fake = FakeTime()
    client = make_client(closed_port_url(), sleep=fake.sleep, clock=fake.clock, backoff_max=4.0)
    await client.start()
    waiter = asyncio.create_task(client.subscribe("index", Inbox()))
    while fake.now < 1000.0 + 60 + 4 * 4:  # a minute of quick tries, then the backoff's steps up to its cap
        fake.slept.clear()
        await asyncio.wait_for(fake.slept.wait(), 5)
    assert client.state is ConnState.CONNECTING
    starts = [sum(fake.sleeps[:i]) for i in range(len(fake.sleeps))]  # outage age at each wait
    quick = [d for d, t in zip(fake.sleeps, starts, strict=True) if t < 60]
    slow = fake.sleeps[len(quick) :]
    assert 0 <= quick[0] <= 0.25 and all(0.25 <= d <= 0.5 for d in quick[1:])
    assert 60 <= sum(quick) <= 60.5  # quick for the outage's first minute
    assert all(b / 2 <= d <= b for d, b in zip(slow, [1, 2, 4, 4, 4], strict=False))
    await client.close()
    with pytest.raises(ClientClosed):
        await waiter
    with pytest.raises(ClientClosed):
        await client.subscribe("index", Inbox())
