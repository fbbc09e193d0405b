"""A local clock 70 s behind or ahead of the exchange's (a frozen-clock local exchange): orders and cancels go
through, signed on the exchange's clock; a refusal for expiry says how far off the clock is, in words."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from tests.conftest import ALICE_KEY, client_for
from tui.api.client import Client
from tui.api.errors import ActionExpired
from tui.api.server_time import ServerClock, exchange_time_in, is_expiry_refusal, skew_words
from tui.api.wire import order_item
from tui.feed.worker import Feed
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange

SKEW_MS = 70_000


def skewed(clock: FrozenClock, skew_ms: int) -> Callable[[], int]:
    """This machine's clock: the exchange's, ``skew_ms`` off (negative: behind)."""
    return lambda: clock.now_ms() + skew_ms


@pytest.fixture
async def make_client(sim: LocalExchange, clock: FrozenClock) -> AsyncIterator[Callable[[int], Client]]:
    clients: list[Client] = []

    def make(skew_ms: int) -> Client:
        client = client_for(sim, ALICE_KEY, clock, clock_ms=skewed(clock, skew_ms))
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


class Submissions:
    """Counts what a client sends to /exchange (a refused try and its second signing count as two)."""

    def __init__(self, client: Client) -> None:
        self.count = 0
        submit = client.submit

        async def counted(body: dict[str, Any], **kw: Any) -> dict[str, Any]:
            self.count += 1
            return await submit(body, **kw)

        client.submit = counted  # type: ignore[method-assign]


async def place_and_cancel(client: Client) -> None:
    ack = await client.place_order([order_item(1, "b", "95000", "0.01")])
    oid = ack.data["status"]["oid"]
    await client.cancel_by_oid([(oid, 1)])


@pytest.mark.parametrize("skew_ms", [-SKEW_MS, SKEW_MS])
async def test_a_skewed_clock_learns_the_exchanges_time_from_the_first_refusal(
    make_client: Callable[[int], Client], clock: FrozenClock, skew_ms: int
) -> None:
    client = make_client(skew_ms)
    sent = Submissions(client)
    await client.cancel_all()  # behind: refused as expired, signed again on the exchange's clock
    assert sent.count == (2 if skew_ms < 0 else 1)  # ahead: the local exchange keeps no freshness window
    await place_and_cancel(client)  # orders and cancels go through
    if skew_ms < 0:
        assert sent.count == 4  # nothing refused any more: the clock was learnt
        assert client.server_clock.offset_ms == SKEW_MS
        assert client.sign("cancelAll", {})["nonce"] >= clock.now_ms()


@pytest.mark.parametrize("skew_ms", [-SKEW_MS, SKEW_MS])
async def test_with_a_feed_the_first_order_is_signed_on_the_exchanges_clock(
    sim: LocalExchange, clock: FrozenClock, make_client: Callable[[int], Client], skew_ms: int
) -> None:
    client = make_client(skew_ms)
    wall = skewed(clock, skew_ms)
    feed = Feed(client, sim.ws_url, account=None, wall_clock=lambda: wall() / 1000)
    task = asyncio.create_task(feed.run())
    try:
        async with asyncio.timeout(10):
            await feed.wait_ready()
        assert client.server_clock.offset_ms == -skew_ms  # measured from the exchange's book time
        assert feed.state.status.clock_drift_ms == -skew_ms
        sent = Submissions(client)
        body = client.sign("cancelAll", {})
        assert body["nonce"] >= clock.now_ms() and body["action"]["data"]["expiresAfter"] >= clock.now_ms() + 59_000
        await place_and_cancel(client)
        assert sent.count == 2  # no refusal, no second try
    finally:
        await feed.stop()
        await task


async def test_an_expiry_refusal_says_how_far_behind_the_clock_is(
    make_client: Callable[[int], Client], clock: FrozenClock
) -> None:
    client = make_client(-SKEW_MS)
    local_now = clock.now_ms() - SKEW_MS
    with pytest.raises(ActionExpired) as info:  # an expiry the caller set on its own clock: not signed again
        await client.exchange("cancelAll", {"expiresAfter": local_now + 5_000})
    assert "your clock is 70 s behind the exchange's" in str(info.value)
    assert info.value.offset_ms == SKEW_MS and "expiresAfter" in info.value.said


async def test_an_expiry_refusal_says_how_far_ahead_the_clock_is(
    make_client: Callable[[int], Client], clock: FrozenClock
) -> None:
    client = make_client(SKEW_MS)
    with pytest.raises(ActionExpired, match="your clock is 70 s ahead of the exchange's"):
        await client.exchange("cancelAll", {"expiresAfter": clock.now_ms() - 1})


def test_server_clock_takes_the_freshest_bound_and_forgets_old_samples() -> None:
    local = [1_000_000]
    mono = [0.0]
    sc = ServerClock(lambda: local[0], window_s=30, monotonic=lambda: mono[0])
    assert sc.offset_ms is None and sc.now_ms() == 1_000_000
    sc.observe_date("Thu, 01 Jan 1970 00:16:50 GMT")  # 1,010 s: whole seconds, used while nothing finer
    assert sc.offset_ms == 1_010_500 - 1_000_000
    sc.observe(1_005_000)
    sc.observe(1_004_000)  # a delayed frame: older news, never drags the estimate back
    assert sc.offset_ms == 5_000 and sc.now_ms() == 1_005_000
    mono[0] = 31.0
    assert sc.offset_ms == 10_500  # the fine samples aged out; the Date remains
    sc.reset(999_000)
    assert sc.offset_ms == -1_000


def test_refusal_wording() -> None:
    said = "action expired: expiresAfter 1767225530000 is before the exchange time 1767225600000"
    assert is_expiry_refusal(said) and exchange_time_in(said) == 1_767_225_600_000
    assert not is_expiry_refusal("insufficient margin")
    assert skew_words(70_400) == "your clock is 70 s behind the exchange's"
    assert skew_words(-70_000) == "your clock is 70 s ahead of the exchange's"
    assert skew_words(300) == "your clock agrees with the exchange's to within a second"
    assert skew_words(-3 * 86_400_000) == "your clock is 259,200 s (about 3 days) ahead of the exchange's"
