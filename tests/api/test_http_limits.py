"""The HTTP client meeting the local exchange's rate limits: 429 with Retry-After, then 418 bans."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import client_for
from tui.api.client import Client
from tui.api.errors import Banned, RateLimited
from tui.api.limits import Governor
from tui.sim.clock import FrozenClock
from tui.sim.server.local_exchange import LocalExchange, SimConfig
from tui.sim.server.ratelimit import Limits


@pytest.fixture
def sim_config() -> SimConfig:
    return SimConfig(seed=7, market=False, limits=Limits(info_per_minute=3, ban_after=2))


async def _burn(sim: LocalExchange, n: int) -> None:
    """Another program on the same address spends the budget."""
    async with httpx.AsyncClient(base_url=sim.url) as h:
        for _ in range(n):
            assert (await h.post("/info", content=b'{"method": "ticker", "params": {"symbol": "all"}}')).is_success


async def test_governor_adopts_the_servers_limit(sim: LocalExchange, clock: FrozenClock) -> None:
    async with client_for(sim, None, clock) as c:
        await c.ticker("BTC-PERP")
        s = c.governor.status()
        assert (s.info_1m.used, s.info_1m.limit) == (1, 3)
        await c.ticker("BTC-PERP")
        await c.ticker("BTC-PERP")
        before = clock.now_ms()
        await c.ticker("BTC-PERP")  # waits for the next minute instead of earning a 429
        assert clock.now_ms() - before >= 1


async def test_429_then_418_with_headers(sim: LocalExchange, clock: FrozenClock) -> None:
    await _burn(sim, 3)
    ignored = [0.0]  # seconds of Retry-After the governor's clock has skipped
    governor = Governor(clock=lambda: clock.now_ms() / 1000 + ignored[0])
    async with Client(sim.url, governor=governor, clock_ms=clock.now_ms) as c:
        with pytest.raises(RateLimited) as limited:
            await c.ticker("BTC-PERP")
        assert 0 < limited.value.retry_after <= 60
        assert governor.status().waiting_s > 0
        for _ in range(2):
            ignored[0] += governor.status().waiting_s  # behave like a careless client that ignores Retry-After
            with pytest.raises((RateLimited, Banned)) as err:
                await c.ticker("BTC-PERP")
        assert isinstance(err.value, Banned) and err.value.ban_seconds == 300
        assert governor.status().banned_until is not None
        with pytest.raises(Banned, match="not calling"):  # banned: the governor refuses without calling
            await c.ticker("BTC-PERP")


async def test_governor_waits_out_a_429(sim: LocalExchange, clock: FrozenClock) -> None:
    await _burn(sim, 3)
    async with client_for(sim, None, clock) as c:
        with pytest.raises(RateLimited):
            await c.ticker("BTC-PERP")
        before = clock.now_ms()
        await c.ticker("BTC-PERP")  # waits Retry-After (moving the frozen clock), then succeeds
        assert clock.now_ms() - before >= 1000
