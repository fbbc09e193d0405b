"""The client's rate-limit governor, on a fake clock: budgets, server headers, 429 waits and 418 bans."""

import pytest

from tui.api.errors import Banned
from tui.api.limits import Governor, Window, parse_used


class FakeTime:
    def __init__(self) -> None:
        self.now = 1_000_000.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def t() -> FakeTime:
    return FakeTime()


def test_window_slides() -> None:
    w = Window(3, 60)
    for s in (0, 10, 20):
        w.add(1000.0 + s)
    assert w.used(1020.0) == 3
    assert w.wait_for_slot(1020.0) == pytest.approx(40.001)
    assert w.used(1060.5) == 2  # the first call left the window


async def test_stays_under_its_own_budget(t: FakeTime) -> None:
    g = Governor(info_per_minute=5, clock=t.clock, sleep=t.sleep)
    for _ in range(5):
        await g.acquire("info")
    assert t.slept == []
    await g.acquire("info")  # the sixth waits for the window to slide
    assert len(t.slept) == 1 and 59 < t.slept[0] <= 61
    assert g.status().info_1m.used <= 5


async def test_exchange_and_info_budgets_are_separate(t: FakeTime) -> None:
    g = Governor(info_per_minute=1, exchange_per_minute=2, clock=t.clock, sleep=t.sleep)
    await g.acquire("info")
    await g.acquire("exchange")
    await g.acquire("exchange")
    assert t.slept == []
    s = g.status()
    assert (s.info_1m.used, s.exchange_1m.used, s.exchange_1m.limit) == (1, 2, 2)


async def test_follows_server_headers(t: FakeTime) -> None:
    g = Governor(clock=t.clock, sleep=t.sleep)
    g.observe("info", {"x-ratelimit-1m": "4990/5000", "x-ratelimit-1h": "12000/200000", "x-used-weight-1m": "4990"})
    s = g.status()
    assert s.info_1m.used == 4990 and s.info_1h.used == 12000
    for _ in range(10):
        await g.acquire("info")
    assert t.slept == []
    await g.acquire("info")  # the server's count plus ours reached the limit
    assert t.slept


async def test_429_waits_retry_after(t: FakeTime) -> None:
    g = Governor(clock=t.clock, sleep=t.sleep)
    g.rate_limited(7)
    assert g.status().waiting_s == 7
    await g.acquire("exchange")
    assert sum(t.slept) == pytest.approx(7)


async def test_418_stops_calls_until_the_ban_ends(t: FakeTime) -> None:
    g = Governor(clock=t.clock, sleep=t.sleep)
    g.banned(300)
    assert g.status().banned_until == t.now + 300
    with pytest.raises(Banned) as err:
        await g.acquire("info")
    assert 299 <= err.value.ban_seconds <= 300
    t.now += 301
    await g.acquire("info")
    assert g.status().banned_until is None


@pytest.mark.parametrize(("text", "parsed"), [("1/5000", (1, 5000)), ("x/1", None), ("", None), (None, None)])
def test_parse_used(text: str | None, parsed: tuple[int, int] | None) -> None:
    assert parse_used(text) == parsed
